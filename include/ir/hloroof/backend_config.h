// An instruction's backend_config: opaque text, usually JSON (docs/sources.md, "HLO text"), and
// the figures in it that XLA's backends leave for cost models.
#ifndef HLOROOF_BACKEND_CONFIG_H_
#define HLOROOF_BACKEND_CONFIG_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hloroof {

// A kernel's run time as a cost model of XLA's GPU backend estimated it and recorded it in the
// instruction's backend_config: a `ReificationCost` message (docs/sources.md, "Kernel cost
// estimates"). Times are in seconds (the config gives microseconds).
struct KernelTimeEstimate {
  double exec_time_s = 0;           // the whole kernel (> 0)
  double compute_time_s = 0;        // its compute part, 0 when not given
  double memory_access_time_s = 0;  // its memory reads and writes, 0 when not given
  std::string model;                // the estimating model's name ("sol", ...), may be empty
  std::string key;                  // where it sat, e.g. "fusion_backend_config.reification_cost"
};

// What a GEMM custom call's (cuBLAS, cuBLASLt) backend config says of its product: the left
// operand's dimensions it multiplies over (dot_dimension_numbers) and its precision_config.
struct GemmConfig {
  std::vector<int64_t> lhs_batch;
  std::vector<int64_t> lhs_contracting;
  std::vector<std::string> operand_precision;  // "DEFAULT", "HIGHEST", ... as written
  std::string algorithm;                       // "ALG_DOT_TF32_TF32_F32", ...; empty if none
};

// A view of the decoded backend_config text. Lookups decode it as JSON (a thread keeps the last
// few texts it decoded: lookups of the same bytes decode them once) and answer nullopt when it
// is not JSON or the value is missing, so callers never fail on odd configs.
class BackendConfig {
 public:
  BackendConfig() = default;
  explicit BackendConfig(std::string_view text) : text_(text) {}

  std::string_view text() const { return text_; }
  bool empty() const { return text_.empty(); }
  bool is_json() const;

  // Values at a JSON pointer (RFC 6901), e.g. "/known_trip_count/n". Numbers written as JSON
  // strings ("8", as XLA writes 64-bit integers) are read as numbers too.
  std::optional<int64_t> find_int(std::string_view json_pointer) const;
  std::optional<double> find_double(std::string_view json_pointer) const;
  std::optional<bool> find_bool(std::string_view json_pointer) const;
  std::optional<std::string> find_string(std::string_view json_pointer) const;
  // The JSON text of any value (object, array, scalar) at the pointer.
  std::optional<std::string> find_json(std::string_view json_pointer) const;

  // The first kernel time estimate with a positive, finite exec_time_us, looked up at the top
  // level (`reification_cost`, a list), then under fusion_backend_config (one object),
  // gemm_backend_config and collective_backend_config (lists). nullopt when there is none:
  // XLA writes `"reification_cost":[]` on most instructions, and older versions only
  // end_to_end_cycles, which needs the clock the estimate assumed.
  std::optional<KernelTimeEstimate> kernel_time_estimate() const;

  // A GEMM call's config, read under `gemm_backend_config` (current XLA) or at the top level
  // (older XLA), whichever lists lhs_contracting_dimensions; nullopt when neither does.
  // Integers may be JSON strings; a list stops at its first entry of another type.
  std::optional<GemmConfig> gemm_config() const;

 private:
  std::string_view text_;
};

}  // namespace hloroof

#endif  // HLOROOF_BACKEND_CONFIG_H_
