// Collectives through the whole pipeline: payload and groups read from the HLO, placed on the
// slice's topology and timed. The worked examples C1-C14, written as HLO,
// and hand-derived cases for each kind.
#include <catch2/catch.hpp>

#include "absl/strings/str_format.h"
#include "predict_on.h"
#include "predict_test_util.h"
#include "require_ok.h"

namespace hloroof {
namespace {

// The worked examples check the roofline's arithmetic: on TPUs they take roofline_only (the
// expected time adds the ICI fit to the measured TPU7x all-gathers: tpu_models_test).
testing::Predicted predict(std::string_view text, std::string_view device,
                           PredictOptions options = {}) {
  if (device.substr(0, 3) == "tpu") options.roofline_only = true;
  return testing::predict(text, device, options);
}
// A spec on a slice (testing::on): any shape the model can time, a line of chips included.
testing::Predicted predict(std::string_view text, const DeviceTarget& device,
                           PredictOptions options = {}) {
  if (device.spec.kind == DeviceKind::kTpu) options.roofline_only = true;
  return testing::predict(text, device, options);
}

constexpr double kGiB = 1024.0 * 1024 * 1024;
constexpr double kLaunch = 2e-6;  // h100 collective launch latency, in h100.json (its shortest
                                  // measured collective, 2.56 us, rounded down)

// A module of `devices` partitions whose entry runs `op` on parameter p of shape `in`.
std::string module(int devices, std::string_view in, std::string_view op) {
  return absl::StrFormat(R"(HloModule m, num_partitions=%d
add { x = f32[] parameter(0)  y = f32[] parameter(1)  ROOT s = f32[] add(x, y) }
addh { x = bf16[] parameter(0)  y = bf16[] parameter(1)  ROOT s = bf16[] add(x, y) }
ENTRY e {
  p = %s parameter(0)
  %s
})",
                         devices, in, op);
}

const CollectivePrediction& collective(const testing::Predicted& p, std::string_view name) {
  const OpPrediction& op = p.op(name);
  REQUIRE(op.collective.has_value());
  return *op.collective;
}

PredictOptions large_n() {
  PredictOptions o;
  o.collective_large_n = true;
  return o;
}

TEST_CASE("C1: reduce-scatter over the two cores of a TPU v2 chip") {
  // bf16[8,1024,8192] = 134,217,728 B reduce-scattered over 2 devices: 1.342e8 / 1.2e11 =
  // 1.118 ms (1.13 ms in the profile).
  auto p = predict(module(8, "bf16[8,1024,8192]",
                          "ROOT rs = bf16[4,1024,8192] reduce-scatter(p), channel_id=1, "
                          "replica_groups={{0,1},{2,3},{4,5},{6,7}}, use_global_device_ids=true, "
                          "dimensions={0}, to_apply=addh"),
                   "tpu_v2:2x2");
  const CollectivePrediction& c = collective(p, "rs");
  CHECK(c.payload_bytes == 134217728);
  CHECK(c.group_size == 2);
  CHECK(c.time_s == Approx(1.118e-3).epsilon(0.001));
  CHECK(p->step_time_s == Approx(c.time_s));
  CHECK(p.op("rs").bound == BoundBy::kCollective);
  CHECK(p->breakdown.collective_exposed_s == Approx(c.time_s));
}

TEST_CASE("C2, C3: all-gather along the 4-chip axis of a v5e 8x4 (no wraparound)") {
  // Groups {x, x+8, x+16, x+24} run along y. C2: V = bf16[2048,8192] = 33,554,432 B:
  // 3 x 8.39e6 / 4.5e10 = 559.2 us (680 us measured).
  auto c2 = predict(module(32, "bf16[512,8192]",
                           "ROOT ag = bf16[2048,8192] all-gather(p), channel_id=1, "
                           "replica_groups=[8,4]<=[4,8]T(1,0), use_global_device_ids=true, "
                           "dimensions={0}"),
                    "tpu_v5e:8x4");
  CHECK(collective(c2, "ag").payload_bytes == 33554432);
  CHECK(collective(c2, "ag").time_s == Approx(559.2e-6).epsilon(0.0005));
  CHECK_THAT(collective(c2, "ag").formula, Catch::Contains("line"));
  // C3: E = F = 256: V = 131,072 B, latency bound at 3 hops of 1 us: 3 us (8 us measured).
  auto c3 = predict(module(32, "bf16[64,256]",
                           "ROOT ag = bf16[256,256] all-gather(p), channel_id=1, "
                           "replica_groups=[8,4]<=[4,8]T(1,0), use_global_device_ids=true, "
                           "dimensions={0}"),
                    "tpu_v5e:8x4");
  CHECK(collective(c3, "ag").time_s == Approx(3e-6));
}

TEST_CASE("C4-C7: gathers and reductions on a TPU v4 4x4x4, every axis a ring") {
  // The scaling book's forms are large-N (V / W_bi); W_bi = 2 x 4.5e10 = 9e10.
  // C4: AllGather_X of [B_X, D_Y], B = 1024, D = 4096: each Y slice gathers 2BD / 4 = 2 MiB:
  // 2,097,152 / 9e10 = 23.3 us.
  auto c4 = predict(module(64, "bf16[256,1024]",
                           "ROOT ag = bf16[1024,1024] all-gather(p), channel_id=1, "
                           "replica_groups=[16,4]<=[64], use_global_device_ids=true, "
                           "dimensions={0}"),
                    "tpu_v4:4x4x4", large_n());
  CHECK(collective(c4, "ag").time_s == Approx(23.3e-6).epsilon(0.001));
  // Exact ring form: (N-1)/N of it.
  auto exact = predict(module(64, "bf16[256,1024]",
                              "ROOT ag = bf16[1024,1024] all-gather(p), channel_id=1, "
                              "replica_groups=[16,4]<=[64], use_global_device_ids=true, "
                              "dimensions={0}"),
                       "tpu_v4:4x4x4");
  CHECK(collective(exact, "ag").time_s == Approx(0.75 * 2097152 / 9e10));
  // C5: AllGather_XY: 2BD = 8 MiB over an x-y plane of 16, two rings: 8,388,608 / 1.8e11 =
  // 46.6 us.
  auto c5 = predict(module(64, "bf16[64,4096]",
                           "ROOT ag = bf16[1024,4096] all-gather(p), channel_id=1, "
                           "replica_groups=[4,16]<=[64], use_global_device_ids=true, "
                           "dimensions={0}"),
                    "tpu_v4:4x4x4", large_n());
  CHECK(collective(c5, "ag").time_s == Approx(46.6e-6).epsilon(0.001));
  // C6: AllReduce_Z of the 2BD / 16 = 524,288 B shard: 2 x 524,288 / 9e10 = 11.65 us.
  auto c6 = predict(module(64, "bf16[256,1024]",
                           "ROOT ar = bf16[256,1024] all-reduce(p), channel_id=1, "
                           "replica_groups=[16,4]<=[4,16]T(1,0), use_global_device_ids=true, "
                           "to_apply=addh"),
                    "tpu_v4:4x4x4", large_n());
  CHECK(collective(c6, "ar").time_s == Approx(11.65e-6).epsilon(0.001));
  // C7: AllGather_X of bf16[128]: 256 B, latency bound at 2 hops: 2 us.
  auto c7 = predict(module(64, "bf16[32]",
                           "ROOT ag = bf16[128] all-gather(p), channel_id=1, "
                           "replica_groups=[16,4]<=[64], use_global_device_ids=true, "
                           "dimensions={0}"),
                    "tpu_v4:4x4x4");
  CHECK(collective(c7, "ag").time_s == Approx(2e-6));
}

TEST_CASE("C8: a transfer across a v5e 4x4 corner to corner") {
  // bf16[8,128,8192] = 16,777,216 B from {0,0} to {3,3} over both ports: 186.4 us of bandwidth
  // plus 6 hops of 1 us = 192.4 us.
  auto p = predict(module(16, "bf16[8,128,8192]",
                          "ROOT cp = bf16[8,128,8192] collective-permute(p), channel_id=1, "
                          "source_target_pairs={{0,15}}"),
                   "tpu_v5e:4x4");
  CHECK(collective(p, "cp").payload_bytes == 16777216);
  CHECK(collective(p, "cp").time_s == Approx(192.4e-6).epsilon(0.0005));
}

TEST_CASE("C9: every kind over a full v5e axis of 16, and over a line of 8") {
  // V = bf16[2048,8192] = 33.6 MB along x of a 16x16 (a ring): all-gather V (N-1)/(N W_bi) =
  // 349.5 us (373 us large-N); reduce-scatter the same; all-reduce twice; all-to-all
  // V / (4 W_bi) = 93.2 us.
  const std::string groups = "replica_groups=[16,16]<=[256], use_global_device_ids=true";
  auto ag = predict(module(256, "bf16[128,8192]",
                           "ROOT c = bf16[2048,8192] all-gather(p), channel_id=1, " + groups +
                               ", dimensions={0}"),
                    "tpu_v5e:16x16");
  CHECK(collective(ag, "c").time_s == Approx(349.5e-6).epsilon(0.0005));
  auto ag_book = predict(module(256, "bf16[128,8192]",
                                "ROOT c = bf16[2048,8192] all-gather(p), channel_id=1, " + groups +
                                    ", dimensions={0}"),
                         "tpu_v5e:16x16", large_n());
  CHECK(collective(ag_book, "c").time_s == Approx(372.8e-6).epsilon(0.0005));
  auto rs = predict(module(256, "f32[2048,4096]",
                           "ROOT c = f32[128,4096] reduce-scatter(p), channel_id=1, " + groups +
                               ", dimensions={0}, to_apply=add"),
                    "tpu_v5e:16x16");
  CHECK(collective(rs, "c").payload_bytes == 33554432);
  CHECK(collective(rs, "c").time_s == Approx(349.5e-6).epsilon(0.0005));
  auto ar = predict(
      module(256, "bf16[2048,8192]",
             "ROOT c = bf16[2048,8192] all-reduce(p), channel_id=1, " + groups + ", to_apply=addh"),
      "tpu_v5e:16x16");
  CHECK(collective(ar, "c").time_s == Approx(2 * 349.5e-6).epsilon(0.0005));
  // all-to-all: V is N times one device's input, 16 x bf16[128,8192].
  auto a2a = predict(module(256, "bf16[128,8192]",
                            "ROOT c = bf16[128,8192] all-to-all(p), channel_id=1, "
                            "replica_groups=[16,16]<=[256], dimensions={0}"),
                     "tpu_v5e:16x16");
  CHECK(collective(a2a, "c").payload_bytes == 33554432);
  CHECK(collective(a2a, "c").time_s == Approx(93.2e-6).epsilon(0.0005));
  // On an axis of 8 (no wraparound, a line): V 7/8 / 4.5e10 = 652.4 us; all-reduce 1305 us.
  auto line = predict(module(64, "bf16[256,8192]",
                             "ROOT c = bf16[2048,8192] all-gather(p), channel_id=1, "
                             "replica_groups=[8,8]<=[64], use_global_device_ids=true, "
                             "dimensions={0}"),
                      "tpu_v5e:8x8");
  CHECK(collective(line, "c").time_s == Approx(652.4e-6).epsilon(0.0005));
  auto line_ar = predict(module(64, "bf16[2048,8192]",
                                "ROOT c = bf16[2048,8192] all-reduce(p), channel_id=1, "
                                "replica_groups=[8,8]<=[64], use_global_device_ids=true, "
                                "to_apply=addh"),
                         "tpu_v5e:8x8");
  CHECK(collective(line_ar, "c").time_s == Approx(1304.9e-6).epsilon(0.0005));
}

TEST_CASE("C10, C11: all-gathers inside an 8xH100 node") {
  // C10: bf16[4096,65536] = 512 MiB: V 7 / (8 x 450e9) = 1.04 ms (1.5 ms measured), plus the
  // 2 us launch.
  auto c10 = predict(module(8, "bf16[512,65536]",
                            "ROOT ag = bf16[4096,65536] all-gather(p), channel_id=1, "
                            "replica_groups={{0,1,2,3,4,5,6,7}}, use_global_device_ids=true, "
                            "dimensions={0}"),
                     "h100", testing::roofline_only());
  CHECK(collective(c10, "ag").time_s == Approx(1.04e-3 + kLaunch).epsilon(0.004));
  // C11: bf16[1024,16384]: 33,554,432 x 7 / (8 x 450e9) = 65.2 us, plus the launch.
  auto c11 = predict(module(8, "bf16[128,16384]",
                            "ROOT ag = bf16[1024,16384] all-gather(p), channel_id=1, "
                            "replica_groups={{0,1,2,3,4,5,6,7}}, use_global_device_ids=true, "
                            "dimensions={0}"),
                     "h100:1x8", testing::roofline_only());
  CHECK(collective(c11, "ag").time_s == Approx(65.2e-6 + kLaunch).epsilon(0.001));
  // Expected: the fitted 8-GPU all-gather of the measured H100 table, slower than the
  // roofline; its throughput never beats the table's best (1 GiB-class all-gathers reach
  // about 200 GB/s of algorithm bandwidth; this one moves 33.5 MB).
  auto e11 = predict(module(8, "bf16[128,16384]",
                            "ROOT ag = bf16[1024,16384] all-gather(p), channel_id=1, "
                            "replica_groups={{0,1,2,3,4,5,6,7}}, use_global_device_ids=true, "
                            "dimensions={0}"),
                     "h100:1x8");
  CHECK(collective(e11, "ag").time_s > 65.2e-6 + kLaunch);
  CHECK(e11.op("ag").model() == "collective fit h100 (measured, fitted)");
}

TEST_CASE("C12: an all-gather over two H100 nodes is bound inside the nodes") {
  // 1 GiB gathered over 16 GPUs: node level V 7 / (8 x 450e9) = V / 514.3e9 beats the scale-out
  // level V / 800e9.
  auto p = predict(module(16, "bf16[1,33554432]",
                          "ROOT ag = bf16[16,33554432] all-gather(p), channel_id=1, "
                          "replica_groups=[1,16]<=[16], use_global_device_ids=true, "
                          "dimensions={0}"),
                   "h100:2x8", testing::roofline_only());
  CHECK(collective(p, "ag").time_s == Approx(kGiB / 514.3e9 + kLaunch).epsilon(0.001));
}

TEST_CASE("C13: XLA's NCCL model for an all-reduce of 1 GiB over 8 H100") {
  PredictOptions nccl = testing::roofline_only();
  nccl.collective_formula = CollectiveFormula::kXlaGpuNccl;
  // Sync: XLA's 5 us launch overhead + 2^31 B / 189.26e9 = 11.35 ms.
  auto sync = predict(module(8, "f32[268435456]",
                             "ROOT ar = f32[268435456] all-reduce(p), channel_id=1, "
                             "replica_groups={{0,1,2,3,4,5,6,7}}, use_global_device_ids=true, "
                             "to_apply=add"),
                      "h100", nccl);
  CHECK(collective(sync, "ar").time_s == Approx(11.35e-3).epsilon(0.001));
  // all-reduce-start is charged V, not 2V: 5.68 ms, all of it exposed here.
  auto start = predict(module(8, "f32[268435456]",
                              "ars = f32[268435456] all-reduce-start(p), channel_id=1, "
                              "replica_groups={{0,1,2,3,4,5,6,7}}, use_global_device_ids=true, "
                              "to_apply=add\n  ROOT ard = f32[268435456] all-reduce-done(ars)"),
                       "h100", nccl);
  CHECK(collective(start, "ars").time_s == Approx(5.68e-3).epsilon(0.001));
  CHECK(start->step_time_s == Approx(collective(start, "ars").time_s));
}

TEST_CASE("C14: XLA's speed-of-light model over 2 nodes x 8 H100") {
  PredictOptions sol = testing::roofline_only();
  sol.collective_formula = CollectiveFormula::kXlaGpuSol;
  auto ar = predict(module(16, "f32[268435456]",
                           "ROOT ar = f32[268435456] all-reduce(p), channel_id=1, "
                           "replica_groups=[1,16]<=[16], use_global_device_ids=true, "
                           "to_apply=add"),
                    "h100:2x8", sol);
  CHECK(collective(ar, "ar").time_s == Approx(10.84e-3).epsilon(0.001));
  auto ag = predict(module(16, "f32[16777216]",
                           "ROOT ag = f32[268435456] all-gather(p), channel_id=1, "
                           "replica_groups=[1,16]<=[16], use_global_device_ids=true, "
                           "dimensions={0}"),
                    "h100:2x8", sol);
  CHECK(collective(ag, "ag").time_s == Approx(5.44e-3).epsilon(0.001));
}

TEST_CASE("a collective-permute round a ring: every link busy once") {
  // f32[1048576] = 4 MiB to the next chip of a v5e 16-ring (x of 16x1... as 16x16's first row):
  // one hop, one link: 4,194,304 / 4.5e10 + 1 us.
  auto p = predict(module(4, "f32[1048576]",
                          "ROOT cp = f32[1048576] collective-permute(p), channel_id=1, "
                          "source_target_pairs={{0,1},{1,3},{3,2},{2,0}}"),
                   "tpu_v5e:2x2");
  CHECK(collective(p, "cp").time_s == Approx(4194304 / 4.5e10 + 1e-6));
  CHECK(collective(p, "cp").group_size == 2);
}

TEST_CASE("send and recv take their peers from the frontend attribute") {
  // f32[1048576] from device 0 to device 3 of a v5e 4x1 line: 3 hops; bandwidth over one link.
  const char* text = R"(HloModule m, num_partitions=4
ENTRY e {
  p = f32[1048576] parameter(0)
  t = token[] after-all()
  s = (f32[1048576], u32[], token[]) send(p, t), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs={{0,3}}}
  sd = token[] send-done(s), channel_id=1
  ROOT r = f32[1048576] negate(p)
})";
  auto p = predict(text, testing::on(*device("tpu_v5e"), "4x1"));
  const CollectivePrediction& c = collective(p, "s");
  CHECK(c.kind == "send");
  CHECK(c.time_s == Approx(4194304 / 4.5e10 + 3e-6));
  CHECK(p.op("s").async.has_value());
  CHECK(!p.assumes("does not list its peers"));
}

TEST_CASE("send/recv peers count when the topology is inferred") {
  // No num_partitions: the peers {0,3} name 4 devices, so a 2x2 is inferred, not 1x1.
  auto p = predict(R"(HloModule m
ENTRY e {
  p = f32[1024] parameter(0)
  t = token[] after-all()
  s = (f32[1024], u32[], token[]) send(p, t), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs={{0,3}}}
  ROOT sd = token[] send-done(s), channel_id=1
})",
                   "tpu_v5e");
  CHECK(p->topology == "2x2");
  CHECK(collective(p, "s").time_s > 0);
}

TEST_CASE("a send without peers is timed as a neighbour transfer, and says so") {
  const char* text = R"(HloModule m, num_partitions=4
ENTRY e {
  p = f32[1048576] parameter(0)
  t = token[] after-all()
  s = (f32[1048576], u32[], token[]) send(p, t), channel_id=1
  ROOT sd = token[] send-done(s), channel_id=1
})";
  auto p = predict(text, testing::on(*device("tpu_v5e"), "4x1"));
  CHECK(collective(p, "s").time_s == Approx(4194304 / 4.5e10 + 1e-6));
  CHECK(p.assumes("s: the HLO does not list its peers"));
}

TEST_CASE("host transfers cross the host link, not the network") {
  // 4 MiB over PCIe at 1.6e10 B/s (v5e host link).
  const char* text = R"(HloModule m
ENTRY e {
  p = f32[1048576] parameter(0)
  t = token[] after-all()
  s = (f32[1048576], u32[], token[]) send(p, t), channel_id=1, is_host_transfer=true
  ROOT sd = token[] send-done(s), channel_id=1, is_host_transfer=true
})";
  auto p = predict(text, "tpu_v5e");
  CHECK(collective(p, "s").time_s == Approx(4194304 / 1.6e10));
  CHECK(collective(p, "s").formula == "host transfer: V / W_host");
  CHECK(p->step_time_s == Approx(4194304 / 1.6e10));
}

TEST_CASE("a collective-broadcast pipelines the buffer round a ring") {
  // bf16[2048,8192] = 33,554,432 B from the root of a v5e 16-ring: half each way, V / W_bi, plus
  // 8 hops of 1 us.
  auto p = predict(module(256, "bf16[2048,8192]",
                          "ROOT b = bf16[2048,8192] collective-broadcast(p), channel_id=1, "
                          "replica_groups=[16,16]<=[256]"),
                   "tpu_v5e:16x16");
  CHECK(collective(p, "b").kind == "collective-broadcast");
  CHECK(collective(p, "b").time_s == Approx(33554432 / 9e10 + 8e-6));
}

TEST_CASE("across two v5e slices an all-gather crosses the data-center network") {
  // f32[268435456] = 1 GiB gathered by devices 0 and 16, one per slice of 4x4: only DCN,
  // V / 2 / 3.125e9 + 20 us of DCN latency. That latency is an assumed figure: said so.
  auto p = predict(module(32, "f32[134217728]",
                          "ROOT ag = f32[268435456] all-gather(p), channel_id=1, "
                          "replica_groups=[16,2]<=[2,16]T(1,0), use_global_device_ids=true, "
                          "dimensions={0}"),
                   "tpu_v5e:4x4,slices=2");
  CHECK(collective(p, "ag").time_s == Approx(kGiB / 2 / 3.125e9 + 20e-6));
  CHECK(p.assumes("interconnect.dcn_latency"));
  // The expected time (not only the roofline) says which DCN figures stand in, and how far off
  // they could be.
  auto expected = testing::predict(module(32, "f32[134217728]",
                                          "ROOT ag = f32[268435456] all-gather(p), channel_id=1, "
                                          "replica_groups=[16,2]<=[2,16]T(1,0), "
                                          "use_global_device_ids=true, dimensions={0}"),
                                   "tpu_v5e:4x4,slices=2");
  CHECK(expected.assumes("tpu_v5e across slices: DCN at its published line rate, 3.125e+09 B/s"));
  CHECK(expected.assumes("up to 1.6x (1 / 0.64) longer"));
  CHECK_FALSE(p.assumes("across slices"));  // the roofline alone assumes no efficiency
  // Inside one slice the DCN figures play no part.
  auto one = predict(module(16, "f32[1024]",
                            "ROOT ag = f32[4096] all-gather(p), channel_id=1, "
                            "replica_groups=[4,4]<=[16], use_global_device_ids=true, "
                            "dimensions={0}"),
                     "tpu_v5e:4x4");
  CHECK(!one.assumes("dcn"));
  CHECK(!one.assumes("across slices"));
}

TEST_CASE("recv takes its peers from the frontend attribute too") {
  const char* text = R"(HloModule m, num_partitions=4
ENTRY e {
  t = token[] after-all()
  r = (f32[1048576], u32[], token[]) recv(t), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs={{1,2}}}
  rd = (f32[1048576], token[]) recv-done(r), channel_id=1
  ROOT x = f32[1048576] get-tuple-element(rd), index=0
})";
  // 4 MiB between neighbours of a v5e 4x1 line: one link, one hop.
  auto p = predict(text, testing::on(*device("tpu_v5e"), "4x1"));
  CHECK(collective(p, "r").kind == "recv");
  CHECK(collective(p, "r").payload_bytes == 4194304);
  CHECK(collective(p, "r").time_s == Approx(4194304 / 4.5e10 + 1e-6));
  CHECK(p->step_time_s == Approx(collective(p, "r").time_s));
  CHECK(p.op("rd").time_s == Approx(collective(p, "r").time_s));
}

TEST_CASE("a strided group is a conservative bound, flagged") {
  // Every second chip of a v5e 8-line: the span is the whole line, bounded as a line of 8.
  auto p = predict(module(8, "f32[1048576]",
                          "ROOT ag = f32[4194304] all-gather(p), channel_id=1, "
                          "replica_groups={{0,2,4,6},{1,3,5,7}}, use_global_device_ids=true, "
                          "dimensions={0}"),
                   testing::on(*device("tpu_v5e"), "8x1"));
  CHECK(collective(p, "ag").approximate);
  CHECK(p.assumes("conservative bound"));
}

TEST_CASE("groups without ids: cross-replica all-reduce over every replica") {
  // replica_groups={} with replica_count=4: one group of all four chips of a 2x2.
  auto p = predict(R"(HloModule m, replica_count=4
add { x = f32[] parameter(0)  y = f32[] parameter(1)  ROOT s = f32[] add(x, y) }
ENTRY e {
  p = f32[1048576] parameter(0)
  ROOT ar = f32[1048576] all-reduce(p), replica_groups={}, to_apply=add
})",
                   "tpu_v5e");
  CHECK(p->topology == "2x2");
  CHECK(collective(p, "ar").group_size == 4);
  CHECK(collective(p, "ar").time_s > 0);
}

TEST_CASE("collective errors name the op; a topology too small is refused") {
  absl::StatusOr<Module> m =
      parse_module(module(16, "f32[1024]",
                          "ROOT ag = f32[16384] all-gather(p), channel_id=1, "
                          "replica_groups=[1,16]<=[16], use_global_device_ids=true, "
                          "dimensions={0}"));
  REQUIRE_OK(m);
  absl::StatusOr<Prediction> small = testing::predict_on(*m, "tpu_v5e:2x2");
  REQUIRE(!small.ok());
  CHECK_THAT(std::string(small.status().message()), Catch::Contains("has 4 devices"));
  // XLA's GPU models do not apply to TPUs.
  PredictOptions nccl = testing::roofline_only();
  nccl.collective_formula = CollectiveFormula::kXlaGpuNccl;
  absl::StatusOr<Prediction> tpu = testing::predict_on(*m, "tpu_v5e:4x4", nccl);
  REQUIRE(!tpu.ok());
  CHECK_THAT(std::string(tpu.status().message()), Catch::Contains("not a GPU"));
  // An id beyond the module's devices, on a topology given explicitly.
  absl::StatusOr<Module> beyond = parse_module(module(
      4, "f32[1024]",
      "ROOT cp = f32[1024] collective-permute(p), channel_id=1, source_target_pairs={{0,9}}"));
  REQUIRE_OK(beyond);
  absl::StatusOr<Prediction> out = testing::predict_on(*beyond, "tpu_v5e:2x2");
  REQUIRE(!out.ok());
  CHECK_THAT(std::string(out.status().message()), Catch::StartsWith("cp: "));
}

TEST_CASE("S2, S3: data parallelism hides its gradient all-reduce above C / W tokens") {
  // A layer's backward, 4BDF FLOPs (two bf16 matmuls of 2BDF each), overlapping the all-reduce
  // of the previous layer's gradient, bf16[D,F] = 2DF bytes, 2 x 2DF / W in the large-N form.
  // Hidden when 4BDF / C > 4DF / W: B > C / W. v5p on a 4-ring (W_bi = 1.8e11):
  // 4.59e14 / 1.8e11 = 2550 tokens (S2). H100 in a node (W = 4.5e11): 9.89e14 / 4.5e11 =
  // 2198 (S3, "2200").
  auto step = [](std::string_view device, int devices, std::string_view groups, int b) {
    const std::string text = absl::StrFormat(R"(HloModule m, num_partitions=%d, is_scheduled=true
add { x = bf16[] parameter(0)  y = bf16[] parameter(1)  ROOT s = bf16[] add(x, y) }
ENTRY e {
  g = bf16[4096,4096] parameter(0)
  x = bf16[%d,4096] parameter(1)
  dy = bf16[%d,4096] parameter(2)
  w = bf16[4096,4096] parameter(3)
  ars = bf16[4096,4096] all-reduce-start(g), channel_id=1, replica_groups=%s, use_global_device_ids=true, to_apply=add
  dw = bf16[4096,4096] dot(x, dy), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  dx = bf16[%d,4096] dot(dy, w), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  ard = bf16[4096,4096] all-reduce-done(ars)
  ROOT t = (bf16[4096,4096], bf16[4096,4096], bf16[%d,4096]) tuple(ard, dw, dx)
})",
                                             devices, b, b, groups, b, b);
    PredictOptions o = large_n();
    o.include_overhead = false;
    o.roofline_only = true;
    return predict(text, device, o);
  };
  const char* ring = "[16,4]<=[64]";
  CHECK(step("tpu_v5p:4x4x4", 64, ring, 2048)->breakdown.collective_exposed_s > 0);
  auto hidden = step("tpu_v5p:4x4x4", 64, ring, 3072);
  CHECK(hidden->breakdown.collective_exposed_s == 0);
  CHECK(hidden->breakdown.collective_hidden_s == Approx(2 * 2.0 * 4096 * 4096 / 1.8e11));
  const char* node = "{{0,1,2,3,4,5,6,7}}";
  CHECK(step("h100", 8, node, 1536)->breakdown.collective_exposed_s > 0);
  CHECK(step("h100", 8, node, 3072)->breakdown.collective_exposed_s == 0);
}

TEST_CASE("collectives alike share their estimate; other groups or bytes get their own") {
  // A prediction places each distinct collective once (a sharded module repeats a few dozen
  // through its layers). ag1 and ag2 are C2's all-gather (559.2 us along the 4-chip axis); ag3
  // moves the same bytes along the 8-chip axis, ag4 half of them along the 4-chip axis: each is
  // timed on its own. Expected times too (no roofline_only): the ICI fit adds to each estimate.
  for (bool roofline_only : {true, false}) {
    PredictOptions options;
    options.roofline_only = roofline_only;
    auto p = testing::predict(
        module(32, "bf16[512,8192]",
               "q = bf16[256,8192] parameter(1)\n"
               "  ag1 = bf16[2048,8192] all-gather(p), channel_id=1, "
               "replica_groups=[8,4]<=[4,8]T(1,0), use_global_device_ids=true, dimensions={0}\n"
               "  ag2 = bf16[2048,8192] all-gather(p), channel_id=2, "
               "replica_groups=[8,4]<=[4,8]T(1,0), use_global_device_ids=true, dimensions={0}\n"
               "  ag3 = bf16[2048,8192] all-gather(q), channel_id=3, "
               "replica_groups=[4,8]<=[32], use_global_device_ids=true, dimensions={0}\n"
               "  ag4 = bf16[1024,8192] all-gather(q), channel_id=4, "
               "replica_groups=[8,4]<=[4,8]T(1,0), use_global_device_ids=true, dimensions={0}\n"
               "  ROOT t = (bf16[2048,8192], bf16[2048,8192], bf16[2048,8192], bf16[1024,8192]) "
               "tuple(ag1, ag2, ag3, ag4)"),
        "tpu_v5e:8x4", options);
    INFO("roofline_only " << roofline_only);
    const OpPrediction &a1 = p.op("ag1"), &a2 = p.op("ag2"), &a3 = p.op("ag3"), &a4 = p.op("ag4");
    if (roofline_only) CHECK(a1.collective->time_s == Approx(559.2e-6).epsilon(0.0005));
    CHECK(a2.time_s == a1.time_s);
    CHECK(a2.explanation() == a1.explanation());
    CHECK(a3.collective->payload_bytes == a1.collective->payload_bytes);
    CHECK(a4.collective->payload_bytes == a1.collective->payload_bytes / 2);
    CHECK(a1.collective->group_size == 4);
    CHECK(a3.collective->group_size == 8);
    CHECK(a4.collective->group_size == 4);
    CHECK(a3.time_s != a1.time_s);
    CHECK(a4.time_s != a1.time_s);
    CHECK(a3.explanation() != a1.explanation());
    CHECK(a4.explanation() != a1.explanation());
  }
}

}  // namespace
}  // namespace hloroof

namespace hloroof {
namespace {

TEST_CASE("groups naming more devices than the header are a warning, with the topology they need") {
  // 16 partitions in the header, and an all-reduce whose groups name ids up to 99: 100 devices
  // named, 16 declared.
  std::string ids;
  for (int k = 0; k < 99; ++k) ids += std::to_string(k) + ",";
  const std::string text = R"(HloModule m, num_partitions=16

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY e {
  p = f32[1024] parameter(0)
  ROOT ar = f32[1024] all-reduce(p), channel_id=1, replica_groups={{)" + ids + R"(99}}, use_global_device_ids=true, to_apply=add
})";
  auto p = testing::predict(text, "h100");
  bool warned = false;
  for (const std::string& w : p->diagnostics.warnings) {
    warned = warned || w.rfind("the module's collectives name 100 devices, but its header says "
                               "16 (num_partitions=16 x replica_count=1)", 0) == 0;
  }
  CHECK(warned);
  // A module whose groups fit its header: no such warning.
  auto fits = testing::predict(R"(HloModule m, num_partitions=16

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY e {
  p = f32[1024] parameter(0)
  ROOT ar = f32[1024] all-reduce(p), channel_id=1, replica_groups=[2,8]<=[16], use_global_device_ids=true, to_apply=add
})", "h100");
  for (const std::string& w : fits->diagnostics.warnings) {
    CHECK(w.find("collectives name") == std::string::npos);
  }
}

}  // namespace
}  // namespace hloroof
