// Collectives (docs/cost-conventions.md, "Collectives"): kind, payload V, group size, device groups
// and id modes, sync and async forms; and the bytes of async pairs (the -done moves none in our
// model).
#include "cost_test_util.h"

namespace hloroof {
namespace {

using testing::analyze;
using Groups = std::vector<std::vector<int64_t>>;
using Pairs = std::vector<std::pair<int64_t, int64_t>>;

constexpr std::string_view kSpmd = R"(
HloModule spmd, replica_count=1, num_partitions=8

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY e {
  p = f32[1024] parameter(0)
  small = f32[256] parameter(1)
  half = f32[512] parameter(2)
  q = f32[64] parameter(3)
  r = f32[32] parameter(4)
  sizes = s32[8] parameter(5)
  ar = f32[1024] all-reduce(p), channel_id=1, replica_groups={{0,1,2,3},{4,5,6,7}}, use_global_device_ids=true, to_apply=add
  ag = f32[1024] all-gather(small), channel_id=2, replica_groups=[2,4]<=[4,2]T(1,0), dimensions={0}, use_global_device_ids=true
  rs = f32[256] reduce-scatter(half), channel_id=3, replica_groups=[4,2]<=[8], dimensions={0}, use_global_device_ids=true, to_apply=add
  a2a = f32[64] all-to-all(q), channel_id=4, replica_groups={{0,1,2,3,4,5,6,7}}, dimensions={0}
  cp = f32[32] collective-permute(r), channel_id=5, source_target_pairs={{0,1},{1,2}}
  cb = f32[32] collective-broadcast(r), channel_id=6, replica_groups={{0,1}}
  ra2a = f32[64] ragged-all-to-all(q, q, sizes, sizes, sizes, sizes), channel_id=7, replica_groups=[1,8]<=[8]
  ROOT t = (f32[1024], f32[1024], f32[256], f32[64], f32[32], f32[32], f32[64]) tuple(ar, ag, rs, a2a, cp, cb, ra2a)
}
)";

TEST_CASE("every collective kind: payload, group size and groups") {
  auto c = analyze(kSpmd);

  const auto& ar = c["ar"].collective;
  REQUIRE(ar);
  CHECK(ar->kind == CollectiveKind::kAllReduce);
  CHECK_FALSE(ar->is_async);
  CHECK(ar->id_mode == CollectiveIdMode::kFlattenedId);
  CHECK(ar->channel_id == 1);
  CHECK(ar->payload_bytes == 4096);  // the whole f32[1024] buffer
  CHECK(ar->group_size == 4);
  CHECK(ar->groups == Groups{{0, 1, 2, 3}, {4, 5, 6, 7}});

  // [2,4]<=[4,2]T(1,0): 0..7 as [4,2], transposed to [2,4]: {0,2,4,6} {1,3,5,7}.
  const auto& ag = c["ag"].collective;
  REQUIRE(ag);
  CHECK(ag->kind == CollectiveKind::kAllGather);
  CHECK(ag->payload_bytes == 4096);  // the gathered output
  CHECK(ag->group_size == 4);
  CHECK(ag->groups == Groups{{0, 2, 4, 6}, {1, 3, 5, 7}});

  const auto& rs = c["rs"].collective;
  REQUIRE(rs);
  CHECK(rs->kind == CollectiveKind::kReduceScatter);
  CHECK(rs->payload_bytes == 2048);  // the unreduced input f32[512]
  CHECK(rs->group_size == 2);
  CHECK(rs->groups == Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}});

  // all-to-all has no global-ids flag: a channel id makes the ids partition ids.
  const auto& a2a = c["a2a"].collective;
  REQUIRE(a2a);
  CHECK(a2a->kind == CollectiveKind::kAllToAll);
  CHECK(a2a->id_mode == CollectiveIdMode::kCrossPartition);
  CHECK(a2a->group_size == 8);
  CHECK(a2a->payload_bytes == 8 * 256);  // N times one device's f32[64]

  const auto& cp = c["cp"].collective;
  REQUIRE(cp);
  CHECK(cp->kind == CollectiveKind::kCollectivePermute);
  CHECK(cp->id_mode == CollectiveIdMode::kCrossPartition);
  CHECK(cp->payload_bytes == 128);
  CHECK(cp->group_size == 2);
  CHECK(cp->groups.empty());
  CHECK(cp->pairs == Pairs{{0, 1}, {1, 2}});

  const auto& cb = c["cb"].collective;
  REQUIRE(cb);
  CHECK(cb->kind == CollectiveKind::kCollectiveBroadcast);
  CHECK(cb->payload_bytes == 128);
  CHECK(cb->groups == Groups{{0, 1}});

  const auto& ra2a = c["ra2a"].collective;
  REQUIRE(ra2a);
  CHECK(ra2a->kind == CollectiveKind::kRaggedAllToAll);
  CHECK(ra2a->group_size == 8);
  CHECK(ra2a->payload_bytes == 8 * 256);  // N times the output buffer, a bound

  CHECK_FALSE(c["t"].collective);
  // XLA's byte rule for collectives: operands and outputs.
  CHECK(c["ag"].cost.bytes() == 1024 + 4096);
}

std::string all_reduce_module(std::string_view header, std::string_view attributes) {
  return std::string("HloModule m, ") + std::string(header) + R"(
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  p = f32[16] parameter(0)
  ROOT ar = f32[16] all-reduce(p), to_apply=add, )" +
         std::string(attributes) + "\n}\n";
}

TEST_CASE("replica groups in iota form over 2^24 devices are read, not listed") {
  // [4096,4096]<=[4096,4096]T(1,0): iota(2^24) as a 4096 x 4096 array (row r holds
  // 4096r .. 4096r + 4095), transposed: group g is column g of it, {g, 4096 + g, 8192 + g, ...}.
  auto c = analyze(all_reduce_module(
      "num_partitions=16777216",
      "channel_id=1, replica_groups=[4096,4096]<=[4096,4096]T(1,0), use_global_device_ids=true"));
  const ReplicaGroups* written = c.module.entry()->find_instruction("ar")->replica_groups();
  REQUIRE(written != nullptr);
  CHECK(written->form == ReplicaGroups::Form::kIota);
  CHECK(written->groups.empty());  // nothing expanded
  CHECK(written->group_count() == 4096);
  CHECK(written->size_of_groups(16777216) == 4096);
  CHECK(written->id_count() == 16777216);
  CHECK(written->id_at(1, 0) == 1);
  CHECK(written->id_at(1, 1) == 4097);
  CHECK(written->id_at(4095, 4095) == 16777215);  // 4095 + 4096 * 4095
  CHECK_FALSE(written->expand().ok());            // 2^24 ids, more than 2^20 to list
  const auto& ar = *c["ar"].collective;
  CHECK(ar.id_mode == CollectiveIdMode::kFlattenedId);
  CHECK(ar.group_size == 4096);
  CHECK(ar.groups.empty());  // 2^24 ids: not listed
  bool noted = false;
  for (const std::string& n : c.cost.notes) noted = noted || n.find("too many devices") != n.npos;
  CHECK(noted);
}

TEST_CASE("replica group ids become device ids by the collective's mode") {
  SECTION("no channel id: replica ids, repeated in every partition") {
    auto c = analyze(
        all_reduce_module("replica_count=4, num_partitions=2", "replica_groups={{0,1},{2,3}}"));
    const auto& ar = *c["ar"].collective;
    CHECK(ar.id_mode == CollectiveIdMode::kCrossReplica);
    CHECK(ar.group_size == 2);
    // Device id = replica * 2 + partition.
    CHECK(ar.groups == Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}});
  }
  SECTION("a channel id without global ids: replicas times all partitions") {
    auto c = analyze(all_reduce_module("replica_count=4, num_partitions=2",
                                       "channel_id=1, replica_groups={{0,1},{2,3}}"));
    const auto& ar = *c["ar"].collective;
    CHECK(ar.id_mode == CollectiveIdMode::kCrossReplicaAndPartition);
    CHECK(ar.group_size == 4);  // |group| * num_partitions
    CHECK(ar.groups == Groups{{0, 1, 2, 3}, {4, 5, 6, 7}});
  }
  SECTION("empty groups: every replica") {
    auto c = analyze(all_reduce_module("replica_count=4", "replica_groups={}"));
    const auto& ar = *c["ar"].collective;
    CHECK(ar.group_size == 4);
    CHECK(ar.groups == Groups{{0, 1, 2, 3}});
  }
  SECTION("a module without a header count has one replica") {
    auto c = analyze(all_reduce_module("is_scheduled=false", "replica_groups={}"));
    CHECK(c["ar"].collective->group_size == 1);
  }
}

TEST_CASE("permute pairs repeat like groups") {
  // No channel id: replica ids, one transfer per partition. Device = replica * 2 + partition.
  auto c = analyze(R"(
HloModule m, replica_count=2, num_partitions=2
ENTRY e {
  p = f32[16] parameter(0)
  ROOT cp = f32[16] collective-permute(p), source_target_pairs={{0,1}}
})");
  const auto& cp = *c["cp"].collective;
  CHECK(cp.id_mode == CollectiveIdMode::kCrossReplica);
  CHECK(cp.pairs == Pairs{{0, 2}, {1, 3}});
  CHECK(cp.payload_bytes == 64);
}

TEST_CASE("cross-partition empty groups span each replica's partitions") {
  auto c = analyze(R"(
HloModule m, replica_count=2, num_partitions=4
ENTRY e {
  p = f32[16] parameter(0)
  ROOT a2a = f32[16] all-to-all(p), channel_id=1, replica_groups={}, dimensions={0}
})");
  const auto& a2a = *c["a2a"].collective;
  CHECK(a2a.id_mode == CollectiveIdMode::kCrossPartition);
  CHECK(a2a.group_size == 4);
  CHECK(a2a.groups == Groups{{0, 1, 2, 3}, {4, 5, 6, 7}});
}

TEST_CASE("collective payloads are padded on tiled layouts") {
  const std::string text = R"(
HloModule m, replica_count=2
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  p = f32[3,5]{1,0:T(2,2)} parameter(0)
  ROOT ar = f32[3,5]{1,0:T(2,2)} all-reduce(p), replica_groups={}, to_apply=add
})";
  CHECK(analyze(text)["ar"].collective->payload_bytes == 96);  // [4,6] f32
  CHECK(analyze(text, {.use_padded_sizes = false})["ar"].collective->payload_bytes == 60);
}

constexpr std::string_view kAsync = R"(
HloModule async, replica_count=1, num_partitions=4

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

wrapped_rs {
  w = f32[1024] parameter(0)
  ROOT rs = f32[256] reduce-scatter(w), channel_id=4, replica_groups={{0,1,2,3}}, use_global_device_ids=true, dimensions={0}, to_apply=add
}

ENTRY e {
  p = f32[1024] parameter(0)
  small = f32[256] parameter(1)
  ags = (f32[256], f32[1024]) all-gather-start(small), channel_id=1, replica_groups={{0,1,2,3}}, dimensions={0}, use_global_device_ids=true
  agd = f32[1024] all-gather-done(ags)
  ars = f32[1024] all-reduce-start(p), channel_id=2, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=add
  ard = f32[1024] all-reduce-done(ars)
  cps = (f32[256], f32[256], u32[], u32[]) collective-permute-start(small), channel_id=3, source_target_pairs={{0,1},{1,2},{2,3},{3,0}}
  cpd = f32[256] collective-permute-done(cps)
  rss = ((f32[1024]), f32[256]) async-start(p), calls=wrapped_rs
  rsd = f32[256] async-done(rss)
  a2as = ((f32[1024]), f32[1024]) all-to-all-start(p), channel_id=5, replica_groups={{0,1,2,3}}, dimensions={0}
  a2ad = f32[1024] all-to-all-done(a2as)
  ROOT t = (f32[1024], f32[1024], f32[256], f32[256], f32[1024]) tuple(agd, ard, cpd, rsd, a2ad)
}
)";

TEST_CASE("async collectives: the start carries the collective and the data movement") {
  auto c = analyze(kAsync);

  const auto& ag = c["ags"].collective;
  REQUIRE(ag);
  CHECK(ag->kind == CollectiveKind::kAllGather);
  CHECK(ag->is_async);
  CHECK(ag->payload_bytes == 4096);  // only the gathered f32[1024], not the operand copy
  CHECK_FALSE(c["agd"].collective);
  // Ours: read the operand (1 KiB), write the gathered result (4 KiB); the done moves nothing.
  CHECK(c["ags"].cost.bytes_read == 1024);
  CHECK(c["ags"].cost.bytes_written == 4096);
  CHECK(c["agd"].cost.bytes() == 0);
  // XLA: the start's tuple leaves (1 + 4 KiB) plus its operand; the done its result again
  // plus its operand, the start's 2-pointer table.
  CHECK(c["ags"].cost.xla_bytes_accessed == 1024 + 4096 + 1024);
  CHECK(c["agd"].cost.xla_bytes_accessed == 4096 + 16);

  CHECK(c["ars"].collective->kind == CollectiveKind::kAllReduce);
  CHECK(c["ars"].collective->is_async);
  CHECK(c["ars"].cost.bytes() == 8192);
  CHECK(c["ars"].cost.flops == 1024);
  CHECK(c["ard"].cost.bytes() == 0);
  CHECK(c["ard"].cost.xla_bytes_accessed == 8192);  // XLA: the buffer twice

  const auto& cp = c["cps"].collective;
  REQUIRE(cp);
  CHECK(cp->kind == CollectiveKind::kCollectivePermute);
  CHECK(cp->payload_bytes == 1024);
  CHECK(cp->pairs == Pairs{{0, 1}, {1, 2}, {2, 3}, {3, 0}});
  CHECK(c["cps"].cost.bytes() == 2048);  // read the operand, write the received copy

  // An async-start wrapping a computation carries the wrapped collective.
  const auto& rs = c["rss"].collective;
  REQUIRE(rs);
  CHECK(rs->kind == CollectiveKind::kReduceScatter);
  CHECK(rs->is_async);
  CHECK(rs->payload_bytes == 4096);
  CHECK(rs->id_mode == CollectiveIdMode::kFlattenedId);
  CHECK(c["rss"].cost.bytes() == 4096 + 1024);
  CHECK(c["rsd"].cost.bytes() == 0);
  CHECK(c["rsd"].cost.xla_bytes_accessed == 1024 + 16);
  // The wrapped instruction has its own (sync) record.
  CHECK_FALSE(c.at("wrapped_rs", "rs").collective->is_async);

  // all-to-all-start is async sugar: the start is the all-to-all.
  const auto& a2a = c["a2as"].collective;
  REQUIRE(a2a);
  CHECK(a2a->kind == CollectiveKind::kAllToAll);
  CHECK(a2a->is_async);
  CHECK(a2a->group_size == 4);
  CHECK(a2a->payload_bytes == 4 * 4096);
  CHECK(c["a2as"].cost.bytes() == 8192);
  CHECK(c["a2ad"].cost.bytes() == 0);

  // Totals: our bytes leave out the -done ops; XLA's count them.
  const double starts = 5120 + 8192 + 2048 + 5120 + 8192;
  CHECK(c.cost.totals.bytes() == starts + 40);  // + the root tuple's 5 pointers
}

TEST_CASE("send and recv") {
  auto c = analyze(R"(
HloModule m, num_partitions=2
ENTRY e {
  data = f32[32] parameter(0)
  tok = token[] after-all()
  s = (f32[32], u32[], token[]) send(data, tok), channel_id=5
  sd = token[] send-done(s), channel_id=5
  r = (f32[32], u32[], token[]) recv(tok), channel_id=6
  rd = (f32[32], token[]) recv-done(r), channel_id=6
  ROOT got = f32[32] get-tuple-element(rd), index=0
})");
  const auto& send = c["s"].collective;
  REQUIRE(send);
  CHECK(send->kind == CollectiveKind::kSend);
  CHECK(send->is_async);
  CHECK(send->payload_bytes == 128);
  CHECK(send->group_size == 2);
  CHECK(c["s"].cost.bytes_read == 128);
  CHECK(c["s"].cost.bytes_written == 0);
  const auto& recv = c["r"].collective;
  REQUIRE(recv);
  CHECK(recv->kind == CollectiveKind::kRecv);
  CHECK(recv->payload_bytes == 128);
  CHECK(c["r"].cost.bytes_written == 128);
  CHECK(c["rd"].cost.bytes() == 0);
}

TEST_CASE("host transfers are marked") {
  auto c = analyze(R"(
ENTRY e {
  data = f32[32] parameter(0)
  tok = token[] after-all()
  s = (f32[32], u32[], token[]) send(data, tok), channel_id=5, is_host_transfer=true
  ROOT sd = token[] send-done(s), channel_id=5, is_host_transfer=true
})");
  CHECK(c["s"].collective->is_host_transfer);
}

}  // namespace
}  // namespace hloroof
