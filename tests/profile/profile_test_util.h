// Test helpers: small profiles written by hand, in both formats JAX writes. XSpace files are
// built with the messages of our xplane.proto and serialized; JSON traces gzipped with zlib.
#ifndef HLOROOF_TESTS_PROFILE_PROFILE_TEST_UTIL_H_
#define HLOROOF_TESTS_PROFILE_PROFILE_TEST_UTIL_H_

#include <unistd.h>
#include <zlib.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "proto/xplane.pb.h"

namespace hloroof::testing {

// Two ops of a jitted step on a GPU: a bf16 matmul and a memory-bound f32 add fusion.
inline constexpr std::string_view kStepModule = R"(HloModule jit_step

fused_add {
  p0 = f32[1024,1024]{1,0} parameter(0)
  p1 = f32[1024,1024]{1,0} parameter(1)
  ROOT add = f32[1024,1024]{1,0} add(p0, p1)
}

ENTRY main {
  a = bf16[2048,2048]{1,0} parameter(0)
  b = bf16[2048,2048]{1,0} parameter(1)
  x = f32[1024,1024]{1,0} parameter(2)
  y = f32[1024,1024]{1,0} parameter(3)
  dot.1 = bf16[2048,2048]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  add.fusion = f32[1024,1024]{1,0} fusion(x, y), kind=kLoop, calls=fused_add
  ROOT t = (bf16[2048,2048]{1,0}, f32[1024,1024]{1,0}) tuple(dot.1, add.fusion)
}
)";

// A scratch folder, removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "hloroof_profile_XXXXXX").string();
    path_ = mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline void write_file(const std::filesystem::path& path, const std::string& bytes) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << bytes;
}

inline std::string gzip(const std::string& text) {
  z_stream z{};
  // 15 + 16: a gzip header and trailer.
  REQUIRE(deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) ==
          Z_OK);
  std::string out(deflateBound(&z, text.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  REQUIRE(deflate(&z, Z_FINISH) == Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

// Builds one XPlane: events by name, stats by name, times in picoseconds from the line start.
class PlaneWriter {
 public:
  explicit PlaneWriter(xplane::XPlane* plane, std::string name) : plane_(plane) {
    plane_->set_name(std::move(name));
  }
  xplane::XLine* line(std::string name, int64_t timestamp_ns = 0) {
    xplane::XLine* l = plane_->add_lines();
    l->set_id(plane_->lines_size());
    l->set_name(std::move(name));
    l->set_timestamp_ns(timestamp_ns);
    return l;
  }
  // An event; `hlo_op` as a string stat, `hlo_module` as a reference stat (both forms occur).
  void event(xplane::XLine* l, const std::string& name, double start_us, double duration_us,
             const std::string& hlo_op = "", const std::string& hlo_module = "") {
    xplane::XEvent* e = l->add_events();
    e->set_metadata_id(event_id(name));
    e->set_offset_ps(static_cast<int64_t>(start_us * 1e6 + 0.5));
    e->set_duration_ps(static_cast<int64_t>(duration_us * 1e6 + 0.5));
    if (!hlo_op.empty()) {
      xplane::XStat* s = e->add_stats();
      s->set_metadata_id(stat_id("hlo_op"));
      s->set_str_value(hlo_op);
    }
    if (!hlo_module.empty()) {
      xplane::XStat* s = e->add_stats();
      s->set_metadata_id(stat_id("hlo_module"));
      s->set_ref_value(static_cast<uint64_t>(stat_id(hlo_module)));
    }
  }

 private:
  int64_t event_id(const std::string& name) {
    auto [it, added] = events_.try_emplace(name, static_cast<int64_t>(events_.size()) + 1);
    if (added) {
      xplane::XEventMetadata& m = (*plane_->mutable_event_metadata())[it->second];
      m.set_id(it->second);
      m.set_name(name);
    }
    return it->second;
  }
  int64_t stat_id(const std::string& name) {
    auto [it, added] = stats_.try_emplace(name, static_cast<int64_t>(stats_.size()) + 1);
    if (added) {
      xplane::XStatMetadata& m = (*plane_->mutable_stat_metadata())[it->second];
      m.set_id(it->second);
      m.set_name(name);
    }
    return it->second;
  }
  xplane::XPlane* plane_;
  std::map<std::string, int64_t> events_, stats_;
};

// The GPU profile of three steps of jit_step (times in microseconds from each step's start):
//   step 0 at    0 us, 50 us long; step 1 at 100 us, 60 us; step 2 at 200 us, 55 us (the median)
//   dot.1: one kernel, 20 us (26 us in step 1)
//   add.fusion: two kernels, 4 us at +25 and 2 us at +30
//   memset.7: 1 us at +40, an op the prediction does not know
// Device 1 runs the same steps with every kernel twice as long. A host plane adds noise.
inline std::string step_xspace() {
  xplane::XSpace space;
  space.add_hostnames("host0");
  for (int device = 0; device < 2; ++device) {
    PlaneWriter gpu(space.add_planes(), "/device:GPU:" + std::to_string(device));
    xplane::XLine* modules = gpu.line("XLA Modules", 1000);
    xplane::XLine* stream = gpu.line("Stream #7(compute)", 1000);
    const double scale = device == 0 ? 1 : 2;
    const double starts[] = {0, 100, 200}, lengths[] = {50, 60, 55};
    for (int s = 0; s < 3; ++s) {
      const double t = starts[s];
      gpu.event(modules, "jit_step(3)", t, lengths[s]);
      gpu.event(stream, "sm90_gemm_bf16", t + 1, (s == 1 ? 26 : 20) * scale, "dot.1", "jit_step");
      gpu.event(stream, "loop_add_fusion", t + 25, 4 * scale, "add.fusion", "jit_step");
      gpu.event(stream, "loop_add_fusion_tail", t + 30, 2 * scale, "%add.fusion", "jit_step");
      gpu.event(stream, "memset_kernel", t + 40, 1 * scale, "memset.7", "jit_step");
    }
    // A kernel of another module in between: not ours.
    gpu.event(stream, "other_kernel", 80, 5, "fusion.9", "jit_other");
  }
  PlaneWriter host(space.add_planes(), "/host:CPU");
  xplane::XLine* python = host.line("python", 0);
  host.event(python, "train_step", 0, 300);
  std::string bytes;
  REQUIRE(space.SerializeToString(&bytes));
  return bytes;
}

// The same module on a TPU, as a trace-event JSON (times in microseconds): two steps, the ops
// by name on the "XLA Ops" line, a loop event enclosing the first step's ops.
//   step 0 at 1000 us, 40 us: dot.1 30 us at +2, add.fusion 5 us at +33
//   step 1 at 1100 us, 44 us: dot.1 34 us at +1, add.fusion 5 us at +36
inline constexpr std::string_view kStepTraceJson = R"json({
  "displayTimeUnit": "ns",
  "traceEvents": [
    {"ph": "M", "pid": 3, "name": "process_name", "args": {"name": "/device:TPU:0"}},
    {"ph": "M", "pid": 3, "tid": 1, "name": "thread_name", "args": {"name": "XLA Modules"}},
    {"ph": "M", "pid": 3, "tid": 2, "name": "thread_name", "args": {"name": "XLA Ops"}},
    {"ph": "M", "pid": 9, "name": "process_name", "args": {"name": "/host:CPU"}},
    {"ph": "X", "pid": 9, "tid": 1, "name": "python", "ts": 900, "dur": 400},
    {"ph": "X", "pid": 3, "tid": 1, "name": "jit_step(5)", "ts": 1000, "dur": 40},
    {"ph": "X", "pid": 3, "tid": 2, "name": "while.3", "ts": 1001, "dur": 38},
    {"ph": "X", "pid": 3, "tid": 2, "name": "dot.1", "ts": 1002, "dur": 30},
    {"ph": "X", "pid": 3, "tid": 2, "name": "add.fusion", "ts": 1033, "dur": 5},
    {"ph": "X", "pid": 3, "tid": 1, "name": "jit_step(5)", "ts": 1100, "dur": 44},
    {"ph": "X", "pid": 3, "tid": 2, "name": "dot.1", "ts": 1101, "dur": 34},
    {"ph": "X", "pid": 3, "tid": 2, "name": "add.fusion", "ts": 1136, "dur": 5},
    {"ph": "i", "pid": 3, "tid": 2, "name": "marker", "ts": 1050}
  ]
})json";

}  // namespace hloroof::testing

#endif  // HLOROOF_TESTS_PROFILE_PROFILE_TEST_UTIL_H_
