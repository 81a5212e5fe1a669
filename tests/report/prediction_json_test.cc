// prediction_to_json and cost_to_json write their records field by field: their text must be
// what nlohmann's dump(2, ' ', false, replace) makes of the same document, strings needing
// escapes included.
#include <catch2/catch.hpp>
#include <sstream>
#include <string>

#include "hloroof/analysis_json.h"
#include "hloroof/cost.h"
#include "hloroof/hlo_text.h"
#include "hloroof/report.h"
#include "nlohmann/json.hpp"
#include "sample_prediction.h"
#include "require_ok.h"

namespace {

using Json = nlohmann::ordered_json;

TEST_CASE("the JSON of a prediction is the serializer's own text, escapes included") {
  hloroof::Prediction p = hloroof::testing::sample_prediction();
  REQUIRE(p.ops.size() >= 3);
  using hloroof::OpTexts;
  using hloroof::testing::set_text;
  set_text(p.ops[0], &OpTexts::name, "quote\" backslash\\ newline\n tab\t bell\x07 e\xc3\xa9");
  set_text(p.ops[1], &OpTexts::op_name, "bad byte \xff here");
  set_text(p.ops[2], &OpTexts::explanation, "del \x7f and ~");
  const std::string text = hloroof::prediction_to_json(p);
  // Parsing and dumping again gives the canonical text: equal only if every byte, indentation
  // and number included, is where the serializer puts it.
  const Json j = Json::parse(text);
  CHECK(j.dump(2, ' ', false, Json::error_handler_t::replace) == text);
  CHECK(j["ops"][0]["name"] == p.ops[0].name());
  CHECK(j["ops"][1]["op_name"] == "bad byte \xef\xbf\xbd here");  // U+FFFD for the bad byte
  CHECK(j["ops"][2]["explanation"] == p.ops[2].explanation());
  CHECK(j["ops"].size() == p.ops.size());
}

TEST_CASE("a prediction without ops keeps an empty ops array") {
  hloroof::Prediction p = hloroof::testing::sample_prediction();
  p.ops.clear();
  const std::string text = hloroof::prediction_to_json(p);
  const Json j = Json::parse(text);
  CHECK(j.dump(2, ' ', false, Json::error_handler_t::replace) == text);
  CHECK(j["ops"] == Json::array());
}

TEST_CASE("the JSON written in pieces by several threads is the text written by one") {
  // Ops in pieces of 256: none, one, one piece whole, one op past it, several pieces. Each op
  // named apart (and every 7th explained otherwise), so that a piece out of place, a comma
  // lost between pieces or an explanation read from the wrong writer's cache shows.
  const hloroof::Prediction sample = hloroof::testing::sample_prediction();
  REQUIRE(!sample.ops.empty());
  for (size_t count : {0, 1, 256, 257, 1000}) {
    hloroof::Prediction p = sample;
    p.ops.clear();
    auto texts = std::make_shared<hloroof::TextPool>();
    for (size_t k = 0; k < count; ++k) {
      hloroof::OpPrediction op = sample.ops[k % sample.ops.size()];
      hloroof::OpTexts t = op.all_texts();
      const std::string name = "op." + std::to_string(k);
      const std::string explained = "explained " + std::to_string(k % 3);
      t.name = name;
      if (k % 7 == 0) t.explanation = explained;
      op.set_texts(texts, t);
      op.time_s = 1e-6 * static_cast<double>(count - k);
      p.ops.push_back(std::move(op));
    }
    const std::string whole = hloroof::prediction_to_json(p);
    for (int threads : {1, 2, 3}) {
      INFO("ops " << count << ", threads " << threads);
      std::ostringstream out;
      hloroof::write_prediction_json(p, out, threads);
      CHECK(out.str() == whole);
    }
  }
}

TEST_CASE("the cost JSON's collectives are the serializer's own text: groups, pairs, ids") {
  // Groups of two, a permute's pairs (read as groups too), a channel id and none.
  const char* kText = R"(HloModule collectives

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  p = f32[64] parameter(0)
  ar = f32[64] all-reduce(p), replica_groups={{0,1},{2,3}}, to_apply=add
  cp = f32[64] collective-permute(ar), channel_id=7, source_target_pairs={{0,1},{1,2},{2,3}}
  ROOT ag = f32[256] all-gather(cp), dimensions={0}, replica_groups={}
})";
  absl::StatusOr<hloroof::Module> m = hloroof::parse_module(kText);
  REQUIRE_OK(m);
  absl::StatusOr<hloroof::ModuleCost> cost = hloroof::analyze_cost(*m);
  REQUIRE_OK(cost);
  const std::string text = hloroof::cost_to_json(*cost);
  const Json j = Json::parse(text);
  CHECK(j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n" == text);
  int collectives = 0;
  for (const Json& r : j["instructions"]) {
    if (r["collective"].is_null()) continue;
    ++collectives;
    if (r["name"] == "ar") {
      CHECK(r["collective"]["groups"] == Json::parse("[[0, 1], [2, 3]]"));
      CHECK(r["collective"]["pairs"] == Json::array());
      CHECK(r["collective"]["channel_id"].is_null());
    }
    if (r["name"] == "cp") {
      CHECK(r["collective"]["pairs"] == Json::parse("[[0, 1], [1, 2], [2, 3]]"));
      CHECK(r["collective"]["groups"] == Json::parse("[[0, 1], [1, 2], [2, 3]]"));
      CHECK(r["collective"]["channel_id"] == 7);
    }
  }
  CHECK(collectives == 3);
}

}  // namespace
