// write_hlo_proto(module, memory): hloroof's buffer assignment in XLA's BufferAssignmentProto,
// read back with the generated messages (allocations as the report has them, every buffer
// inside its allocation at an instruction id of the written module, the heap trace replayed as
// XProf's memory viewer replays it) and with read_xla_buffer_assignment (the round trip).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "absl/strings/str_cat.h"
#include "hloroof/hlo_proto.h"
#include "hloroof/hlo_proto_writer.h"
#include "hloroof/hlo_text.h"
#include "hloroof/memory.h"
#include "deterministic_bytes.h"
#include "proto/hlo.pb.h"
#include "export/hlo_proto_pieces.h"
#include "export/wire_writer.h"
#include "require_ok.h"

namespace hloroof {
namespace {

namespace pb = ::hloroof::xla_proto;

// A broadcast whose result is negated, then exponentiated, each elementwise op writing over
// its dying operand's bytes, and a slice of the last as the output.
constexpr char kChain[] = R"(HloModule chain, is_scheduled=true
ENTRY e {
  p = f32[256]{0} parameter(0)
  a = f32[4,256]{1,0} broadcast(p), dimensions={1}
  b = f32[4,256]{1,0} negate(a)
  c = f32[4,256]{1,0} exponential(b)
  ROOT r = f32[1,256]{1,0} slice(c), slice={[0:1], [0:256]}
})";

// Loops (a body with temporaries, run inside another body) and a donated parameter.
constexpr char kLoops[] = R"(HloModule loops, is_scheduled=true, )"
                          R"(input_output_alias={ {}: (0, {}, may-alias) }
icond {
  s.0 = (s32[], f32[1024]) parameter(0)
  i.0 = s32[] get-tuple-element(s.0), index=0
  n.0 = s32[] constant(7)
  ROOT lt = pred[] compare(i.0, n.0), direction=LT
}
ibody {
  s.1 = (s32[], f32[1024]) parameter(0)
  i.1 = s32[] get-tuple-element(s.1), index=0
  x.1 = f32[1024] get-tuple-element(s.1), index=1
  one.1 = s32[] constant(1)
  i1 = s32[] add(i.1, one.1)
  e.1 = f32[1024] exponential(x.1)
  x1 = f32[1024] multiply(e.1, x.1)
  ROOT r.1 = (s32[], f32[1024]) tuple(i1, x1)
}
cond {
  s.2 = (s32[], f32[1024]) parameter(0)
  i.2 = s32[] get-tuple-element(s.2), index=0
  n.2 = s32[] constant(10)
  ROOT lt2 = pred[] compare(i.2, n.2), direction=LT
}
body {
  s.3 = (s32[], f32[1024]) parameter(0)
  i.3 = s32[] get-tuple-element(s.3), index=0
  x.3 = f32[1024] get-tuple-element(s.3), index=1
  one.3 = s32[] constant(1)
  i2 = s32[] add(i.3, one.3)
  x2 = f32[1024] add(x.3, x.3)
  b2 = f32[4,1024] broadcast(x2), dimensions={1}
  n2 = f32[4,1024] negate(b2)
  sl2 = f32[1,1024] slice(n2), slice={[0:1], [0:1024]}
  x4 = f32[1024] reshape(sl2)
  z = s32[] constant(0)
  t = (s32[], f32[1024]) tuple(z, x4)
  w2 = (s32[], f32[1024]) while(t), condition=icond, body=ibody
  x3 = f32[1024] get-tuple-element(w2), index=1
  ROOT r.3 = (s32[], f32[1024]) tuple(i2, x3)
}
ENTRY e {
  x = f32[1024] parameter(0)
  zero = s32[] constant(0)
  s = (s32[], f32[1024]) tuple(zero, x)
  w = (s32[], f32[1024]) while(s), condition=cond, body=body
  y = f32[1024] get-tuple-element(w), index=1
  ROOT o = f32[1024] add(y, y)
})";

struct Written {
  MemoryReport memory;
  pb::HloProto proto;
};

Written write(const char* text, size_t top_buffers = 0) {
  absl::StatusOr<Module> m = parse_module(text);
  REQUIRE_OK(m);
  absl::StatusOr<MemoryReport> memory = analyze_memory(*m, {.top_buffers = top_buffers});
  REQUIRE_OK(memory);
  Written w{*std::move(memory), {}};
  REQUIRE(w.proto.ParseFromString(write_hlo_proto(*m, w.memory)));
  return w;
}

// The heap as XProf's memory viewer replays a trace (openxla/xprof,
// xprof/convert/hlo_proto_to_memory_visualization_utils.cc at
// 117a9db7601e7d4c25dcc1c331266930bb47deea, ProcessHeapSimulatorTrace): ALLOC adds the
// buffer's size; SHARE_WITH points the buffer at its canonical one and adds that one's size
// only when it was not held any more; FREE drops a holder and takes the canonical buffer's
// size off when none is left. Fails where XProf would refuse the trace.
int64_t replay_peak(const pb::HloProto& proto, const pb::HeapSimulatorTrace& trace) {
  std::map<int64_t, int64_t> size;
  for (const auto& b : proto.buffer_assignment().logical_buffers()) size[b.id()] = b.size();
  std::map<int64_t, int64_t> canonical, holders;
  auto root = [&](int64_t id) {
    while (canonical.contains(id)) id = canonical[id];
    return id;
  };
  int64_t heap = 0, peak = 0;
  for (const auto& e : trace.events()) {
    REQUIRE(size.contains(e.buffer_id()));
    if (e.kind() == pb::HeapSimulatorTrace::Event::ALLOC) {
      ++holders[root(e.buffer_id())];
      heap += size[e.buffer_id()];
    } else if (e.kind() == pb::HeapSimulatorTrace::Event::SHARE_WITH) {
      REQUIRE(size.contains(e.share_with_canonical_id()));
      canonical[e.buffer_id()] = e.share_with_canonical_id();
      const int64_t r = root(e.buffer_id());
      if (++holders[r] == 1) heap += size[r];
    } else {
      const int64_t r = root(e.buffer_id());
      REQUIRE(holders[r] >= 1);  // XProf: "is freed multiple times"
      if (--holders[r] == 0) heap -= size[r];
    }
    REQUIRE(heap >= 0);
    peak = std::max(peak, heap);
  }
  for (const auto& [id, n] : holders) CHECK(n == 0);  // every buffer freed by the end
  return peak;
}

// The most bytes of allocation `a`'s buffers live at one program position, from the report
// alone: a buffer over its dying operand's bytes adds nothing where that operand still lives.
int64_t live_peak(const MemoryReport& memory, int64_t a) {
  std::map<int64_t, const MemoryBuffer*> in;
  std::set<int64_t> times;
  for (const MemoryBuffer& b : memory.largest_buffers) {
    if (b.allocation != a) continue;
    in[b.id] = &b;
    times.insert(b.program_from);
  }
  auto live = [](const MemoryBuffer& b, int64_t t) {
    return b.program_from <= t && t <= std::max(b.program_from, b.program_to);
  };
  int64_t peak = 0;
  for (int64_t t : times) {
    int64_t bytes = 0;
    for (const auto& [id, b] : in) {
      if (!live(*b, t)) continue;
      auto shared = in.find(b->shares_with);
      if (shared != in.end() && live(*shared->second, t)) continue;
      bytes += b->padded_bytes;
    }
    peak = std::max(peak, bytes);
  }
  return peak;
}

// Everything that holds for any module: the proto's allocations are the report's, every
// buffer sits inside its allocation at an instruction id of the written module, buffers of the
// temp allocation live at once never overlap, and each temp allocation's trace replays (as
// XProf does) to the report's live peak of that allocation, at most its size.
void check_consistent(const Written& w) {
  const auto& assignment = w.proto.buffer_assignment();
  REQUIRE(assignment.buffer_allocations_size() ==
          static_cast<int>(w.memory.allocations.size()));
  std::map<int64_t, std::string> names;  // instruction id -> name, as written
  for (const auto& c : w.proto.hlo_module().computations()) {
    for (const auto& i : c.instructions()) names[i.id()] = i.name();
  }
  std::map<int64_t, const MemoryBuffer*> by_id;
  for (const MemoryBuffer& b : w.memory.largest_buffers) by_id[b.id] = &b;
  std::map<int64_t, const pb::LogicalBufferProto*> logical;
  for (const auto& lb : assignment.logical_buffers()) {
    REQUIRE(by_id.contains(lb.id()));
    const MemoryBuffer& b = *by_id[lb.id()];
    INFO(b.name);
    CHECK(names[lb.defined_at().instruction_id()] == b.instruction);
    CHECK(lb.size() == b.padded_bytes);
    CHECK(lb.color() == b.memory_space);
    CHECK(std::vector<int64_t>(lb.defined_at().shape_index().begin(),
                               lb.defined_at().shape_index().end()) == b.shape_index);
    logical[lb.id()] = &lb;
  }
  std::set<int64_t> assigned;
  int64_t own = 0;  // report buffers with an allocation of their own
  for (const MemoryBuffer& b : w.memory.largest_buffers) own += b.allocation >= 0;
  for (int k = 0; k < assignment.buffer_allocations_size(); ++k) {
    const auto& a = assignment.buffer_allocations(k);
    const MemoryAllocation& ours = w.memory.allocations[k];
    INFO("allocation " << k);
    CHECK(a.index() == ours.index);
    CHECK(a.size() == ours.bytes);
    CHECK(a.color() == ours.memory_space);
    CHECK(a.is_entry_computation_parameter() == (ours.kind == AllocationKind::kParameter));
    CHECK(a.is_constant() == (ours.kind == AllocationKind::kConstant));
    CHECK(a.maybe_live_out() == ours.maybe_live_out);
    CHECK(a.assigned_size() == ours.buffer_count);
    for (const auto& x : a.assigned()) {
      REQUIRE(logical.contains(x.logical_buffer_id()));
      CHECK(assigned.insert(x.logical_buffer_id()).second);  // in one allocation only
      const MemoryBuffer& b = *by_id[x.logical_buffer_id()];
      CHECK(b.allocation == ours.index);
      CHECK(x.offset() == b.allocation_offset);
      CHECK(x.size() == b.padded_bytes);
      CHECK(x.offset() >= 0);
      CHECK(x.offset() + x.size() <= a.size());
    }
  }
  CHECK(static_cast<int64_t>(assigned.size()) == own);

  int traced = 0;
  for (const MemoryAllocation& a : w.memory.allocations) {
    if (a.kind != AllocationKind::kTemp || a.buffer_count == 0) continue;
    INFO("temp allocation " << a.index);
    // Byte ranges of buffers live at one position never overlap, but where one takes over
    // its dying operand's bytes.
    std::vector<const MemoryBuffer*> in;
    for (const MemoryBuffer& b : w.memory.largest_buffers) {
      if (b.allocation == a.index) in.push_back(&b);
    }
    for (const MemoryBuffer* x : in) {
      for (const MemoryBuffer* y : in) {
        if (x->id >= y->id || x->shares_with == y->id || y->shares_with == x->id) continue;
        const bool together = x->program_from <= y->program_to && y->program_from <= x->program_to;
        const bool overlap = x->allocation_offset < y->allocation_offset + y->padded_bytes &&
                             y->allocation_offset < x->allocation_offset + x->padded_bytes;
        INFO(x->name << " and " << y->name);
        CHECK(!(together && overlap));
      }
    }
    const pb::HeapSimulatorTrace* trace = nullptr;
    for (const auto& t : assignment.heap_simulator_traces()) {
      if (t.buffer_allocation_index() == a.index) trace = &t;
    }
    REQUIRE(trace != nullptr);
    ++traced;
    CHECK(trace->events_size() == 2 * a.buffer_count);  // each buffer starts and ends once
    for (const auto& e : trace->events()) {
      CHECK(by_id[e.buffer_id()]->allocation == a.index);  // XProf: one allocation a trace
    }
    const int64_t peak = replay_peak(w.proto, *trace);
    CHECK(peak == live_peak(w.memory, a.index));
    CHECK(peak <= a.bytes);
  }
  CHECK(assignment.heap_simulator_traces_size() == traced);
}

TEST_CASE("written a message at a time, the bytes are protobuf's own, the same every time") {
  // Each module of tests/data and the two above, with and without a buffer assignment: the
  // bytes parse, and protobuf's deterministic serialization of what they parse to is the same
  // bytes (fields in order of their numbers, the schedule's entries in order of their keys).
  std::vector<std::string> texts = {kChain, kLoops};
  for (const auto& entry : std::filesystem::recursive_directory_iterator(
           std::filesystem::path(HLOROOF_SOURCE_DIR) / "tests" / "data")) {
    if (entry.path().extension() != ".hlo") continue;
    std::ifstream in(entry.path());
    texts.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  int checked = 0, assigned = 0, scheduled = 0;
  for (const std::string& text : texts) {
    absl::StatusOr<Module> m = parse_module(text);
    if (!m.ok()) continue;
    const std::string bare = write_hlo_module_proto(*m);
    pb::HloModuleProto module;
    REQUIRE(module.ParseFromString(bare));
    CHECK(testing::deterministic_bytes(module) == bare);
    if (module.schedule().sequences_size() > 1) ++scheduled;
    const std::string whole = write_hlo_proto(*m);
    pb::HloProto proto;
    REQUIRE(proto.ParseFromString(whole));
    CHECK(testing::deterministic_bytes(proto) == whole);
    CHECK(write_hlo_proto(*m) == whole);
    ++checked;
    absl::StatusOr<MemoryReport> memory = analyze_memory(*m, {.top_buffers = 0});
    if (!memory.ok()) continue;
    const std::string with_buffers = write_hlo_proto(*m, *memory);
    // The assignment written apart: the module's HloProto then it are the same bytes.
    const std::string buffers = write_hlo_proto_buffers(*m, *memory);
    CHECK(!buffers.empty());
    CHECK(whole + buffers == with_buffers);
    // From the buffers placed rather than described (MemoryOptions::placements, what the
    // XSpace asks for): the same bytes.
    absl::StatusOr<MemoryReport> placed =
        analyze_memory(*m, {.top_buffers = 1, .placements = 1'000'000});
    REQUIRE_OK(placed);
    CHECK(write_hlo_proto_buffers(*m, *placed) == buffers);
    REQUIRE(proto.ParseFromString(with_buffers));
    CHECK(testing::deterministic_bytes(proto) == with_buffers);
    CHECK(proto.hlo_module().SerializeAsString().size() == bare.size());
    if (proto.buffer_assignment().heap_simulator_traces_size() > 0) ++assigned;
  }
  CHECK(checked > 150);
  CHECK(assigned > 100);
  CHECK(scheduled > 20);  // maps of several entries, in order of their keys
}

TEST_CASE("the HloProto in pieces: the same bytes, a long computation across several") {
  // Each module of tests/data, and one whose entry computation of 12,000 instructions (about
  // 60 bytes each, 700 KB) spans three pieces of 256 KiB, between two small computations: the
  // pieces one after the other are write_hlo_proto's bytes, and those of its buffer assignment
  // write_hlo_proto_buffers'.
  std::string big = "HloModule big, is_scheduled=true\n"
                    "fused {\n  a = f32[8]{0} parameter(0)\n  ROOT n = f32[8]{0} negate(a)\n}\n"
                    "ENTRY e {\n  x0 = f32[8]{0} parameter(0)\n";
  for (int k = 1; k < 12'000; ++k) {
    big += absl::StrCat("  x", k, " = f32[8]{0} add(x", k - 1, ", x", k - 1, ")\n");
  }
  big += "  ROOT f = f32[8]{0} fusion(x11999), kind=kLoop, calls=fused\n}\n"
         "other {\n  b = f32[8]{0} parameter(0)\n  ROOT c = f32[8]{0} copy(b)\n}\n";
  std::vector<std::string> texts = {kChain, kLoops, big};
  for (const auto& entry : std::filesystem::recursive_directory_iterator(
           std::filesystem::path(HLOROOF_SOURCE_DIR) / "tests" / "data")) {
    if (entry.path().extension() != ".hlo") continue;
    std::ifstream in(entry.path());
    texts.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  int checked = 0;
  size_t most_pieces = 0, most_buffer_pieces = 0;
  for (const std::string& text : texts) {
    absl::StatusOr<Module> m = parse_module(text);
    if (!m.ok()) continue;
    const std::vector<std::string> pieces = proto_internal::write_hlo_proto_pieces(*m);
    std::string joined;
    for (const std::string& piece : pieces) {
      CHECK(piece.size() <= 2 * proto_internal::WirePieces::kPieceBytes);
      joined += piece;
    }
    CHECK(joined == write_hlo_proto(*m));
    most_pieces = std::max(most_pieces, pieces.size());
    ++checked;
    // The buffer assignment too (the XSpace's way: every buffer placed, one described).
    absl::StatusOr<MemoryReport> placed =
        analyze_memory(*m, {.top_buffers = 1, .placements = 1'000'000});
    if (!placed.ok()) continue;
    const std::vector<std::string> buffers =
        proto_internal::write_hlo_proto_buffers_pieces(*m, *placed);
    joined.clear();
    for (const std::string& piece : buffers) joined += piece;
    CHECK(joined == write_hlo_proto_buffers(*m, *placed));
    most_buffer_pieces = std::max(most_buffer_pieces, buffers.size());
  }
  CHECK(checked > 150);
  // The long computation: its length is a piece of its own, before its first instruction; the
  // buffer assignment of its 12,000 buffers spans pieces too.
  CHECK(most_pieces >= 5);
  CHECK(most_buffer_pieces >= 3);
}

TEST_CASE("buffer assignment: allocations and heap trace of a chain, derived by hand") {
  Written w = write(kChain);
  check_consistent(w);
  // p: f32[256] = 1024 B, a parameter allocation. r: f32[1,256] = 1024 B, the output
  // allocation. a, b, c: f32[4,256] = 4096 B each, too large for r's allocation; b takes over
  // a's bytes (negate, a's last use) and c b's (exponential): one group of 4096 B, the temp
  // allocation.
  std::map<std::string, int64_t> bytes;
  for (const MemoryAllocation& a : w.memory.allocations) {
    bytes[std::string(allocation_kind_name(a.kind))] += a.bytes;
  }
  CHECK(bytes == std::map<std::string, int64_t>{{"output", 1024}, {"parameter", 1024},
                                                {"temp", 4096}});
  REQUIRE(w.proto.buffer_assignment().heap_simulator_traces_size() == 1);
  const auto& trace = w.proto.buffer_assignment().heap_simulator_traces(0);
  // ALLOC a; SHARE_WITH b -> a before a's FREE; SHARE_WITH c -> b before b's FREE; FREE c.
  std::vector<std::pair<int, std::string>> events;
  for (const auto& e : trace.events()) {
    events.push_back({static_cast<int>(e.kind()), e.instruction_name()});
  }
  using E = pb::HeapSimulatorTrace::Event;
  CHECK(events == std::vector<std::pair<int, std::string>>{
                      {E::ALLOC, "a"}, {E::SHARE_WITH, "b"}, {E::FREE, "b"},
                      {E::SHARE_WITH, "c"}, {E::FREE, "c"}, {E::FREE, "r"}});
  // The heap never holds more than the one group: 4096 B.
  CHECK(replay_peak(w.proto, trace) == 4096);
}

TEST_CASE("buffer assignment: loops, bodies and a donated parameter stay consistent") {
  Written w = write(kLoops);
  check_consistent(w);
  // The bodies' temporaries (b2, n2: f32[4,1024], 16 KiB) are in the trace too.
  std::set<std::string> traced;
  for (const auto& t : w.proto.buffer_assignment().heap_simulator_traces()) {
    for (const auto& e : t.events()) traced.insert(e.computation_name());
  }
  CHECK(traced.contains("body"));
}

TEST_CASE("buffer assignment: read back by read_xla_buffer_assignment") {
  for (const char* text : {kChain, kLoops}) {
    absl::StatusOr<Module> m = parse_module(text);
    REQUIRE_OK(m);
    absl::StatusOr<MemoryReport> memory = analyze_memory(*m, {.top_buffers = 0});
    REQUIRE_OK(memory);
    const std::string bytes = write_hlo_proto(*m, *memory);
    absl::StatusOr<XlaBufferAssignment> read = read_xla_buffer_assignment(bytes);
    REQUIRE_OK(read);
    // The same from the parse that told the bytes apart.
    ParsedHloProto parsed;
    REQUIRE(detect_input_kind(bytes, &parsed) == InputKind::kHloProto);
    absl::StatusOr<XlaBufferAssignment> kept = parsed.xla_buffer_assignment();
    REQUIRE_OK(kept);
    REQUIRE(kept->allocations.size() == read->allocations.size());
    for (size_t k = 0; k < read->allocations.size(); ++k) {
      CHECK(kept->allocations[k].buffers == read->allocations[k].buffers);
      CHECK(kept->allocations[k].size_bytes == read->allocations[k].size_bytes);
      CHECK(kept->allocations[k].kind() == read->allocations[k].kind());
    }
    CHECK(kept->total_bytes() == read->total_bytes());
    REQUIRE(read->allocations.size() == memory->allocations.size());
    int64_t parameters = 0, outputs = 0, temps = 0, constants = 0;
    for (size_t k = 0; k < read->allocations.size(); ++k) {
      const XlaAllocation& x = read->allocations[k];
      const MemoryAllocation& a = memory->allocations[k];
      INFO("allocation " << k);
      CHECK(x.index == a.index);
      CHECK(x.size_bytes == a.bytes);
      CHECK(x.parameter_number == a.parameter_number);
      // A donated parameter reads as a parameter (XLA's order of kinds).
      CHECK(x.kind() == (a.kind == AllocationKind::kParameter ? "parameter"
                         : a.kind == AllocationKind::kTemp    ? "temp"
                                                              : allocation_kind_name(a.kind)));
      // The reader names buffers by instruction, once each; the report by leaf.
      std::vector<std::string> instructions;
      for (const MemoryBuffer& b : memory->largest_buffers) {
        if (b.allocation == a.index &&
            std::find(instructions.begin(), instructions.end(), b.instruction) ==
                instructions.end()) {
          instructions.push_back(b.instruction);
        }
      }
      std::vector<std::string> read_names = x.buffers;
      std::sort(read_names.begin(), read_names.end());
      std::sort(instructions.begin(), instructions.end());
      CHECK(read_names == instructions);
      int64_t* sum = a.kind == AllocationKind::kParameter ? &parameters
                     : a.kind == AllocationKind::kOutput  ? &outputs
                     : a.kind == AllocationKind::kTemp    ? &temps
                                                          : &constants;
      *sum += a.bytes;
    }
    CHECK(read->parameter_bytes == parameters);
    CHECK(read->output_bytes == outputs);
    CHECK(read->temp_bytes == temps);
    CHECK(read->constant_bytes == constants);
    CHECK(read->temp_bytes == memory->temp_bytes);  // every buffer is in device memory
  }
}

TEST_CASE("buffer assignment: a name assigned thousands of times is listed once, if at all") {
  absl::StatusOr<Module> m = parse_module(kChain);
  REQUIRE_OK(m);
  absl::StatusOr<MemoryReport> memory = analyze_memory(*m, {.top_buffers = 0});
  REQUIRE_OK(memory);
  pb::HloProto proto;
  REQUIRE(proto.ParseFromString(write_hlo_proto(*m, *memory)));
  pb::BufferAssignmentProto* assignment = proto.mutable_buffer_assignment();
  // One buffer with a 1 MiB name, and 300 with short ones, the k-th of size k + 1.
  pb::LogicalBufferProto* long_named = assignment->add_logical_buffers();
  long_named->set_id(1000000);
  long_named->mutable_defined_at()->set_instruction_name(std::string(size_t{1} << 20, 'n'));
  for (int k = 0; k < 300; ++k) {
    pb::LogicalBufferProto* b = assignment->add_logical_buffers();
    b->set_id(2000000 + k);
    b->mutable_defined_at()->set_instruction_name(absl::StrCat("b", k));
  }
  // One allocation holds the long-named buffer 4,096 times (the reader copied its name at
  // each: 4 GiB), then the 300 others.
  pb::BufferAllocationProto* a = assignment->add_buffer_allocations();
  a->set_index(assignment->buffer_allocations_size() - 1);
  a->set_size(4096);
  for (int k = 0; k < 4096; ++k) {
    pb::BufferAllocationProto::Assigned* x = a->add_assigned();
    x->set_logical_buffer_id(1000000);
    x->set_size(1);
  }
  for (int k = 0; k < 300; ++k) {
    pb::BufferAllocationProto::Assigned* x = a->add_assigned();
    x->set_logical_buffer_id(2000000 + k);
    x->set_size(k + 1);
  }
  std::string bytes;
  REQUIRE(proto.SerializeToString(&bytes));
  absl::StatusOr<XlaBufferAssignment> read = read_xla_buffer_assignment(bytes);
  REQUIRE_OK(read);
  const XlaAllocation& x = read->allocations.back();
  // The long name is over the 64 KiB a listing holds; the short ones, largest first, fill the
  // 256 places: b299 down to b44, and 44 + 1 not listed.
  REQUIRE(x.buffers.size() == XlaAllocation::kMaxListedBuffers);
  CHECK(x.buffers.front() == "b299");
  CHECK(x.buffers.back() == "b44");
  CHECK(x.buffers_not_listed == 45);
}

TEST_CASE("buffer assignment: a report without every buffer gets no heap trace") {
  Written w = write(kLoops, /*top_buffers=*/1);
  REQUIRE(w.memory.buffer_count > 1);
  CHECK(w.proto.buffer_assignment().logical_buffers_size() == 1);
  CHECK(w.proto.buffer_assignment().heap_simulator_traces_size() == 0);
  // Every allocation is still there, with its size.
  REQUIRE(w.proto.buffer_assignment().buffer_allocations_size() ==
          static_cast<int>(w.memory.allocations.size()));
  for (size_t k = 0; k < w.memory.allocations.size(); ++k) {
    CHECK(w.proto.buffer_assignment().buffer_allocations(static_cast<int>(k)).size() ==
          w.memory.allocations[k].bytes);
  }
}

TEST_CASE("buffer assignment: placements are written where a report has them, its own once") {
  absl::StatusOr<Module> m = parse_module(kLoops);
  REQUIRE_OK(m);
  // One buffer placed of several, and three described: the placed one is written (its
  // allocation, no heap trace), not the described ones.
  absl::StatusOr<MemoryReport> memory =
      analyze_memory(*m, {.top_buffers = 3, .placements = 1});
  REQUIRE_OK(memory);
  REQUIRE(memory->buffer_count > 3);
  REQUIRE(memory->placements.size() == 1);
  pb::HloProto proto;
  REQUIRE(proto.ParseFromString(write_hlo_proto(*m, *memory)));
  REQUIRE(proto.buffer_assignment().logical_buffers_size() == 1);
  CHECK(proto.buffer_assignment().logical_buffers(0).id() == memory->placements[0].id);
  CHECK(proto.buffer_assignment().logical_buffers(0).id() == memory->largest_buffers[0].id);
  CHECK(proto.buffer_assignment().heap_simulator_traces_size() == 0);
  // Every buffer placed: the heap trace of the buffers described, the same bytes.
  absl::StatusOr<MemoryReport> placed =
      analyze_memory(*m, {.top_buffers = 1, .placements = 1'000'000});
  absl::StatusOr<MemoryReport> described = analyze_memory(*m, {.top_buffers = 0});
  REQUIRE_OK(placed);
  REQUIRE_OK(described);
  CHECK(static_cast<int64_t>(placed->placements.size()) == placed->buffer_count);
  const std::string bytes = write_hlo_proto(*m, *placed);
  CHECK(bytes == write_hlo_proto(*m, *described));
  REQUIRE(proto.ParseFromString(bytes));
  CHECK(proto.buffer_assignment().heap_simulator_traces_size() > 0);
}

}  // namespace
}  // namespace hloroof
