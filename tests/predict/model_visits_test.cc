// Following one op's time from the prediction to its figure visits each model once: the
// combined model (lib/predict/combined_model.h) asks the roofline and then one model of the
// expected time (a kernel's own estimate, or the device model and, for a measured family, the
// family model after it) for an estimate of the op, or one collective model, and nothing asks
// again. Counted by a ModelObserver over whole predictions of a GPU module of GEMMs, a TPU
// module, a GPU op family and collectives.
#include <catch2/catch.hpp>
#include <array>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "hloroof/instruction.h"
#include "predict/combined_model.h"
#include "predict_test_util.h"

namespace hloroof::predict {
namespace {

using Kinds = std::vector<ModelKind>;

// The models asked for each instruction's estimate, in order.
class Visits : public ModelObserver {
 public:
  Visits() { set_model_observer(this); }
  ~Visits() override { set_model_observer(nullptr); }
  Visits(const Visits&) = delete;
  Visits& operator=(const Visits&) = delete;

  void visited(ModelKind model, const Instruction* instruction) override {
    const std::string name = instruction != nullptr ? std::string(instruction->name()) : "";
    // An op's visits come one after the other: another op's never fall between them.
    if (!order_.empty() && order_.back() != name) CHECK(!by_op_.contains(name));
    if (order_.empty() || order_.back() != name) order_.push_back(name);
    by_op_[name].push_back(model);
    ++total_;
  }
  // The models asked for `name`'s estimate; none for an op never asked for (a memo's).
  Kinds of(const std::string& name) const {
    auto it = by_op_.find(name);
    return it == by_op_.end() ? Kinds{} : it->second;
  }
  const std::map<std::string, Kinds>& by_op() const { return by_op_; }
  int total() const { return total_; }

 private:
  std::map<std::string, Kinds> by_op_;
  std::vector<std::string> order_;
  int total_ = 0;
};

const Kinds kDevice = {ModelKind::kRoofline, ModelKind::kDevice};
const Kinds kFamily = {ModelKind::kRoofline, ModelKind::kDevice, ModelKind::kFamily};
const Kinds kKernel = {ModelKind::kRoofline, ModelKind::kKernelEstimate};
const Kinds kRooflineOnly = {ModelKind::kRoofline};
const Kinds kCollective = {ModelKind::kCollective};

// Every op's visits are one of the ways a time is made, each model at most once.
void check_each_model_once(const Visits& visits, bool roofline_walk) {
  for (const auto& [name, kinds] : visits.by_op()) {
    INFO(name);
    std::array<int, kModelKinds> count{};
    for (const ModelKind k : kinds) ++count[static_cast<size_t>(k)];
    for (const int c : count) CHECK(c <= 1);
    if (roofline_walk) {
      CHECK((kinds == kRooflineOnly || kinds == kCollective));
    } else {
      CHECK((kinds == kDevice || kinds == kFamily || kinds == kKernel || kinds == kCollective ||
             kinds == Kinds{ModelKind::kHostTransfer}));
    }
  }
}

// Two GEMMs of one shape, two elementwise ops and a kernel with XLA's own estimate: five
// kernels, a command buffer (with fewer, each op after the first would wait on its launch).
constexpr const char* kGemms = R"(HloModule gemms, is_scheduled=true
fused_negate {
  p = f32[1024]{0} parameter(0)
  ROOT n = f32[1024]{0} negate(p)
}
ENTRY main {
  a = bf16[512,4096]{1,0} parameter(0)
  w = bf16[4096,4096]{1,0} parameter(1)
  d1 = bf16[512,4096]{1,0} dot(a, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  d2 = bf16[512,4096]{1,0} dot(d1, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  e = bf16[512,4096]{1,0} exponential(d2)
  l = bf16[512,4096]{1,0} exponential(e)
  x = f32[1024]{0} parameter(2)
  k = f32[1024]{0} fusion(x), kind=kCustom, calls=fused_negate, backend_config={"reification_cost":[{"exec_time_us":500,"name":"sol"}]}
  ROOT t = (bf16[512,4096]{1,0}, f32[1024]{0}) tuple(l, k)
}
)";

TEST_CASE("model visits: GEMMs on a GPU, each model once, an op alike another none") {
  for (const bool explain : {false, true}) {
    INFO("explain " << explain);
    PredictOptions options;
    options.explain = explain;
    Visits visits;
    const auto p = testing::predict(kGemms, "h100", options);
    check_each_model_once(visits, false);
    CHECK(visits.of("d1") == kDevice);
    // d2 reads what d1 read (work, GEMM shape, types): its estimate is d1's, asked for once.
    CHECK(visits.of("d2").empty());
    CHECK(p.op("d2").time_s == p.op("d1").time_s);
    CHECK(visits.of("e") == kDevice);
    // l is another exponential of the same shape (the same work, bytes and issue slots): e's
    // estimate too.
    CHECK(visits.of("l").empty());
    CHECK(visits.of("k") == kKernel);
    // d1 2, e 2, k 2: 6 visits for the 3 ops whose estimate is made, 5 ops timed.
    CHECK(visits.total() == 6);
    CHECK(visits.by_op().size() == 3);
  }
}

TEST_CASE("model visits: the roofline walk asks the roofline alone") {
  PredictOptions options;
  options.roofline_only = true;
  Visits visits;
  const auto p = testing::predict(kGemms, "h100", options);
  check_each_model_once(visits, true);
  CHECK(visits.of("d1") == kRooflineOnly);
  CHECK(visits.of("k") == kRooflineOnly);
  CHECK(visits.total() == 3);
}

TEST_CASE("model visits: a TPU's ops take the device model (its fits) once each") {
  Visits visits;
  PredictOptions options;
  options.explain = true;
  const auto p = testing::predict(kGemms, "tpu_v5e", options);
  check_each_model_once(visits, false);
  CHECK(visits.of("d1") == kDevice);
  CHECK(visits.of("e") == kDevice);
  // A TPU reads no kernel estimate: k is timed by the device model too.
  CHECK(visits.of("k") == kDevice);
  CHECK(visits.total() == 6);
  CHECK_THAT(std::string(p.op("d1").explanation()), Catch::Contains("expected = per-op fixed"));
}

TEST_CASE("model visits: a GPU op family after the device model, once each") {
  // A scatter of 4194304 rows into 64 (the scatter family, gpu_families.h).
  constexpr const char* kScatter = R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  t = f32[64,64] parameter(0)
  i = s32[4194304,1] parameter(1)
  u = f32[4194304,64] parameter(2)
  ROOT s = f32[64,64] scatter(t, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
})";
  Visits visits;
  const auto p = testing::predict(kScatter, "h200");
  check_each_model_once(visits, false);
  CHECK(visits.of("s") == kFamily);
  CHECK_THAT(std::string(p.op("s").model()), Catch::Contains("measured family model"));
  CHECK(visits.total() == 3);
}

TEST_CASE("model visits: a collective asks one collective model, once for alike ones") {
  // Two all-reduces of the same bytes over the same 8 devices, and one of other bytes.
  constexpr const char* kCollectives = R"(HloModule m, is_scheduled=true, num_partitions=8
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p = f32[1048576]{0} parameter(0)
  r1 = f32[1048576]{0} all-reduce(p), channel_id=1, replica_groups={{0,1,2,3,4,5,6,7}}, use_global_device_ids=true, to_apply=add
  r2 = f32[1048576]{0} all-reduce(r1), channel_id=2, replica_groups={{0,1,2,3,4,5,6,7}}, use_global_device_ids=true, to_apply=add
  q = f32[4096]{0} parameter(1)
  r3 = f32[4096]{0} all-reduce(q), channel_id=3, replica_groups={{0,1,2,3,4,5,6,7}}, use_global_device_ids=true, to_apply=add
  ROOT t = (f32[1048576]{0}, f32[4096]{0}) tuple(r2, r3)
}
)";
  for (const char* device : {"h100", "tpu_v5e"}) {
    INFO(device);
    PredictOptions options;
    options.explain = true;
    Visits visits;
    const auto p = testing::predict(kCollectives, device, options);
    check_each_model_once(visits, false);
    CHECK(visits.of("r1") == kCollective);
    CHECK(visits.of("r2").empty());  // r1's estimate, made once
    CHECK(visits.of("r3") == kCollective);
    CHECK(visits.total() == 2);
    CHECK(p.op("r2").time_s == p.op("r1").time_s);
    CHECK(p.op("r2").explanation() == p.op("r1").explanation());
  }
}

}  // namespace
}  // namespace hloroof::predict
