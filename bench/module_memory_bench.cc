// Where a parsed module's memory goes: `module_memory_bench [FILE...]` (default: the three
// largest valid modules of the shared corpus, ../shared/corpus or $HLOROOF_CORPUS). For each
// file, bytes per instruction of each kind of object (nodes, attribute records, decoded metadata,
// edge lists out of line, name maps, order lists, other arena contents, unused arena ends, shape
// table, other heap), all measured by walking the module; the heap total from mallinfo2 and the
// peak resident growth from VmHWM, both measured around the parse. The peak is split into
// anonymous memory (the module and what parsing left) and file pages (the parser's code, read
// from the binary the first time it runs, and the input's pages when the file was not already
// in the page cache) as they are after the parse: the module's own total is the anonymous part.
#include <malloc.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "bench_support.h"
#include "hloroof/hlo_text.h"
#include "hloroof/input_file.h"
#include "ir/memory_breakdown.h"

namespace {

namespace fs = std::filesystem;

// Malloc's bytes in use.
size_t heap_in_use() {
  struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
}

void measure(const std::string& path) {
  absl::StatusOr<hloroof::InputFile> in = hloroof::read_input_file(path);
  if (!in.ok()) {
    std::printf("%s: %s\n", path.c_str(), std::string(in.status().message()).c_str());
    return;
  }
  const double text = static_cast<double>(in->text().size());
  hloroof::bench::reset_peak();
  const int64_t rss_before = hloroof::bench::status_bytes("VmRSS:");
  const int64_t anon_before = hloroof::bench::status_bytes("RssAnon:");
  const int64_t file_before = hloroof::bench::status_bytes("RssFile:");
  const size_t heap_before = heap_in_use();
  absl::StatusOr<hloroof::Module> m = hloroof::parse_module(*std::move(in));
  const size_t heap = heap_in_use() - heap_before;
  const int64_t peak = hloroof::bench::status_bytes("VmHWM:") - rss_before;
  const int64_t anon = hloroof::bench::status_bytes("RssAnon:") - anon_before;
  const int64_t file = hloroof::bench::status_bytes("RssFile:") - file_before;
  if (!m.ok()) {
    std::printf("%s: %s\n", path.c_str(), std::string(m.status().message()).c_str());
    return;
  }
  const hloroof::detail::MemoryBreakdown b = hloroof::detail::memory_breakdown(*m);
  const double n = static_cast<double>(b.instructions);
  std::printf("%s\n", fs::path(path).filename().c_str());
  std::printf("  %.0f instructions, %.1f text bytes each, %.2f attributes each (%.2f metadata)\n",
              n, text / n, static_cast<double>(b.attributes) / n,
              static_cast<double>(b.metadata_attributes) / n);
  auto row = [&](const char* what, double bytes) {
    std::printf("  %-44s %8.1f B/instruction %6.2f B/B\n", what, bytes / n, bytes / text);
  };
  const size_t known_arena = b.nodes + b.attribute_records + b.metadata_records + b.edge_lists +
                             b.rare_records + b.name_maps + b.order_lists;
  // Blocks the arena took from malloc are in both totals.
  const size_t arena_on_heap = b.arena_heap_blocks;
  const size_t known_heap = b.edge_heap + b.shape_table;
  row("arena: instruction nodes", static_cast<double>(b.nodes));
  row("arena: attribute records", static_cast<double>(b.attribute_records));
  row("arena: decoded metadata", static_cast<double>(b.metadata_records));
  row("arena: edge lists", static_cast<double>(b.edge_lists));
  row("arena: rare fields (literal, control, called)", static_cast<double>(b.rare_records));
  row("arena: name maps", static_cast<double>(b.name_maps));
  row("arena: instruction and parameter lists", static_cast<double>(b.order_lists));
  row("arena: other (shapes, values, strings...)", static_cast<double>(b.arena_used - known_arena));
  row("arena: resident, not used (block ends)",
      static_cast<double>(b.arena_resident - b.arena_used));
  row("arena: reserved, not resident", static_cast<double>(b.arena_reserved - b.arena_resident));
  row("heap: edge lists (callers)", static_cast<double>(b.edge_heap));
  row("heap: shape table", static_cast<double>(b.shape_table));
  const double heap_other = static_cast<double>(heap) - static_cast<double>(arena_on_heap) -
                            static_cast<double>(known_heap);
  row("heap: other (measured total less the above)", heap_other);
  row("module total (arena resident + heap)", static_cast<double>(b.arena_resident) +
                                                  static_cast<double>(heap) -
                                                  static_cast<double>(arena_on_heap));
  row("peak resident growth while parsing (VmHWM)", static_cast<double>(peak));
  row("  of which anonymous, after parsing (RssAnon)", static_cast<double>(anon));
  row("  of which file pages, after parsing (RssFile)", static_cast<double>(file));
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> files(argv + 1, argv + argc);
  if (files.empty()) {
    const fs::path dir = hloroof::bench::corpus_dir();
    files = hloroof::bench::largest_corpus_modules(dir, 3);
    if (files.empty()) {
      std::printf("corpus not found at %s (set HLOROOF_CORPUS) and no FILE given\n", dir.c_str());
      return 1;
    }
  }
  for (const std::string& f : files) measure(f);
  return 0;
}
