#include "predict/expected_time.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <variant>

#include "absl/container/inlined_vector.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cost/cost_internal.h"
#include "hloroof/computation.h"
#include "predict/gpu_families.h"
#include "predict/tpu_models.h"
#include "util/absl_compat.h"
#include "util/number_text.h"

namespace hloroof::predict {
namespace {

// The device whose measured tables stand in for `device`, and how: its own ("h100"), or a
// borrowed one, read in units of each device's own peak.
struct Source {
  std::string_view name;  // tables' device, e.g. "h100": static, or the device's own name
  bool borrowed = false;
};

// The device whose measured tables apply to `device` as to itself: the built-in device a file
// was made from (a device fitted by hloroof calibrate keeps its base's), else its own name.
std::string_view table_device(const DeviceSpec& device) {
  return device.base.empty() ? std::string_view(device.name) : std::string_view(device.base);
}

// The tables were measured on NVIDIA GPUs (cuBLAS, NCCL, CUDA kernels).
bool nvidia(const DeviceSpec& device) {
  return device.kind == DeviceKind::kGpu && device.gpu &&
         device.gpu->vendor == GpuVendor::kNvidia;
}

Source gemm_source(const DeviceSpec& device) {
  if (device.kind != DeviceKind::kGpu || !device.gpu) return {};
  // An AMD GPU borrows the H100's GEMM efficiency at each shape: on the MI300X profiles of
  // ../shared/profiles/mi300 it brings measured/expected from 3.65x to 1.29x (a dot) and from
  // 2.65x to 1.38x (attention's matmuls) where the roofline alone stood (tests/profile).
  if (!nvidia(device)) return {"h100", true};
  const std::string_view name = table_device(device);
  if (name == "h100" || name == "b200") return {name, false};
  if (name == "h200") return {"h100", true};  // same Hopper die, more HBM
  if (name == "gb200") return {"b200", true};
  const int major = device.gpu ? device.gpu->compute_capability_major : 0;
  if (major >= 10) return {"b200", true};
  if (major >= 8) return {"h100", true};
  return {};
}

Source collective_source(const DeviceSpec& device) {
  if (!nvidia(device)) return {};
  const std::string_view name = table_device(device);
  if (name == "h100" || name == "b200" || name == "gb200") return {name, false};
  if (name == "h200") return {"h100", true};
  const int major = device.gpu ? device.gpu->compute_capability_major : 0;
  if (major >= 10) return {"b200", true};
  if (major >= 8) return {"h100", true};
  return {};
}

// The built-in spec of a table's device, for its peaks and NVLink bandwidth.
const DeviceSpec* source_spec(std::string_view name) {
  static const auto* h100 = new absl::StatusOr<DeviceSpec>(device("h100"));
  static const auto* b200 = new absl::StatusOr<DeviceSpec>(device("b200"));
  static const auto* gb200 = new absl::StatusOr<DeviceSpec>(device("gb200"));
  const absl::StatusOr<DeviceSpec>* s = name == "h100"   ? h100
                                        : name == "b200" ? b200
                                        : name == "gb200" ? gb200
                                                          : nullptr;
  return s != nullptr && s->ok() ? &**s : nullptr;
}

std::optional<double> peak(const DeviceSpec& device, std::string_view cls) {
  auto it = device.matrix_flops_per_s.find(cls);
  if (it == device.matrix_flops_per_s.end()) return std::nullopt;
  return it->second;
}

// The measured table for a GEMM of `call`'s class and types, and the class its rates are in
// units of (the table is read as efficiency relative to that peak).
const measured::GemmTable* table_for(const measured::DeviceTables& t, const GemmCall& call,
                                     std::string_view& table_class) {
  auto find = [&t](std::string_view key) -> const measured::GemmTable* {
    auto it = t.gemm.find(key);
    return it == t.gemm.end() ? nullptr : &it->second;
  };
  if (call.unit == "tf32") {
    table_class = "tf32";
    return find("f32xf32->f32");
  }
  if (call.unit == "fp8") {
    table_class = "fp8";
    const std::string key =
        absl::StrCat(sv(primitive_type_name(call.lhs)), "x", sv(primitive_type_name(call.rhs)),
                     "->bf16");
    if (const measured::GemmTable* exact = find(key)) return exact;
    return find("f8e4m3fnxf8e4m3fn->bf16");
  }
  // bf16, f16 and every class without a table of its own: the bf16 table's efficiency.
  table_class = "bf16";
  return find("bf16xbf16->bf16");
}

// "%.4g s". Made once for each value met, on each thread: a module's ops repeat a few hundred
// times thousands of times, and their explanations name them (to_chars with a precision costs
// as much as the rest of a line). A table of the last ones by a hash of their bits.
std::string seconds(double s) {
  struct Entry {
    uint64_t bits;
    uint8_t size;  // 0: empty
    char text[23];
  };
  static thread_local std::array<Entry, 256> table{};
  uint64_t bits;
  std::memcpy(&bits, &s, sizeof(bits));
  Entry& e = table[(bits * 0x9e3779b97f4a7c15ull) >> 56];
  if (e.size == 0 || e.bits != bits) {
    const std::string text = util::general_text(s, 4) + " s";
    if (text.size() > sizeof(e.text)) return text;  // never: "-1.234e-308 s" at most
    std::memcpy(e.text, text.data(), text.size());
    e.size = static_cast<uint8_t>(text.size());
    e.bits = bits;
  }
  return std::string(e.text, e.size);
}

// Which explanation a memo key is of (its first byte): keys of two kinds never meet.
enum class ExplanationKind : uint8_t { kOp, kTpuOp };

// How the GPU HBM fraction was measured: on the H100; other GPUs borrow it.
std::string_view hbm_measured(const DeviceSpec& device) {
  return table_device(device) == "h100" ? "measured" : "measured on h100, borrowed";
}

void note_once(std::vector<std::string>& assumptions, std::string line) {
  if (std::find(assumptions.begin(), assumptions.end(), line) == assumptions.end()) {
    assumptions.push_back(std::move(line));
  }
}

// The table's name for a collective kind, the opcode of the kind it is measured as; empty when
// no table measures it.
std::string_view table_op(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kAllReduce:
    case CollectiveKind::kAllGather:
    case CollectiveKind::kReduceScatter:
    case CollectiveKind::kAllToAll:
    case CollectiveKind::kCollectivePermute:
      return collective_kind_name(kind);
    case CollectiveKind::kRaggedAllToAll:
      return collective_kind_name(CollectiveKind::kAllToAll);
    case CollectiveKind::kSend:
    case CollectiveKind::kRecv:
      return collective_kind_name(CollectiveKind::kCollectivePermute);
    default:
      return {};
  }
}

// Weight of another group size's measurements in a pooled all-to-all fit: 0.1 keeps each
// group's own curve in charge while its neighbours damp the noise. Of 0.1, 0.2, 0.3 and 0.5 it
// gives the lowest all-to-all error on the test half of bench/accuracy_bench, which so is not
// unseen for this one number (docs/prediction-model.md, "Measured models (GPUs)").
constexpr double kPooledWeight = 0.1;

// NCCL's own latency model (src/graph/tuning.cc of NVIDIA/nccl, read at 01afd20a77b5, the Ring
// rows, in us): a base latency, then one hop latency for every step of the ring, the steps that
// cross nodes at the network's figure: Simple 8.4 base, 3.4 per NVLink step, 9.6 per network
// step; LL 3.6 base, 0.47 x 1.8 per NVLink step once the communicator spans nodes, 2.7 per
// network step, at a quarter of Simple's bandwidth across nodes (the same file). NCCL takes
// whichever protocol is faster for the size, as this model does (LL128, enabled only on some
// NVLink-and-PCIe layouts, is left out). A network step of Simple, 9.6 us, agrees with what a
// user measured of one 128 KiB step of NCCL's data path over 400 Gb/s RoCE: 10-12 us
// (NVIDIA/nccl#2409).
struct NcclProtocol {
  std::string_view name;
  double base_s;
  double nvlink_step_s;
  double net_step_s;
  double bandwidth_share;
};
constexpr NcclProtocol kNcclSimple{"Simple", 8.4e-6, 3.4e-6, 9.6e-6, 1.0};
constexpr NcclProtocol kNcclLl{"LL", 3.6e-6, 0.47e-6 * 1.8, 2.7e-6, 0.25};

// NCCL's tree, all-reduce only: a chain through the GPUs of each node and a double binary tree
// across nodes (src/graph/tuning.cc of NVIDIA/nccl). Latency, as the ring's read at 01afd20a77b5
// (us): a base, then twice (up and down) one NVLink hop for each GPU of a node but the first and
// one network hop for each level of the tree, floor(log2 M) of them: Simple 0 base, 28 per
// NVLink hop, 50 per network hop; LL 4.4 base, 0.52 x 1.8 per NVLink hop (once the
// communicator spans nodes), 5.0 per network hop. Bandwidth, read at b6475625fbca (whose caps
// per channel and architecture replace 01afd20a's single 110 GB/s, set before Hopper): the
// tree's bus bandwidth is 0.92 of its channels' speed, at most a cap per channel (below), LL a
// further 1/3.8 of it, and an all-reduce moves its buffer at half the bus bandwidth. Between 64 B
// and 128 MiB NCCL scales the tree's bandwidth by a measured correction by size (below).
struct NcclTreeProtocol {
  std::string_view name;
  double base_s;
  double nvlink_hop_s;
  double net_hop_s;
  double bandwidth_share;
  // NCCL's treeCorrectionFactor at 01afd20a: index floor(log2(bytes / 64)), 1 from 22 on.
  std::array<double, 22> correction;
};
constexpr NcclTreeProtocol kNcclTreeSimple{
    "Simple", 0, 28e-6, 50e-6, 1.0,
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .5, .5, .6, .6, .7, .8, .9}};
constexpr NcclTreeProtocol kNcclTreeLl{
    "LL", 4.4e-6, 0.52e-6 * 1.8, 5.0e-6, 1 / 3.8,
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0,
     1.0}};
constexpr double kNcclTreeBandwidthFactor = 0.92;

// The speed NCCL gives one channel through a NIC of line rate `nic` (B/s): the fastest of its
// search's channel speeds (search.cc of NVIDIA/nccl, speedArrayInter, GB/s) not above the NIC's,
// halved from 25 GB/s on, where NCCL doubles the channels: 24 GB/s for a 200 Gb/s NIC (25 GB/s)
// and for a 400 Gb/s one (50 GB/s: 48, halved).
double nccl_channel_speed(double nic) {
  constexpr double kSpeeds[] = {48, 30, 24, 22, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3, 2.4, 1.2, 0.24,
                                0.12};
  double speed = kSpeeds[std::size(kSpeeds) - 1] * 1e9;
  for (double g : kSpeeds) {
    if (g * 1e9 <= nic) {
      speed = g * 1e9;
      break;
    }
  }
  return speed >= 25e9 ? speed / 2 : speed;
}

// What NCCL's latency counts, for explanations: "ring, Simple", "tree, LL: faster than NCCL's
// ring, 1.2 ms, by NCCL's own model" or "8 remote peers, Simple".
std::string scale_out_latency_text(const ScaleOutTime& t) {
  if (t.remote_peers > 0) {
    return absl::StrFormat("%d remote peer%s, %s", t.remote_peers, t.remote_peers == 1 ? "" : "s",
                           sv(t.protocol));
  }
  std::string text = absl::StrCat(sv(t.algorithm), ", ", sv(t.protocol));
  if (t.other_s > 0) {
    absl::StrAppend(&text, ": faster than NCCL's ", t.algorithm == "tree" ? "ring" : "tree",
                    ", ", seconds(t.other_s), ", by NCCL's own model");
  }
  return text;
}

// Bus-bandwidth factor of a group of n: what each device sends, per byte of the table's size.
double bus_factor(std::string_view op, double n) {
  if (n <= 1) return 0;
  if (op == "all-reduce") return 2 * (n - 1) / n;
  if (op == "collective-permute") return 1;
  return (n - 1) / n;
}

}  // namespace

double nccl_tree_channel_cap(int compute_capability_major, int64_t nodes) {
  if (compute_capability_major < 7) return 0;
  const bool two = nodes <= 2;
  if (compute_capability_major >= 9) return two ? 41.4e9 : 36.0e9;
  if (compute_capability_major == 8) return two ? 23.6e9 : 17.8e9;
  return two ? 18.5e9 : 10.0e9;
}

// Bus bandwidth as nccl-tests defines it (doc/PERFORMANCE.md): a ring over all n GPUs whose
// traffic leaves each node through all its NICs moves 2 (n-1)/n V (all-reduce) or (n-1)/n V
// (all-gather, reduce-scatter) through the node's egress (l GPUs x w_so), its latency NCCL's:
// 2 (n-1) ring steps of an all-reduce, 2 (m-1) of them across nodes; n-1 and m-1 for a gather
// or a scatter. An all-to-all sends (m-1)/m of each GPU's buffer V / n to other nodes through
// that GPU's own NIC, which it cannot pool with other NICs (NVIDIA/nccl-tests#130, #267: "the
// performance of a single NIC"), in one send to each of its n (m-1)/m remote peers: NCCL runs it
// as grouped point-to-point sends, every network send progressed by the GPU's one proxy thread,
// so each remote peer is taken to cost one network step of Simple (point-to-point runs the
// Simple protocol) after the base latency. A point-to-point transfer is one such send.
// An all-reduce may run as NCCL's tree instead (`tree_cap` > 0), taken when NCCL's own model
// times it below the ring (NCCL picks the algorithm and protocol of the lowest time). Its bus
// bandwidth, in units of the ring's: NCCL's tuning takes the tree's channels at their speed
// inside a node on 2 nodes, which its search lets reach twice their network speed (search.cc,
// "increase speedIntra for trees (2 nodes or collnet)"): a tree on 2 nodes sends half of what
// its chains carry through the network; beyond 2 nodes, their network speed. So 0.92 x 2 (2
// nodes) or 0.92 of the ring's, at most the cap over one channel's speed (the tree's channels
// taken as many as the ring's, each at nccl_channel_speed).
ScaleOutTime scale_out_time(std::string_view op, double v, int64_t n, int64_t m, double l,
                            double w_so, double nic, double eff, double tree_cap) {
  ScaleOutTime t;
  const double dn = static_cast<double>(n);
  const double dm = static_cast<double>(m);
  const bool ring = op == "all-reduce" || op == "all-gather" || op == "reduce-scatter";
  if (ring) {
    const double factor = op == "all-reduce" ? 2 : 1;
    const double bytes = factor * (dn - 1) / dn * v;
    const double steps = factor * (dn - 1);
    const double inter = factor * (dm - 1);
    const double simple_bw = bytes / (eff * l * w_so);
    bool first = true;
    for (const NcclProtocol* p : {&kNcclSimple, &kNcclLl}) {
      const double latency =
          p->base_s + (steps - inter) * p->nvlink_step_s + inter * p->net_step_s;
      const double bandwidth = simple_bw / p->bandwidth_share;
      if (first || latency + bandwidth < t.time_s()) {
        t.latency_s = latency;
        t.bandwidth_s = bandwidth;
        t.protocol = p->name;
      }
      first = false;
    }
    t.algorithm = "ring";
    if (op != "all-reduce" || tree_cap <= 0 || m < 2) return t;
    const double ring_bus = eff * l * w_so;
    const double doubled = m <= 2 ? 2.0 : 1.0;
    const double tree_bus =
        std::min(kNcclTreeBandwidthFactor * doubled, tree_cap / nccl_channel_speed(nic)) *
        ring_bus;
    const double levels = std::floor(std::log2(dm));
    const double chunks = std::max(1.0, v / 64);
    const size_t size_index = static_cast<size_t>(std::floor(std::log2(chunks)));
    ScaleOutTime tree;
    tree.algorithm = "tree";
    first = true;
    for (const NcclTreeProtocol* p : {&kNcclTreeSimple, &kNcclTreeLl}) {
      const double latency =
          p->base_s + 2 * ((l - 1) * p->nvlink_hop_s + levels * p->net_hop_s);
      const double correction =
          size_index < p->correction.size() ? p->correction[size_index] : 1.0;
      const double bandwidth = v / (0.5 * tree_bus * p->bandwidth_share * correction);
      if (first || latency + bandwidth < tree.time_s()) {
        tree.latency_s = latency;
        tree.bandwidth_s = bandwidth;
        tree.protocol = p->name;
      }
      first = false;
    }
    const double ring_s = t.time_s();
    const double tree_s = tree.time_s();
    if (tree_s < ring_s) {
      tree.other_s = ring_s;
      return tree;
    }
    t.other_s = tree_s;
    return t;
  }
  const double per_gpu = std::min(w_so, nic) * eff;
  t.protocol = kNcclSimple.name;
  if (op == "all-to-all") {
    t.remote_peers = n - n / std::max<int64_t>(1, m);
    t.bandwidth_s = (dm - 1) / dm * (v / dn) / per_gpu;
  } else {
    t.remote_peers = 1;
    t.bandwidth_s = v / per_gpu;
  }
  t.latency_s = kNcclSimple.base_s + static_cast<double>(t.remote_peers) * kNcclSimple.net_step_s;
  return t;
}

std::string_view matrix_unit(const DeviceSpec& device, PrimitiveType type, bool highest,
                             bool tf32) {
  if (type == PrimitiveType::kC64) return "f32";
  if (type == PrimitiveType::kC128) return "f64";
  const std::string_view cls = matrix_class(type);
  if (cls != "f32" || device.kind != DeviceKind::kGpu || !device.gpu) return cls;
  // NVIDIA runs f32 dots below HIGHEST on TF32 tensor cores from Ampere (8.0) on.
  const bool ampere = nvidia(device) && device.gpu->compute_capability_major >= 8;
  if (ampere && (tf32 || !highest) && peak(device, "tf32")) return "tf32";
  return cls;
}

namespace {

// Precision a dot asks for: HIGHEST (or the f32 algorithm) keeps f32 units; the tf32 algorithm
// asks for TF32.
void dot_precision(const Instruction& dot, bool& highest, bool& tf32) {
  const std::string_view algorithm = dot.string_attribute(AttrId::kAlgorithm);
  if (absl::StartsWithIgnoreCase(sv(algorithm), "dot_f32_f32_f32")) highest = true;
  if (absl::StartsWithIgnoreCase(sv(algorithm), "dot_tf32")) tf32 = true;
  if (const WordList* p = dot.operand_precision()) {
    for (std::string_view w : *p) {
      if (absl::EqualsIgnoreCase(sv(w), "highest")) highest = true;
    }
  }
}

void gemm_precision(const Instruction& call, bool& highest, bool& tf32) {
  const BackendConfig config = call.backend_config();
  for (std::string_view prefix : {"/gemm_backend_config", ""}) {
    for (int i = 0; i < 2; ++i) {
      std::optional<std::string> p = config.find_string(
          absl::StrCat(sv(prefix), "/precision_config/operand_precision/", i));
      if (p && absl::EqualsIgnoreCase(*p, "HIGHEST")) highest = true;
    }
    if (std::optional<std::string> a =
            config.find_string(absl::StrCat(sv(prefix), "/precision_config/algorithm"))) {
      const std::string upper = absl::AsciiStrToUpper(*a);
      if (absl::StrContains(upper, "F32_F32_F32")) highest = true;
      if (absl::StrContains(upper, "TF32")) tf32 = true;
    }
  }
}

double product(const Shape& s, absl::Span<const int64_t> dims) {
  double p = 1;
  for (int64_t d : dims) {
    if (d >= 0 && d < s.rank()) p *= static_cast<double>(s.dims[static_cast<size_t>(d)].size);
  }
  return p;
}

double elements_of(const Shape& s) {
  double p = 1;
  for (const Dimension& d : s.dims) p *= static_cast<double>(d.size);
  return p;
}

// b, m, n, k of dot(lhs, rhs) with the given batch and contracting dims of the lhs.
std::optional<measured::GemmShape> gemm_shape(const Shape& lhs, const Shape& rhs,
                                              absl::Span<const int64_t> lhs_batch,
                                              absl::Span<const int64_t> lhs_contracting) {
  measured::GemmShape g;
  g.b = product(lhs, lhs_batch);
  g.k = product(lhs, lhs_contracting);
  if (!(g.b >= 1 && g.k >= 1)) return std::nullopt;
  g.m = elements_of(lhs) / (g.b * g.k);
  g.n = elements_of(rhs) / (g.b * g.k);
  if (!(g.m >= 1 && g.n >= 1)) return std::nullopt;
  return g;
}

void add_dot(const Instruction& dot, const DeviceSpec& device, std::vector<GemmCall>& out) {
  if (dot.operand_count() < 2) return;
  const Shape& lhs = dot.operand(0)->shape();
  const Shape& rhs = dot.operand(1)->shape();
  if (!lhs.is_array() || !rhs.is_array()) return;
  const DotDimensionNumbers dims = dot.dot_dimensions();
  std::optional<measured::GemmShape> g =
      gemm_shape(lhs, rhs, dims.lhs_batch, dims.lhs_contracting);
  if (!g) return;
  bool highest = false, tf32 = false;
  dot_precision(dot, highest, tf32);
  const PrimitiveType type = cost::matrix_operand_type(lhs.element_type, rhs.element_type);
  out.push_back({*g, lhs.element_type, rhs.element_type, matrix_unit(device, type, highest, tf32)});
}

std::vector<int64_t> int_list(const BackendConfig& config, const std::string& pointer) {
  std::vector<int64_t> out;
  while (std::optional<int64_t> d = config.find_int(absl::StrCat(pointer, "/", out.size()))) {
    out.push_back(*d);
    if (out.size() > 64) break;
  }
  return out;
}

void add_cublas(const Instruction& call, const DeviceSpec& device, std::vector<GemmCall>& out) {
  if (call.operand_count() < 2) return;
  const Shape& lhs = call.operand(0)->shape();
  const Shape& rhs = call.operand(1)->shape();
  if (!lhs.is_array() || !rhs.is_array()) return;
  const BackendConfig config = call.backend_config();
  for (std::string_view prefix : {"/gemm_backend_config", ""}) {
    const std::string base = absl::StrCat(sv(prefix), "/dot_dimension_numbers/");
    if (!config.find_json(base + "lhs_contracting_dimensions")) continue;
    const std::vector<int64_t> contracting = int_list(config, base + "lhs_contracting_dimensions");
    const std::vector<int64_t> batch = int_list(config, base + "lhs_batch_dimensions");
    std::optional<measured::GemmShape> g = gemm_shape(lhs, rhs, batch, contracting);
    if (!g) return;
    bool highest = false, tf32 = false;
    gemm_precision(call, highest, tf32);
    const PrimitiveType type = cost::matrix_operand_type(lhs.element_type, rhs.element_type);
    out.push_back(
        {*g, lhs.element_type, rhs.element_type, matrix_unit(device, type, highest, tf32)});
    return;
  }
}

// Calls fn(op) for `i`, or, when `i` is a fusion, for every op its fused computation runs
// (fusions nested in it included, down to 4 levels).
template <typename Fn>
void for_each_fused_op(const Instruction& i, Fn&& fn, int depth = 0) {
  if (i.opcode() != Opcode::kFusion) {
    fn(i);
    return;
  }
  const Computation* fused = i.computation_attribute(AttrId::kCalls);
  if (fused == nullptr || depth > 4) return;
  for (const Instruction* inner : fused->instructions()) for_each_fused_op(*inner, fn, depth + 1);
}

// A dense convolution as its implicit GEMM, at cuDNN's measured factor over the table.
void add_conv(const Instruction& conv, const DeviceSpec& device, std::vector<GemmCall>& out) {
  if (conv.operand_count() < 2) return;
  const std::optional<measured::GemmShape> g = implicit_gemm(
      conv, device.kind == DeviceKind::kTpu ? ConvTaps::kValid : ConvTaps::kAll);
  if (!g) return;
  const PrimitiveType lhs = conv.operand(0)->shape().element_type;
  const PrimitiveType rhs = conv.operand(1)->shape().element_type;
  const PrimitiveType type = cost::matrix_operand_type(lhs, rhs);
  out.push_back({*g, lhs, rhs, matrix_unit(device, type, false, false), kCudnnOverGemmTable});
}

void add_gemm(const Instruction& i, const DeviceSpec& device, std::vector<GemmCall>& out) {
  if (i.opcode() == Opcode::kDot) {
    add_dot(i, device, out);
  } else if (i.opcode() == Opcode::kConvolution &&
             (device.kind == DeviceKind::kGpu || device.kind == DeviceKind::kTpu)) {
    // XLA's TPU programs write their matrix products as convolutions in fusions.
    add_conv(i, device, out);
  } else if (i.opcode() == Opcode::kCustomCall) {
    const std::string_view target = i.custom_call_target();
    if (target == "__cublas$gemm" || absl::StartsWith(sv(target), "__cublas$lt$matmul")) {
      add_cublas(i, device, out);
    } else if (absl::StartsWith(sv(target), "__cudnn$conv")) {
      add_conv(i, device, out);
    }
  }
}

}  // namespace

std::vector<GemmCall> gemms_of(const Instruction& instruction, const DeviceSpec& device) {
  std::vector<GemmCall> out;
  for_each_fused_op(instruction,
                    [&](const Instruction& op) { add_gemm(op, device, out); });
  return out;
}

std::string_view op_matrix_unit(const Instruction& instruction, const DeviceSpec& device,
                                PrimitiveType type) {
  if (type == PrimitiveType::kInvalid) return {};
  const std::vector<GemmCall> gemms = gemms_of(instruction, device);
  const std::string_view fallback = matrix_unit(device, type, false, false);
  if (gemms.empty()) return fallback;
  for (const GemmCall& g : gemms) {
    if (g.unit != gemms.front().unit) return fallback;
  }
  return gemms.front().unit;
}

namespace {

// The profiled device whose op cycles stand in for `device`'s: H100 (sm_90) for Hopper and
// Ampere GPUs, B200 (sm_100) for Blackwell ones. Only ratios of cycles are used.
std::string_view profile_source(const DeviceSpec& device) {
  if (!nvidia(device)) return {};
  const int major = device.gpu->compute_capability_major;
  if (major >= 10) return "b200";
  if (major >= 8) return "h100";
  return {};
}

// Issue slots per element by opcode and element type for one profiled device: cycles over
// those of an f32 add, at least 1. Built once per device.
using SlotTable = absl::flat_hash_map<std::pair<Opcode, PrimitiveType>, double>;

const SlotTable* slot_table(std::string_view profile) {
  auto build = [](std::string_view device) {
    auto* table = new SlotTable;
    const std::optional<double> unit = measured::op_profile_cycles(device, "add", "f32");
    if (!unit || !(*unit > 0)) return table;
    for (const measured::OpProfileRecord& r : measured::op_profile_records()) {
      if (r.device != device) continue;
      const std::optional<Opcode> op = opcode_from_name(r.opcode);
      const std::optional<PrimitiveType> type = primitive_type_from_name(r.type);
      if (op && type) (*table)[{*op, *type}] = std::max(1.0, r.cycles / *unit);
    }
    return table;
  };
  static const SlotTable* h100 = build("h100");
  static const SlotTable* b200 = build("b200");
  if (profile == "h100") return h100;
  if (profile == "b200") return b200;
  return nullptr;
}

// `used`: the fraction of its elements the fusion computes (ModuleCost::element_utilization).
void add_issue(const Instruction& i, const SlotTable& slots, double used, IssueTime& out) {
  const OpCategory category = opcode_category(i.opcode());
  if (category != OpCategory::kElementwise && category != OpCategory::kTranscendental) return;
  const Shape& shape = i.shape();
  if (!shape.is_array()) return;
  const double elements = elements_of(shape) * used;
  auto it = slots.find({i.opcode(), shape.element_type});
  out.element_ops += elements;
  out.slots += elements * (it == slots.end() ? 1.0 : it->second);
}

}  // namespace

IssueTime elementwise_issue_time(const Instruction& instruction, const DeviceSpec& device,
                                 const ModuleCost& cost) {
  IssueTime t;
  const std::string_view profile = profile_source(device);
  const SlotTable* slots = profile.empty() ? nullptr : slot_table(profile);
  if (slots == nullptr || slots->empty() || !(device.vector_flops_per_s > 0)) return t;
  // A fused computation that gathers or slices computes some of its ops only where used (an
  // op outside a fusion computes all of its elements).
  for_each_fused_op(instruction, [&](const Instruction& op) {
    double share = 1.0;
    if (&op != &instruction) {
      if (auto u = cost.element_utilization.find(&op); u != cost.element_utilization.end()) {
        share = u->second;
      }
    }
    add_issue(op, *slots, share, t);
  });
  if (t.element_ops <= 0) return t;
  t.profile = std::string(profile);
  t.time_s = t.slots / (device.vector_flops_per_s / 2);
  return t;
}

std::string_view TextMemo::text(std::string_view key, absl::FunctionRef<std::string()> make) {
  if (transient_) return last_ = make();
  if (!memoize_) return pool_.save(make());
  if (auto it = texts_.find(key); it != texts_.end()) return it->second;
  const std::string_view text = pool_.save(make());
  if (texts_.size() < kMaxTexts) texts_.emplace(std::string(key), text);
  return text;
}

double GemmTimeCache::time_s(const measured::GemmTable& table, const measured::GemmShape& shape) {
  const Key key{&table, shape.b, shape.m, shape.n, shape.k};
  auto it = times_.find(key);
  if (it == times_.end()) it = times_.emplace(key, table.time_s(shape)).first;
  return it->second;
}

namespace {

// Whether the TPU tables were measured on `device` itself (else it borrows them).
bool own_tpu_tables(const DeviceSpec& device) {
  return table_device(device) == measured::kTpuTableDevice;
}

// The tpu7x spec, whose peaks the TPU tables are in units of.
const DeviceSpec* tpu_table_spec() {
  static const auto* s = new absl::StatusOr<DeviceSpec>(device(measured::kTpuTableDevice));
  return s->ok() ? &**s : nullptr;
}

// Whether `device` takes the measured TPU models: a TPU whose file sets no calibration.
bool tpu_measured(const DeviceSpec& device) {
  return device.kind == DeviceKind::kTpu && !device.matmul_efficiency_set &&
         !device.hbm_efficiency_set && measured::tpu_fits() != nullptr &&
         tpu_table_spec() != nullptr;
}

// "measured on tpu7x" or "measured on tpu7x, borrowed".
const std::string& tpu_provenance(const DeviceSpec& device) {
  static const auto* own = new std::string(absl::StrCat("measured on ", measured::kTpuTableDevice));
  static const auto* borrowed =
      new std::string(absl::StrCat("measured on ", measured::kTpuTableDevice, ", borrowed"));
  return own_tpu_tables(device) ? *own : *borrowed;
}

// The names of the TPU models an op's expected time may come from, for one provenance
// (tpu_provenance): made once, as every op names one.
struct TpuModelNames {
  std::string gemm;        // "gemm table tpu7x (measured on tpu7x)"
  std::string hbm;         // "achievable HBM (measured on tpu7x)"
  std::string fixed_cost;  // "per-op fixed cost (measured on tpu7x)"
};

const TpuModelNames& tpu_model_names(const DeviceSpec& device) {
  auto names = [](const std::string& from) {
    return new TpuModelNames{
        absl::StrCat("gemm table ", measured::kTpuTableDevice, " (", from, ")"),
        absl::StrCat("achievable HBM (", from, ")"),
        absl::StrCat("per-op fixed cost (", from, ")")};
  };
  static const TpuModelNames* own =
      names(absl::StrCat("measured on ", measured::kTpuTableDevice));
  static const TpuModelNames* borrowed =
      names(absl::StrCat("measured on ", measured::kTpuTableDevice, ", borrowed"));
  return own_tpu_tables(device) ? *own : *borrowed;
}

// The fits' figures as every op's explanation prints them (the fits are the process's own,
// measured::tpu_fits(), so the text is made once).
struct TpuFitTexts {
  std::string hbm_fraction;  // "%.3f"
  std::string fixed_cost;    // seconds(per-op fixed cost)
  std::string no_fixed_cost;  // seconds(0)
};

const TpuFitTexts& tpu_fit_texts(const measured::TpuFits& fits) {
  static const auto* texts = new TpuFitTexts{util::fixed_text(fits.hbm_fraction, 3),
                                             seconds(fits.hbm.latency_s), seconds(0.0)};
  return *texts;
}

// The MXU width of a spec; 128 (and said) when the spec has none.
int64_t mxu_of(const DeviceSpec& device, std::vector<std::string>& assumptions) {
  if (const DeviceFigure* f = device.figure("mxu_size"); f != nullptr && f->value >= 1) {
    return static_cast<int64_t>(f->value);
  }
  note_once(assumptions, absl::StrCat(device.name, " gives no mxu_size: GEMMs padded to 128 "
                                                   "(assumed)"));
  return 128;
}

ExpectedTime expected_tpu_op_time(absl::Span<const GemmCall> gemms, const OpWork& work,
                                  const RooflineEstimate& roofline, const DeviceSpec& device,
                                  bool include_overhead, std::vector<std::string>& assumptions) {
  const measured::TpuFits& fits = *measured::tpu_fits();
  const TpuModelNames& names = tpu_model_names(device);
  ExpectedTime e{roofline.time_s, "", {}};
  // The terms the explanation names, in its order, with their times.
  TpuOpBasis basis;
  using Term = TpuOpBasis::Term;
  basis.gemms = gemms.size();
  basis.include_overhead = include_overhead;
  static const std::string* const kRoofline = new std::string("roofline");
  static const std::string* const kHostLink = new std::string("host link (measured on tpu_v6e)");
  double terms = 0;
  // The model of the slowest term so far; copied into the result once, at the end.
  const std::string* model = kRoofline;
  auto consider = [&terms, &model](double s, const std::string& name) {
    if (s > terms) terms = s, model = &name;
  };
  bool gemm_done = false;
  // The share of its peak this chip's large GEMMs reach: tpu7x's measured plateau, another
  // chip's gemm_plateau figure (else its peak). The borrowed ramp is scaled to it.
  const double chip_plateau =
      own_tpu_tables(device) ? fits.gemm_plateau : device.gemm_plateau.value_or(1.0);
  basis.chip_plateau = chip_plateau;
  const double ramp_scale = fits.gemm_plateau / chip_plateau;
  if (work.matrix_flops > 0 && !gemms.empty()) {
    const int64_t mxu = mxu_of(device, assumptions);
    double gemm_s = 0;
    for (const GemmCall& g : gemms) {
      const std::optional<double> own = peak(device, g.unit);
      const double own_peak = own ? *own : peak(device, "bf16").value_or(0);
      if (!(own_peak > 0)) continue;
      // The ramp by time at peak: this GEMM takes padded / own_peak at this chip's peak; the
      // tpu7x GEMM as long at tpu7x's bf16 peak (padded x gemm_peak / own_peak FLOPs) reaches
      // the efficiency measured there, and so does this one: what keeps a small GEMM below
      // peak (filling the MXUs' pipelines, the first DMAs) is time, which a slower chip
      // spends over more FLOPs. The work part of the measured time (its fixed cost taken out)
      // then is this GEMM's time. Another chip borrows the ramp relative to tpu7x's plateau:
      // its own large GEMMs reach its gemm_plateau, else its peak, as TPU v2's did in the
      // scaling book's profile (docs/accuracy.md, "TPUs").
      const double padded = measured::padded_flops(g.shape, mxu);
      const double as_long = padded * fits.gemm_peak / own_peak;
      const double work_s = std::max(0.0, fits.gemm_time_s(as_long) - fits.hbm.latency_s);
      gemm_s += std::max(padded / own_peak, work_s * ramp_scale);
      if (g.unit != "bf16") {
        note_once(assumptions,
                  absl::StrCat(device.name, " ", sv(g.unit),
                               " GEMMs: efficiency of the measured ", measured::kTpuTableDevice,
                               " bf16 GEMMs, relative to the ", sv(g.unit), " peak (assumed)"));
      }
    }
    if (gemm_s > 0) {
      gemm_done = true;
      basis.terms.push_back({Term::kGemm, gemm_s});
      basis.mxu = mxu;
      consider(gemm_s, names.gemm);
    }
  }
  for (const RooflineTerm& t : roofline.terms) {
    if (t.bound == Bound::kHbm) {
      const double s = t.time_s / fits.hbm_fraction;
      basis.terms.push_back({Term::kHbm, s});
      consider(s, names.hbm);
    } else if (t.bound == Bound::kHost) {
      const double s = t.time_s / kTpuHostFraction;
      basis.terms.push_back({Term::kHost, s});
      consider(s, *kHostLink);
    } else if (t.bound == Bound::kMatrix && gemm_done) {
      continue;
    } else if (t.bound == Bound::kMatrix && gemms.empty() && chip_plateau < 1) {
      // A kernel's matrix work (a Pallas call's stated FLOPs): no faster than the chip's
      // large GEMMs, at their plateau.
      const double s = t.time_s / chip_plateau;
      basis.terms.push_back({Term::kKernelMatrix, s});
      consider(s, names.gemm);
    } else {
      consider(t.time_s, *kRoofline);
    }
  }
  const double fixed = include_overhead ? fits.hbm.latency_s : 0.0;
  if (fixed > terms) model = &names.fixed_cost;
  e.model = *model;
  e.time_s = std::max(roofline.time_s, terms + fixed);
  if (e.time_s > roofline.time_s) e.basis = std::move(basis);
  return e;
}

// The explanation of a TPU op's expected time `e` (expected_tpu_op_time).
std::string_view explain_tpu_op(const ExpectedTime& e, const TpuOpBasis& basis,
                                const DeviceSpec& device, TextMemo& memo) {
  using Term = TpuOpBasis::Term;
  FigureKey& key = memo.new_key();
  key.add(ExplanationKind::kTpuOp);
  key.add(reinterpret_cast<uintptr_t>(&device));
  key.add(basis.include_overhead);
  key.add(e.time_s);
  key.add(basis.gemms);
  key.add(basis.mxu);
  for (const auto& [term, s] : basis.terms) {
    key.add(term);
    key.add(s);
  }
  return memo.text(key.bytes(), [&] {
    const measured::TpuFits& fits = *measured::tpu_fits();
    const std::string& from = tpu_provenance(device);
    const TpuFitTexts& texts = tpu_fit_texts(fits);
    std::vector<std::string> how;
    for (const auto& [term, s] : basis.terms) {
      switch (term) {
        case Term::kGemm:
          how.push_back(absl::StrCat(static_cast<int>(basis.gemms), " GEMM",
                                     basis.gemms == 1 ? "" : "s", " by padded size (MXU ",
                                     static_cast<int>(basis.mxu), ") from the ", from,
                                     " table: ", seconds(s)));
          break;
        case Term::kKernelMatrix:
          how.push_back(absl::StrCat("the kernel's matrix work at the GEMM plateau, ",
                                     util::fixed_text(basis.chip_plateau, 2), " of peak: ",
                                     seconds(s)));
          break;
        case Term::kHbm:
          how.push_back(absl::StrCat("HBM at ", texts.hbm_fraction, " of its bandwidth (", from,
                                     "): ", seconds(s)));
          break;
        case Term::kHost:
          how.push_back(absl::StrCat("host link at ", util::fixed_text(kTpuHostFraction, 2),
                                     " of its bandwidth (measured on tpu_v6e",
                                     table_device(device) == "tpu_v6e" ? "" : ", borrowed",
                                     "): ", seconds(s)));
          break;
      }
    }
    return absl::StrCat("expected = per-op fixed cost ",
                        basis.include_overhead ? texts.fixed_cost : texts.no_fixed_cost,
                        " (fitted, ", from, ") + max(terms as measured) = ", seconds(e.time_s),
                        " (", how.empty() ? std::string("no measured term") : absl::StrJoin(how, "; "),
                        ")");
  });
}

ExpectedTime expected_tpu_collective_time(const CollectiveEstimate& roofline,
                                          const DeviceSpec& device,
                                          std::vector<std::string>& assumptions) {
  const measured::TpuFits& fits = *measured::tpu_fits();
  const std::string& from = tpu_provenance(device);
  ExpectedTime e{roofline.time_s, "", {}};
  if (roofline.group_size <= 1) {
    e.model = "roofline (nothing crosses a link)";
    return e;
  }
  const double latency = fits.ici.latency_s;
  const double eff = fits.ici_efficiency;
  CollectiveBasis basis;
  basis.latency_s = latency;
  if (roofline.placement.domains > 1) {
    // Across slices: the roofline's ICI and DCN phases (DCN assumed), plus the fitted latency.
    // No DCN collective is measured: say which figures stand in and how far off they could be.
    const double w_dcn =
        device.torus ? device.torus->dcn_bandwidth_per_chip.value_or(0.0) : 0.0;
    const double dcn_latency = device.torus ? device.torus->dcn_latency_s : 0.0;
    note_once(assumptions,
              absl::StrFormat(
                  "%s across slices: DCN at its published line rate, %.4g B/s per chip, and %s "
                  "per DCN transfer (assumed: 'tens of microseconds'); no DCN collective is "
                  "measured: GPU networks reach 0.64-0.96 of their line rate (docs/"
                  "prediction-model.md, 'Across nodes'), so the DCN phase may take up to 1.6x "
                  "(1 / 0.64) longer; the latency is a guess within tens of microseconds",
                  device.name, w_dcn, seconds(dcn_latency)));
    e.time_s = roofline.time_s + latency;
    e.model = absl::StrCat("ICI fit ", measured::kTpuTableDevice, " (", from,
                           ") + DCN (assumed)");
    basis.kind = CollectiveBasis::Kind::kTpuAcrossSlices;
    basis.roofline_s = roofline.time_s;
    e.basis = basis;
    return e;
  }
  e.time_s = std::max(roofline.time_s, latency + roofline.bandwidth_time_s / eff);
  e.model = absl::StrCat("ICI fit ", measured::kTpuTableDevice, " (", from, ")");
  basis.kind = CollectiveBasis::Kind::kTpuIci;
  basis.bandwidth_s = roofline.bandwidth_time_s;
  basis.efficiency = eff;
  basis.group = fits.ici_group;
  e.basis = basis;
  return e;
}

}  // namespace

std::vector<std::string> tpu_model_assumptions(const DeviceSpec& device) {
  std::vector<std::string> out;
  if (device.kind != DeviceKind::kTpu) return out;
  if (!tpu_measured(device)) {
    out.push_back(absl::StrCat(
        device.name, " expected times: ",
        device.matmul_efficiency_set || device.hbm_efficiency_set
            ? "the file's calibrated efficiencies, other terms at the roofline (assumed)"
            : "the roofline (no measured TPU model could be built; assumed)"));
    return out;
  }
  const measured::TpuFits& f = *measured::tpu_fits();
  const bool own = own_tpu_tables(device);
  out.push_back(absl::StrFormat(
      "%s expected times %s the %s microbenchmarks (AI-Hypercomputer/"
      "accelerator-microbenchmarks)%s: GEMM time by MXU-padded size (measured, interpolated%s%s), "
      "HBM at %.3f of bandwidth and a %.3g us per-op fixed cost (fitted), ICI collectives "
      "%.3g us + %.3f of the torus model's bandwidth (fitted to all-gathers of %g devices)",
      device.name, own ? "rest on" : "borrow", measured::kTpuTableDevice,
      own ? "" : ", relative to this chip's own peaks",
      own ? "" : "; read at the tpu7x GEMM as long at its peak",
      own ? ""
      : device.gemm_plateau
          ? absl::StrFormat("; the ramp to tpu7x's %.2f plateau, this chip's plateau %.2f of "
                            "its peak (its gemm_plateau figure)",
                            f.gemm_plateau, *device.gemm_plateau)
          : absl::StrFormat("; the ramp to tpu7x's %.2f plateau, this chip's plateau assumed "
                            "at its peak", f.gemm_plateau),
      f.hbm_fraction, f.hbm.latency_s * 1e6,
      f.ici.latency_s * 1e6, f.ici_efficiency, f.ici_group));
  // Per generation: what was measured on this chip (and where), what was fitted to it (and
  // to what), what it borrows (from which generation) and what is assumed. The GEMM plateau's
  // provenance is its figure's: the head of its note says "fitted to ..." or "borrowed from
  // ..." (the device files do), else its source.
  std::string plateau_fitted, plateau_borrowed, plateau_assumed;
  const DeviceFigure* g = own ? nullptr : device.figure("gemm_plateau");
  if (g != nullptr) {
    const std::string_view note = g->note;
    const std::string head(note.substr(0, std::min(note.find(':'), note.find(';'))));
    const std::string text = absl::StrFormat(
        "GEMM plateau %.2f of its peak (%s)", g->value,
        head.empty() ? absl::StrCat("source '", g->source, "'") : head);
    (absl::StartsWith(head, "borrowed") ? plateau_borrowed : plateau_fitted) = text;
  } else if (!own) {
    plateau_assumed = "GEMM plateau at its peak (no gemm_plateau figure)";
  }
  const bool host_own = table_device(device) == "tpu_v6e";
  std::vector<std::string> measured, fitted, borrowed;
  if (own) {
    measured.push_back(absl::StrFormat(
        "GEMM ramp and its %.2f plateau, HBM copies, ICI all-gathers (AI-Hypercomputer/"
        "accelerator-microbenchmarks)",
        f.gemm_plateau));
    fitted.push_back(absl::StrFormat(
        "HBM share %.3f, per-op fixed cost %.3g us, ICI latency %.3g us and %.3f of the torus "
        "bandwidth (to those microbenchmarks)",
        f.hbm_fraction, f.hbm.latency_s * 1e6, f.ici.latency_s * 1e6, f.ici_efficiency));
  } else {
    borrowed.push_back(absl::StrCat("GEMM ramp, HBM share, per-op fixed cost, ICI all-gathers (",
                                    measured::kTpuTableDevice, ")"));
  }
  if (host_own) {
    measured.push_back("host link (a TPU v6e profile)");
  } else {
    borrowed.push_back("host link (tpu_v6e)");
  }
  if (!plateau_fitted.empty()) fitted.push_back(plateau_fitted);
  if (!plateau_borrowed.empty()) borrowed.insert(borrowed.begin(), plateau_borrowed);
  auto list = [](const std::vector<std::string>& items) {
    return items.empty() ? std::string("nothing") : absl::StrJoin(items, ", ");
  };
  out.push_back(absl::StrFormat(
      "%s provenance: measured on this chip: %s; fitted to this chip: %s; borrowed: %s%s",
      device.name, list(measured), list(fitted), list(borrowed),
      plateau_assumed.empty() ? "" : absl::StrCat("; assumed: ", plateau_assumed)));
  out.push_back(absl::StrFormat(
      "%s assumed, not measured: vector and transcendental rates (roofline), non-square GEMM "
      "shapes beyond MXU padding, collectives other than all-gather and other group sizes "
      "(the all-gather fit), DCN bandwidth and latency; host-offload (S(5)) copies at %.2f of "
      "the host link (measured on tpu_v6e%s); convolutions (XLA writes the TPU's matrix "
      "products as convolutions) as their implicit GEMM on the same ramp; sorts, top-k, FFTs, "
      "scatters, gathers and reduce-windows at the general model's terms (their own models "
      "are measured on NVIDIA GPUs only)",
      device.name, kTpuHostFraction, table_device(device) == "tpu_v6e" ? "" : ", borrowed"));
  return out;
}

namespace {

// The time of `gemms` on `device` from the measured tables of `source` (whose device is
// `src`); `used`: how many of them a table times (the others add nothing), `outside`: how many
// of those lie outside the table's measured shapes (extrapolated, GemmTable::time_s).
double table_gemm_time(absl::Span<const GemmCall> gemms, const DeviceSpec& device,
                       const Source& source, const measured::DeviceTables& tables,
                       const DeviceSpec& src, GemmTimeCache* cache,
                       std::vector<std::string>& assumptions, int& used, int& outside) {
  double gemm_s = 0;
  for (const GemmCall& g : gemms) {
    std::string_view table_class;
    const measured::GemmTable* table = table_for(tables, g, table_class);
    const std::optional<double> own = peak(device, g.unit);
    const std::optional<double> theirs = peak(src, table_class);
    if (table == nullptr || !own || !theirs) continue;
    // Efficiency at this shape relative to the table's peak, applied to this device's peak
    // of the class that runs: exact for the table's own device and class at its own peak (a
    // peak set anew, --set matrix_flops_per_s.bf16=..., scales the measured time with it).
    const bool same = !source.borrowed && table_class == g.unit && *own == *theirs;
    const double table_s =
        cache != nullptr ? cache->time_s(*table, g.shape) : table->time_s(g.shape);
    const double table_rate =
        table_s > 0 ? g.shape.flops() / table_s : table->max_flop_per_s();
    const double rate = same ? table_rate : table_rate / *theirs * *own;
    gemm_s += g.factor * g.shape.flops() / rate;
    ++used;
    if (!table->covers(g.shape)) ++outside;
    if (!same && !source.borrowed && table_class == g.unit) {
      note_once(assumptions,
                absl::StrCat(device.name, " ", sv(g.unit), " GEMMs: the measured ", sv(source.name),
                             " ", sv(table_class), " table's efficiency at each shape, applied "
                             "to the peak set (",
                             util::general_text(*own, 4), " FLOP/s; measured at ",
                             util::general_text(*theirs, 4), ")"));
    } else if (!same) {
      note_once(assumptions,
                absl::StrCat(device.name, " ", sv(g.unit),
                             " GEMMs: efficiency borrowed from the measured ", sv(source.name), " ",
                             sv(table_class), " table, relative to each device's own peak"));
    }
  }
  return gemm_s;
}

}  // namespace

ExpectedTime expected_op_time(absl::Span<const GemmCall> gemms, const OpWork& work,
                              const RooflineEstimate& roofline, const DeviceSpec& device,
                              bool include_overhead, std::vector<std::string>& assumptions,
                              GemmTimeCache* cache, const IssueTime& issue) {
  ExpectedTime e{roofline.time_s, "", {}};
  const bool gpu = device.kind == DeviceKind::kGpu;
  const bool matmul_knob = device.matmul_efficiency_set;
  const bool hbm_knob = device.hbm_efficiency_set;
  if (tpu_measured(device)) {
    return expected_tpu_op_time(gemms, work, roofline, device, include_overhead, assumptions);
  }
  if (!gpu && !matmul_knob && !hbm_knob) {
    e.model = "roofline (no measured model for TPUs)";
    return e;
  }
  const double overhead = include_overhead ? device.per_op_overhead_s : 0.0;
  // The terms the explanation names, with their times.
  GpuOpBasis basis;
  using Term = GpuOpBasis::Term;
  // The slowest term as expected, and the model behind it.
  double terms = 0;
  std::string model = "roofline";
  // `name` makes the model's name, only for a term that is the slowest so far.
  auto consider = [&terms, &model](double s, auto name) {
    if (s > terms) terms = s, model = name();
  };
  for (const RooflineTerm& t : roofline.terms) {
    if (t.bound == Bound::kHbm && (hbm_knob || gpu)) {
      const double fraction = hbm_knob ? device.hbm_efficiency : kGpuHbmFraction;
      const double s = t.time_s / fraction;
      // The fraction was measured on the H100; other GPUs borrow it.
      const std::string_view measured = hbm_measured(device);
      basis.terms.push_back({Term::kHbm, s});
      basis.hbm_fraction = fraction;
      basis.hbm_calibrated = hbm_knob;
      consider(s, [hbm_knob, measured] {
        return hbm_knob ? std::string("calibrated hbm_efficiency")
                        : absl::StrCat("achievable HBM (", sv(measured), ")");
      });
    } else if (t.bound == Bound::kMatrix && matmul_knob) {
      const double s = t.time_s / device.matmul_efficiency;
      basis.terms.push_back({Term::kMatrix, s});
      basis.matmul_efficiency = device.matmul_efficiency;
      consider(s, [] { return std::string("calibrated matmul_efficiency"); });
    } else {
      consider(t.time_s, [] { return std::string("roofline"); });
    }
  }

  // GEMMs: the measured tables.
  const Source source = gemm_source(device);
  const measured::DeviceTables* tables =
      source.name.empty() ? nullptr : measured::tables_for(source.name);
  const DeviceSpec* src = source.name.empty() ? nullptr : source_spec(source.name);
  if (!matmul_knob && work.matrix_flops > 0 && tables != nullptr && src != nullptr) {
    int used = 0, outside = 0;
    const double gemm_s = table_gemm_time(gemms, device, source, *tables, *src, cache,
                                          assumptions, used, outside);
    if (used > 0) {
      basis.table = source.name;
      basis.gemms = used;
      basis.outside = outside;
      basis.gemm_s = gemm_s;
      // A GEMM outside the table's measured shapes is extrapolated (GemmTable::time_s).
      consider(gemm_s, [&source, outside] {
        return absl::StrCat("gemm table ", sv(source.name),
                            source.borrowed ? " (measured, borrowed"
                            : outside > 0   ? " (measured, extrapolated"
                                            : " (measured, interpolated",
                            source.borrowed && outside > 0 ? ", extrapolated)" : ")");
      });
    }
  }
  // Elementwise work at the lanes' issue rate, each op costed by its measured profile; said
  // only when it is the slowest term (it then sets the expected time).
  if (gpu && !issue.profile.empty() && issue.time_s > terms) {
    basis.terms.push_back({Term::kIssue, issue.time_s});
    basis.element_ops = issue.element_ops;
    basis.slots = issue.slots;
    basis.profile = issue.profile;
    consider(issue.time_s, [&issue] {
      return absl::StrCat("elementwise issue (op profiles ", issue.profile, ", measured)");
    });
  }
  if (model == "roofline" || terms + overhead <= roofline.time_s) {
    model = gpu ? "roofline (no measured model)" : "roofline";
  }
  e.model = model;
  e.time_s = std::max(roofline.time_s, terms + overhead);
  if ((basis.gemms > 0 || !basis.terms.empty()) && e.time_s > roofline.time_s) {
    e.basis = std::move(basis);
  }
  return e;
}

namespace {

// The explanation of a GPU op's expected time `e` (expected_op_time).
std::string_view explain_gpu_op(const ExpectedTime& e, const GpuOpBasis& basis,
                                const DeviceSpec& device, TextMemo& memo) {
  using Term = GpuOpBasis::Term;
  FigureKey& key = memo.new_key();
  key.add(ExplanationKind::kOp);
  key.add(reinterpret_cast<uintptr_t>(&device));
  key.add(e.time_s);
  key.add(basis.gemms);
  key.add(basis.outside);
  key.add(basis.gemm_s);
  for (const auto& [term, s] : basis.terms) {
    key.add(term);
    key.add(s);
    if (term == Term::kIssue) {
      key.add(basis.element_ops);
      key.add(basis.slots);
      key.add_text(basis.profile);
    }
  }
  return memo.text(key.bytes(), [&] {
    std::vector<std::string> how;
    if (basis.gemms > 0) {
      how.push_back(absl::StrCat(
          basis.gemms, " GEMM", basis.gemms == 1 ? "" : "s", " from the measured ",
          sv(basis.table), " table",
          basis.outside == 0
              ? std::string()
              : absl::StrCat(" (",
                             basis.outside == basis.gemms ? "" : absl::StrCat(basis.outside, " "),
                             "outside its measured shapes: extrapolated, the tile-padded work "
                             "beyond its edge at its marginal rate there)"),
          ": ", seconds(basis.gemm_s)));
    }
    for (const auto& [term, s] : basis.terms) {
      switch (term) {
        case Term::kHbm:
          how.push_back(absl::StrCat(
              "HBM at ", util::fixed_text(basis.hbm_fraction, 2), " of its bandwidth (",
              basis.hbm_calibrated ? "hbm_efficiency, calibrated" : sv(hbm_measured(device)),
              "): ", seconds(s)));
          break;
        case Term::kMatrix:
          how.push_back(absl::StrCat("matrix at ", util::fixed_text(basis.matmul_efficiency, 2),
                                     " of peak (matmul_efficiency, calibrated): ", seconds(s)));
          break;
        case Term::kIssue:
          how.push_back(absl::StrCat(util::general_text(basis.element_ops, 4),
                                     " element ops at ",
                                     util::general_text(basis.slots / basis.element_ops, 3),
                                     " issue slots each (op profiles ", sv(basis.profile), ") on ",
                                     util::general_text(device.vector_flops_per_s / 2, 4),
                                     " lane slots/s: ", seconds(s)));
          break;
      }
    }
    return absl::StrCat("expected = max(terms as measured) + overhead = ", seconds(e.time_s),
                        " (", absl::StrJoin(how, "; "), ")");
  });
}

}  // namespace

namespace {

// Where a GPU's scale-out bandwidth comes from, for the assumption: its node's NICs, or the
// spec's scale_out_bandwidth (below the NICs' share, or with no NICs given).
std::string nics_text(const DeviceSpec& device, const DeviceFigure* nic_figure) {
  const DeviceFigure* nics = device.figure("interconnect.nics_per_node");
  if (nic_figure == nullptr || nics == nullptr) {
    return "(scale_out_bandwidth, assumed: one NIC per GPU; nodes with fewer or slower NICs are "
           "slower: Jean Zay's 8 A100s share 4 x 100 Gb/s Omni-Path, 4x less per GPU than 8 x "
           "200 Gb/s; give nics_per_node and nic_bandwidth)";
  }
  const std::string node = absl::StrFormat("%g NICs x %.4g B/s a node of %d GPUs", nics->value,
                                           nic_figure->value, device.gpu->nvlink_domain_size);
  if (device.figure("interconnect.scale_out_bandwidth") != nullptr) {
    return absl::StrCat("(scale_out_bandwidth, below the share of its node's NICs: ", node, ")");
  }
  return absl::StrCat("from its node's NICs (", node, ")");
}

// A collective's part across `domains` NVLink domains (device.gpu set): NCCL's algorithms at
// the measured share of the NICs' line rate, with NCCL's own latency model. `per_domain`: its
// members in one domain. Sets `so` and the efficiency `eff`; returns so.time_s().
double across_domains_time(std::string_view op, double bytes, int64_t n, int64_t domains,
                           int64_t per_domain, const DeviceSpec& device,
                           std::vector<std::string>& assumptions, ScaleOutTime& so, double& eff) {
  const DeviceFigure* nic_figure = device.figure("interconnect.nic_bandwidth");
  const double w_so = device.gpu->scale_out_bandwidth;
  const double nic = nic_figure != nullptr ? nic_figure->value : w_so;
  const double l = static_cast<double>(std::max<int64_t>(1, per_domain));
  eff = device.gpu->nic_efficiency.value_or(kScaleOutEfficiency);
  // NCCL's tree on NVIDIA GPUs (RCCL's tuning differs: AMD GPUs keep the ring).
  const double tree_cap =
      nvidia(device) ? nccl_tree_channel_cap(device.gpu->compute_capability_major, domains) : 0;
  so = scale_out_time(op, bytes, n, domains, l, w_so, nic, eff, tree_cap);
  note_once(assumptions,
            absl::StrFormat(
                "%s across nodes: NCCL's ring (reductions, gathers; an all-reduce its ring or "
                "tree, whichever NCCL's own model times lower) and one NIC per GPU "
                "(all-to-all, send) at %.2f of line rate %s, latency NCCL's own model (9.6 us "
                "a network step, one per remote peer of an all-to-all, NVIDIA/nccl "
                "tuning.cc); %s per GPU %s",
                device.name, eff,
                device.gpu->nic_efficiency
                    ? "(the file's nic_efficiency)"
                    : "(measured on InfiniBand A100 and H100 nodes, NVIDIA/nccl#1048, "
                      "nccl-tests#119, #267; published all-to-alls across nodes reach "
                      "0.64-0.96, nccl-tests#139, #267; 2-node FFTs on Jean Zay's Omni-Path "
                      "0.27: up to 3x slower)",
                absl::StrFormat("%.4g B/s", w_so), nics_text(device, nic_figure)));
  return so.time_s();
}

// The measured curve of `op` whose group size is nearest `size` (in log), the first of equals;
// `fit_size`: its group size. Null when none is measured.
const measured::CollectiveCurve* nearest_fit(const measured::DeviceTables& tables,
                                             std::string_view op, int64_t size,
                                             int64_t& fit_size) {
  const measured::CollectiveCurve* fit = nullptr;
  for (const auto& [key, f] : tables.collectives) {
    if (key.op != op) continue;
    if (fit == nullptr || std::abs(std::log2(static_cast<double>(key.group_size)) -
                                   std::log2(static_cast<double>(size))) <
                              std::abs(std::log2(static_cast<double>(fit_size)) -
                                       std::log2(static_cast<double>(size)))) {
      fit = &f;
      fit_size = key.group_size;
    }
  }
  return fit;
}

}  // namespace

ExpectedTime expected_collective_time(CollectiveKind kind, const CollectiveEstimate& roofline,
                                      const DeviceSpec& device,
                                      std::vector<std::string>& assumptions) {
  ExpectedTime e{roofline.time_s, "", {}};
  CollectiveBasis basis;
  // A file that sets the share of its NICs' line rate (nic_efficiency) gives collectives across
  // nodes that network model; collective_bandwidth_efficiency and collective_latency then
  // calibrate only those inside one node (hloroof calibrate fits them apart).
  const bool network_set = device.gpu && device.gpu->nic_efficiency &&
                           roofline.placement.domains > 1 && !table_op(kind).empty() &&
                           !collective_source(device).name.empty();
  const bool calibrated =
      (device.collective_bandwidth_efficiency || device.collective_latency_s) && !network_set;
  if (device.kind != DeviceKind::kGpu && !calibrated) {
    if (tpu_measured(device)) {
      return expected_tpu_collective_time(roofline, device, assumptions);
    }
    e.model = "roofline (no measured model for TPUs)";
    return e;
  }
  if (calibrated) {
    const double eff = device.collective_bandwidth_efficiency.value_or(1.0);
    const double latency = device.collective_latency_s.value_or(roofline.latency_s);
    e.time_s =
        std::max(roofline.time_s, latency + roofline.bandwidth_time_s / eff);
    e.model = "calibrated collective_bandwidth_efficiency / collective_latency";
    basis.kind = CollectiveBasis::Kind::kCalibrated;
    basis.latency_s = latency;
    basis.bandwidth_s = roofline.bandwidth_time_s;
    basis.efficiency = eff;
    e.basis = basis;
    return e;
  }
  const std::string_view op = table_op(kind);
  const Source source = collective_source(device);
  const measured::DeviceTables* tables =
      source.name.empty() || op.empty() ? nullptr : measured::tables_for(source.name);
  if (tables == nullptr || roofline.group_size <= 1) {
    e.model = "roofline (no measured model)";
    return e;
  }
  // The part inside one NVLink domain.
  const bool pair = op == "collective-permute";
  const int64_t n = roofline.group_size;
  const int64_t domains = std::max<int64_t>(1, roofline.placement.domains);
  const int64_t inside = pair ? 2
                         : roofline.placement.members_per_domain > 0
                             ? roofline.placement.members_per_domain
                             : n;
  // Across NVLink domains: NCCL's algorithms at the measured share of the NICs' line rate, with
  // NCCL's own latency model.
  ScaleOutTime so;
  double across = 0;
  double eff = kScaleOutEfficiency;
  if (domains > 1 && device.gpu) {
    across = across_domains_time(op, roofline.bytes, n, domains, pair ? 1 : inside, device,
                                 assumptions, so, eff);
  }
  if (inside <= 1) {
    if (across <= 0) {
      e.model = "roofline (no measured model across NVLink domains)";
      return e;
    }
    const double latency = device.gpu ? device.gpu->collective_launch_latency_s : 0.0;
    e.time_s = std::max(roofline.time_s, latency + across);
    e.model = device.gpu->nic_efficiency
                  ? "scale-out (NCCL across nodes, the file's nic_efficiency)"
                  : "scale-out (NCCL across nodes, measured efficiency)";
    basis.kind = CollectiveBasis::Kind::kScaleOut;
    basis.latency_s = latency;
    basis.op = op;
    basis.domains = domains;
    basis.across_s = across;
    basis.scale_out = so;
    basis.efficiency = eff;
    e.basis = basis;
    return e;
  }
  // The measured group size nearest `inside` (in log), scaled by the bus factor.
  int64_t fit_size = 0;
  const measured::CollectiveCurve* fit = nearest_fit(*tables, op, inside, fit_size);
  if (fit == nullptr) {
    e.model = "roofline (no measured model)";
    return e;
  }
  // The table's size: the all-to-all buffer of one device is V / N.
  const double bytes =
      op == "all-to-all" ? roofline.bytes / static_cast<double>(n) : roofline.bytes;
  measured::LatencyBandwidth model;
  if (op == "all-to-all") {
    // An all-to-all is N-1 point-to-point sends at once, so its time per device follows the
    // bytes each device sends at every group size: the measured group sizes within a factor of
    // 2 join the fit, in bus bytes, at a tenth of the weight (kPooledWeight).
    std::vector<measured::PooledCurve> others;
    for (const auto& [key, f] : tables->collectives) {
      if (key.op != op || key.group_size == fit_size) continue;
      const double apart = std::abs(std::log2(static_cast<double>(key.group_size)) -
                                    std::log2(static_cast<double>(fit_size)));
      if (apart > 1.0) continue;
      others.push_back({&f, bus_factor(op, static_cast<double>(key.group_size)), kPooledWeight});
    }
    model = measured::pooled_fit(*fit, bus_factor(op, static_cast<double>(fit_size)), others,
                                 bytes);
  } else {
    model = fit->at(bytes);
  }
  double scale = pair ? 1.0
                      : bus_factor(op, static_cast<double>(inside)) /
                            bus_factor(op, static_cast<double>(fit_size));
  if (source.borrowed) {
    const DeviceSpec* src = source_spec(source.name);
    if (src != nullptr && src->gpu && device.gpu && device.gpu->nvlink_bandwidth > 0) {
      scale *= src->gpu->nvlink_bandwidth / device.gpu->nvlink_bandwidth;
    }
    note_once(assumptions, absl::StrFormat("%s collectives: latency and bandwidth borrowed from "
                                           "the measured %s fit, bandwidth scaled by NVLink",
                                           device.name, sv(source.name)));
  }
  model.seconds_per_byte *= scale;
  model.max_bytes_per_s /= scale;
  const double in_domain = model.time_s(bytes);
  // The NVLink and network parts of one NCCL collective run at once (pipelined ring chunks,
  // concurrent sends): the slower bounds. The network part pays the launch latency and NCCL's
  // own latency over all n GPUs (its NVLink steps included), not the in-domain fit's latency,
  // which counts the same launch and steps.
  const double launch = device.gpu ? device.gpu->collective_launch_latency_s : 0.0;
  e.time_s = std::max({roofline.time_s, in_domain, across > 0 ? launch + across : 0.0});
  e.model = absl::StrCat("collective fit ", sv(source.name),
                         source.borrowed ? " (measured, borrowed)" : " (measured, fitted)");
  basis.kind = CollectiveBasis::Kind::kFit;
  basis.op = op;
  basis.inside = pair ? 2 : inside;
  basis.fit_latency_s = model.latency_s;
  basis.bytes = bytes;
  basis.seconds_per_byte = model.seconds_per_byte;
  basis.in_domain_s = in_domain;
  basis.across_s = across;
  basis.domains = domains;
  basis.latency_s = launch;
  basis.scale_out = so;
  basis.efficiency = eff;
  e.basis = basis;
  return e;
}

namespace {

// The explanation of a collective's expected time `e` (expected_collective_time).
std::string explain_collective(const ExpectedTime& e, const CollectiveBasis& b,
                               const DeviceSpec& device) {
  switch (b.kind) {
    case CollectiveBasis::Kind::kTpuAcrossSlices:
      return absl::StrCat("expected = fitted collective latency ", seconds(b.latency_s), " (",
                          tpu_provenance(device), ") + the roofline's ICI and DCN phases ",
                          seconds(b.roofline_s), " (DCN bandwidth and latency assumed) = ",
                          seconds(e.time_s));
    case CollectiveBasis::Kind::kTpuIci:
      // (StrCat and to_chars, as printf writes them: one per collective, thousands in a
      // sharded module.)
      return absl::StrCat("expected = fitted latency ", seconds(b.latency_s), " + bandwidth term ",
                          seconds(b.bandwidth_s), " / ", util::fixed_text(b.efficiency, 3),
                          " of the torus model (fitted to ", measured::kTpuTableDevice,
                          " all-gathers of ", util::general_text(b.group, 6), " devices, ",
                          tpu_provenance(device), ") = ", seconds(e.time_s));
    case CollectiveBasis::Kind::kCalibrated:
      return absl::StrFormat("expected = latency %s + bandwidth term %s / %.2f = %s",
                             seconds(b.latency_s), seconds(b.bandwidth_s), b.efficiency,
                             seconds(e.time_s));
    case CollectiveBasis::Kind::kScaleOut:
      return absl::StrFormat(
          "expected = launch latency %s + %s across %d nodes: NCCL latency %s (%s) + network "
          "bytes at %.2f of the NICs' line rate %s -> %s",
          seconds(b.latency_s), sv(b.op), static_cast<int>(b.domains),
          seconds(b.scale_out.latency_s), scale_out_latency_text(b.scale_out), b.efficiency,
          seconds(b.scale_out.bandwidth_s), seconds(e.time_s));
    case CollectiveBasis::Kind::kFit:
      break;
  }
  const ScaleOutTime& so = b.scale_out;
  return absl::StrCat(
      "expected = fitted ", sv(b.op), " of ", b.inside, " in one NVLink domain: ",
      seconds(b.fit_latency_s), " + ", util::general_text(b.bytes, 4), " B x ",
      util::general_text(b.seconds_per_byte, 4), " s/B (fit to the 4 nearest measured sizes",
      b.op == "all-to-all" ? ", with those of group sizes within 2 x" : "", ") = ",
      seconds(b.in_domain_s),
      b.across_s > 0 ? absl::StrFormat("; across %d nodes at once: launch latency %s + NCCL "
                                       "latency %s (%s) + network bytes at %.2f of line rate %s",
                                       static_cast<int>(b.domains), seconds(b.latency_s),
                                       seconds(so.latency_s), scale_out_latency_text(so),
                                       b.efficiency, seconds(so.bandwidth_s))
                     : std::string(),
      " -> ", seconds(e.time_s));
}

}  // namespace

std::string_view explain_expected_time(const ExpectedTime& e, const DeviceSpec& device,
                                       TextMemo& memo) {
  if (const auto* gpu = std::get_if<GpuOpBasis>(&e.basis)) {
    return explain_gpu_op(e, *gpu, device, memo);
  }
  if (const auto* tpu = std::get_if<TpuOpBasis>(&e.basis)) {
    return explain_tpu_op(e, *tpu, device, memo);
  }
  if (const auto* collective = std::get_if<CollectiveBasis>(&e.basis)) {
    return memo.save(explain_collective(e, *collective, device));
  }
  return {};
}

}  // namespace hloroof::predict

namespace hloroof {

void load_measured_models(const DeviceSpec& device) {
  for (const predict::Source& source :
       {predict::gemm_source(device), predict::collective_source(device)}) {
    if (!source.name.empty()) (void)measured::tables_for(source.name);
  }
}

}  // namespace hloroof
