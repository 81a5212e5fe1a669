// The JSON documents of `hloroof cost --json` and `hloroof memory --json`, for every caller:
// the command and Python's to_json()/to_dict() write the same bytes.
//
//   absl::StatusOr<ModuleCost> cost = analyze_cost(module);
//   write_cost_json(*cost, std::cout);
//   absl::StatusOr<MemoryReport> memory = analyze_memory(module, spec);
//   std::string json = memory_to_json(*memory);
//
// Sizes in bytes, FLOPs as counts; the keys are those the commands' --help lists.
#ifndef HLOROOF_ANALYSIS_JSON_H_
#define HLOROOF_ANALYSIS_JSON_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "hloroof/cost.h"
#include "hloroof/hlo_proto.h"
#include "hloroof/memory.h"

namespace hloroof {

// {"module", "totals": {...}, "notes", "instructions": [{"computation", "name", "opcode",
//  "role", "multiplier", "flops", ..., "trip_count", "collective"}]}, written into `out` as it
// is produced (one instruction at a time).
void write_cost_json(const ModuleCost& cost, std::ostream& out);
std::string cost_to_json(const ModuleCost& cost);

// XLA's own buffer assignment (an HloProto's, read_xla_buffer_assignment) beside hloroof's,
// per allocation kind and memory: device memory (memory space / color 0) and the others.
struct XlaMemoryComparisonRow {
  std::string kind;    // "parameter", "output", "temp", "constant", "thread-local", "total"
  std::string memory;  // "device" or "other"
  int64_t xla_bytes = 0;
  int64_t hloroof_bytes = 0;
  int64_t xla_allocations = 0;
  int64_t hloroof_allocations = 0;
};
struct XlaMemoryComparison {
  std::vector<XlaMemoryComparisonRow> rows;
  std::vector<std::string> differences;  // where they differ by more than 1%, in words
};
XlaMemoryComparison compare_with_xla(const MemoryReport& report, const XlaBufferAssignment& xla);

// {"module", "scheduled", "peak_bytes", ..., "buffers", "peak_buffers", "live_bytes",
//  "live_timeline", "xla_buffer_assignment" (null without `xla`), "notes", "warnings"},
// written into `out` as it is produced.
void write_memory_json(const MemoryReport& report, std::ostream& out,
                       const XlaMemoryComparison* xla = nullptr);
std::string memory_to_json(const MemoryReport& report, const XlaMemoryComparison* xla = nullptr);

}  // namespace hloroof

#endif  // HLOROOF_ANALYSIS_JSON_H_
