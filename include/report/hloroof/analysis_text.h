// The text reports of `hloroof cost` and `hloroof memory`, for every caller: the command prints
// them, Python's str() of a ModuleCost or MemoryReport gives the same text.
//
//   absl::StatusOr<ModuleCost> cost = analyze_cost(module);
//   std::cout << render_cost_text(*cost, {.sort = CostSort::kBytes, .top = 10});
//   absl::StatusOr<MemoryReport> memory = analyze_memory(module, spec);
//   std::cout << render_memory_text(*memory);
//
// Every figure with its unit; every line fits 100 columns.
#ifndef HLOROOF_ANALYSIS_TEXT_H_
#define HLOROOF_ANALYSIS_TEXT_H_

#include <cstddef>
#include <string>
#include <vector>

#include "hloroof/analysis_json.h"
#include "hloroof/cost.h"
#include "hloroof/memory.h"

namespace hloroof {

// How the cost table's rows are ranked: by FLOPs, HBM bytes, transcendentals or runs per step,
// or in program order.
enum class CostSort { kFlops, kBytes, kTranscendentals, kRuns, kOrder };

struct CostTextOptions {
  CostSort sort = CostSort::kFlops;
  size_t top = 20;   // rows of the table; 0: all
  bool all = false;  // also fused, applied and cost-free instructions
};

// The module and its totals for one step (loops expanded, and XLA's cost_analysis() figures),
// the notes, then one table of instructions with their figures per step.
std::string render_cost_text(const ModuleCost& cost, const CostTextOptions& options = {});

struct MemoryTextOptions {
  // What choosing the device said: its warnings first, its notes under the capacity line.
  std::vector<std::string> device_warnings;
  std::vector<std::string> device_notes;
  // XLA's own buffer assignment beside hloroof's, where the input carried it.
  const XlaMemoryComparison* xla = nullptr;
};

// The peak and where it is, the footprint, the capacity check, XLA's terms, the allocations,
// the largest buffers live at the peak and of the step, XLA's assignment beside hloroof's, and
// the notes.
std::string render_memory_text(const MemoryReport& report, const MemoryTextOptions& options = {});

}  // namespace hloroof

#endif  // HLOROOF_ANALYSIS_TEXT_H_
