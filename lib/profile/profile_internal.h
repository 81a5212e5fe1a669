// Helpers shared by the files of the profile layer.
#ifndef HLOROOF_LIB_PROFILE_PROFILE_INTERNAL_H_
#define HLOROOF_LIB_PROFILE_PROFILE_INTERNAL_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hloroof/predict.h"
#include "hloroof/profile.h"

namespace hloroof::profile_internal {

// The stats of `line`'s event `e` (an element of line.events) that only some profiles have;
// nullptr when the line has none.
inline const ProfileEventExtra* extra_of(const ProfileLine& line, const ProfileEvent& e) {
  if (line.extra.size() != line.events.size()) return nullptr;
  return &line.extra[static_cast<size_t>(&e - line.events.data())];
}

// Whether the event carries the chip's own clock (TPU's device_offset_ps/device_duration_ps).
inline bool has_device_clock(const ProfileEventExtra* x) {
  return x != nullptr && x->device_start_s >= 0 && x->device_duration_s >= 0;
}

// An op's event in a device plane: the profile's event and the HLO op it ran for.
struct OpEvent {
  const ProfileEvent* event;
  std::string_view op;
  std::string_view track;
  const ProfileEventExtra* extra = nullptr;  // extra_of(its line, *event)
  bool on_chip_clock() const { return has_device_clock(extra); }
  // How long the op ran: on the chip's clock where the event carries it.
  double duration_s() const {
    return on_chip_clock() ? extra->device_duration_s : event->duration_s;
  }
};

// Kernels whose hlo_op names no instruction of `module` (the kernels of CUDA graphs carry the
// command buffer's name, those of async-wrapped fusions a name the text does not print) are
// given their instructions where they can be told, by kernel name and launch order
// (kernel_resolver.cc). The work is bounded: alignment cells computed plus instructions
// scanned for candidates, at most `max_work`; what would pass it keeps its name.
struct KernelResolution {
  int64_t unknown = 0;   // kernels that named no instruction
  int64_t resolved = 0;  // of those, given one
  int64_t work = 0;      // the work done
  bool cut_short = false;  // some alignment was not tried: it would have passed the limits
  // Instructions whose kernels the alignment could not tell from another's: an alignment of
  // the same least cost gives one of their kernels to another instruction. By name.
  std::vector<std::string> uncertain;
};
inline constexpr int64_t kMaxResolutionWork = int64_t{1} << 27;
KernelResolution resolve_kernels(const Module& module, std::vector<OpEvent>& events,
                                 int64_t max_work = kMaxResolutionWork);

// Where `options.program_id` is 0, sets it to the profile's program of the module's name (the
// options' module_name, else the module's) whose entry is the module (profile_program_of), as
// `profile` and `calibrate` join it; `note` (if given) says which. Errors: profile_program_of's.
absl::Status join_own_program(const Profile& profile, const Module& module,
                              ProfileOptions& options, std::string* note = nullptr);

// The length of the union of [start, end) intervals.
double union_length(std::vector<std::pair<double, double>> intervals);

// The classes of the step gap and of the calibration's errors.
enum class OpClass { kMatmul, kMemory, kOther, kCollective };
OpClass op_class(const OpPrediction& op);
std::string_view op_class_name(OpClass c);  // "matmul", "memory-bound", ...

bool is_async_start(const OpPrediction& op);
bool is_async_done(const OpPrediction& op);
// One execution's own time: an async start's work on its stream, else the op's time.
double expected_execution_s(const OpPrediction& op);
double roofline_execution_s(const OpPrediction& op);

}  // namespace hloroof::profile_internal

#endif  // HLOROOF_LIB_PROFILE_PROFILE_INTERNAL_H_
