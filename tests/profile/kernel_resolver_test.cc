// The kernel resolver on small hand-made launches: which instruction each kernel of a CUDA
// graph gets, when it cannot tell, and how much work it may do.
#include <catch2/catch.hpp>
#include <deque>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hloroof/hlo_text.h"
#include "hloroof/profile.h"
#include "predict_on.h"
#include "profile/profile_internal.h"
#include "require_ok.h"

namespace hloroof {
namespace {

using profile_internal::OpEvent;

// A loop fusion, three cuBLAS calls and another loop fusion, in this schedule order.
constexpr std::string_view kCalls = R"(HloModule jit_calls

fused_negate {
  p = f32[1024]{0} parameter(0)
  ROOT n = f32[1024]{0} negate(p)
}

ENTRY main {
  w = bf16[64,64]{1,0} parameter(0)
  x = f32[1024]{0} parameter(1)
  first_fusion = f32[1024]{0} fusion(x), kind=kLoop, calls=fused_negate
  cc.1 = (bf16[64,64]{1,0}, s8[1024]{0}) custom-call(w, w), custom_call_target="__cublas$lt$matmul"
  g.1 = bf16[64,64]{1,0} get-tuple-element(cc.1), index=0
  cc.2 = (bf16[64,64]{1,0}, s8[64]{0}) custom-call(g.1, w), custom_call_target="__cublas$lt$matmul"
  g.2 = bf16[64,64]{1,0} get-tuple-element(cc.2), index=0
  cc.3 = (bf16[64,64]{1,0}, s8[64]{0}) custom-call(g.2, w), custom_call_target="__cublas$lt$matmul"
  g.3 = bf16[64,64]{1,0} get-tuple-element(cc.3), index=0
  negate_fusion = f32[1024]{0} fusion(first_fusion), kind=kLoop, calls=fused_negate
  ROOT t = (bf16[64,64]{1,0}, f32[1024]{0}) tuple(g.3, negate_fusion)
}
)";

// Kernels of graph launches: the events (kept alive) and their OpEvents.
struct Launches {
  std::deque<ProfileEvent> events;
  std::vector<OpEvent> ops;
  // One launch (correlation id `launch`) of "command_buffer_1" running `kernels` in order.
  void add(uint64_t launch, const std::vector<std::string>& kernels) {
    for (const std::string& k : kernels) {
      ProfileEvent& e = events.emplace_back();
      e.name = k;
      e.hlo_op = "command_buffer_1";
      e.correlation_id = launch;
      e.start_s = static_cast<double>(events.size()) * 1e-6;
      e.duration_s = 0.5e-6;
      ops.push_back({&e, e.hlo_op, "stream"});
    }
  }
  std::vector<std::string> placed() const {
    std::vector<std::string> out;
    for (const OpEvent& e : ops) out.emplace_back(e.op);
    return out;
  }
};

TEST_CASE("graph kernels: a cuBLAS call's workspace memset goes with the call after it") {
  absl::StatusOr<Module> m = parse_module(kCalls);
  REQUIRE_OK(m);
  Launches l;
  // cc.1 and cc.2 clear their workspace first, cc.3 does not (XLA's gemm_sweep capture ran
  // this pattern; with the memset free on either side, each call got the kernel before its own).
  l.add(7, {"Memset 0", "nvjet_big", "Memset 0", "nvjet_small", "nvjet_other", "negate_fusion"});
  const profile_internal::KernelResolution r = profile_internal::resolve_kernels(*m, l.ops);
  CHECK(r.unknown == 6);
  CHECK(r.resolved == 6);
  CHECK(!r.cut_short);
  CHECK(r.uncertain.empty());
  CHECK(l.placed() ==
        std::vector<std::string>{"cc.1", "cc.1", "cc.2", "cc.2", "cc.3", "negate_fusion"});
}

TEST_CASE("graph kernels: a kernel that fits two instructions alike is marked uncertain") {
  absl::StatusOr<Module> m = parse_module(kCalls);
  REQUIRE_OK(m);
  Launches l;
  // Two GEMM kernels for three calls: either call may be the one that launched nothing.
  l.add(3, {"first_fusion", "nvjet_a", "nvjet_b", "negate_fusion"});
  const profile_internal::KernelResolution r = profile_internal::resolve_kernels(*m, l.ops);
  CHECK(r.resolved == 4);
  // Skipping cc.1, cc.2 or cc.3 costs the same: all three are uncertain, the fusions are not.
  CHECK(r.uncertain == std::vector<std::string>{"cc.1", "cc.2", "cc.3"});
}

TEST_CASE("the join does not rank an op whose kernels are uncertain") {
  absl::StatusOr<Module> m = parse_module(kCalls);
  REQUIRE_OK(m);
  Profile p;
  p.origin = "made by hand";
  ProfilePlane& plane = p.planes.emplace_back();
  plane.name = "/device:GPU:0";
  ProfileLine& line = plane.lines.emplace_back();
  line.name = "Stream #7";
  for (const char* k : {"first_fusion", "nvjet_a", "nvjet_b", "negate_fusion"}) {
    ProfileEvent& e = line.events.emplace_back();
    e.name = k;
    e.hlo_op = "command_buffer_1";
    e.correlation_id = 1;
    e.start_s = static_cast<double>(line.events.size()) * 1e-5;
    e.duration_s = 5e-6;
  }
  absl::StatusOr<Prediction> prediction = testing::predict_on(*m, "h100");
  REQUIRE_OK(prediction);
  absl::StatusOr<ProfileComparison> c = compare_with_profile(*m, *prediction, p);
  REQUIRE_OK(c);
  // The two calls that got a kernel, ranked after the fusions whatever they lost.
  REQUIRE(c->ops.size() == 4);
  CHECK(!c->ops[0].alignment_uncertain);
  CHECK(!c->ops[1].alignment_uncertain);
  CHECK(c->ops[2].alignment_uncertain);
  CHECK(c->ops[3].alignment_uncertain);
  const std::string text = render_profile_comparison(*c);
  CHECK(text.find("Not ranked (2)") != std::string::npos);
  CHECK(profile_comparison_to_json(*c).find("\"alignment_uncertain\": true") !=
        std::string::npos);
}

// A module of `n` loop fusions and, per fusion, a kernel of a name the text does not print
// between the first fusion's kernel and the last one's: every run spans the whole schedule.
std::string chain(int n) {
  std::string text = "HloModule jit_chain\n\nfused_negate {\n  p = f32[64]{0} parameter(0)\n"
                     "  ROOT n = f32[64]{0} negate(p)\n}\n\nENTRY main {\n"
                     "  f.0 = f32[64]{0} parameter(0)\n";
  for (int k = 1; k <= n; ++k) {
    absl::StrAppend(&text, "  f.", k, " = f32[64]{0} fusion(f.", k - 1,
                    "), kind=kLoop, calls=fused_negate\n");
  }
  absl::StrAppend(&text, "  ROOT r = f32[64]{0} copy(f.", n, ")\n}\n");
  return text;
}

TEST_CASE("kernel resolution's work is bounded, and it says when it was cut short") {
  constexpr int kFusions = 2000, kRuns = 400;
  absl::StatusOr<Module> m = parse_module(chain(kFusions));
  REQUIRE_OK(m);
  std::deque<ProfileEvent> events;
  std::vector<OpEvent> ops;
  uint64_t id = 0;
  const auto add = [&](std::string name, std::string op) {
    ProfileEvent& e = events.emplace_back();
    e.name = std::move(name);
    e.hlo_op = std::move(op);
    e.correlation_id = ++id;
    e.start_s = static_cast<double>(id) * 1e-6;
    e.duration_s = 0.5e-6;
    ops.push_back({&e, e.hlo_op, "stream"});
  };
  for (int k = 0; k < kRuns; ++k) {
    add("f_1", "f.1");
    add(absl::StrCat("hidden_", k), absl::StrCat("hidden.", k));  // a name no instruction has
    add(absl::StrCat("f_", kFusions), absl::StrCat("f.", kFusions));
  }
  // Unbounded, each run scans the ~2000 instructions between f.1 and f.2000 and aligns its
  // kernel with them: 400 x 2 x 1998 = 1.6M units of work.
  const int64_t limit = 200'000;
  std::vector<OpEvent> copy = ops;
  const profile_internal::KernelResolution r = profile_internal::resolve_kernels(*m, copy, limit);
  CHECK(r.unknown == kRuns);
  CHECK(r.cut_short);
  CHECK(r.work <= limit);
  CHECK(r.resolved > 0);
  CHECK(r.resolved < kRuns);
  // The default limit holds all of it.
  copy = ops;
  const profile_internal::KernelResolution all = profile_internal::resolve_kernels(*m, copy);
  CHECK(!all.cut_short);
  CHECK(all.resolved == kRuns);
  CHECK(all.work > limit);
  CHECK(all.work <= profile_internal::kMaxResolutionWork);
}

TEST_CASE("graph launches that ran alike are aligned once") {
  absl::StatusOr<Module> m = parse_module(kCalls);
  REQUIRE_OK(m);
  const std::vector<std::string> kernels = {"Memset 0", "nvjet_big", "Memset 0", "nvjet_small",
                                            "nvjet_other", "negate_fusion"};
  Launches one, many;
  one.add(1, kernels);
  for (uint64_t k = 1; k <= 100; ++k) many.add(k, kernels);
  const auto a = profile_internal::resolve_kernels(*m, one.ops);
  const auto b = profile_internal::resolve_kernels(*m, many.ops);
  CHECK(b.resolved == 600);
  CHECK(b.work == a.work);
}

}  // namespace
}  // namespace hloroof
