// Every module of the public corpus that parses must cost without an error and with finite,
// non-negative figures. The corpus is read from ../shared/corpus (HLOROOF_CORPUS overrides).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <vector>

#include "cost_test_util.h"
#include "corpus.h"

namespace hloroof {
namespace {

namespace fs = std::filesystem;

bool sane(double x) { return std::isfinite(x) && x >= 0; }

bool sane(const OpCost& c) {
  return sane(c.flops) && sane(c.transcendentals) && sane(c.matrix_flops()) &&
         c.matrix_flops() <= c.flops * (1 + 1e-12) && sane(c.bytes_read) && sane(c.bytes_written) &&
         sane(c.padded_bytes()) && sane(c.hbm_bytes()) && sane(c.xla_flops) &&
         sane(c.xla_transcendentals) && sane(c.xla_bytes_accessed);
}

TEST_CASE("the corpus costs without errors and with finite figures") {
  const fs::path dir = testing::corpus_or_skip(".");
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".hlo") {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());

  int costed = 0, unparsed = 0, with_unknown = 0, lower_bound = 0;
  double instructions = 0;
  std::vector<std::string> failures;
  for (const fs::path& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    absl::StatusOr<Module> module = parse_module(text.str());
    if (!module.ok()) {
      ++unparsed;
      continue;
    }
    absl::StatusOr<ModuleCost> cost = analyze_cost(*module);
    if (!cost.ok()) {
      failures.push_back(file.string() + ": " + cost.status().ToString());
      continue;
    }
    std::string bad = sane(cost->totals) ? "" : "totals";
    for (const InstructionCost& r : cost->instructions) {
      if (!sane(r.cost) || !sane(r.multiplier) ||
          (r.collective && !sane(r.collective->payload_bytes))) {
        bad = std::string(r.instruction->name());
      }
    }
    if (!bad.empty()) failures.push_back(file.string() + ": figures of " + bad);
    ++costed;
    instructions += static_cast<double>(cost->instructions.size());
    with_unknown += !cost->unknown.empty();
    lower_bound += cost->is_lower_bound;
  }
  std::cout << "cost corpus: " << files.size() << " modules, " << costed << " costed ("
            << instructions << " instructions), " << unparsed << " did not parse, " << with_unknown
            << " with unknown ops, " << lower_bound << " lower bounds\n";
  CHECK(costed > 0);
  INFO((failures.empty() ? std::string() : failures.front()));
  CHECK(failures.empty());
}

}  // namespace
}  // namespace hloroof
