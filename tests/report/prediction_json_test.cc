// prediction_to_json writes the ops field by field: its text must be what nlohmann's
// dump(2, ' ', false, replace) makes of the same document, strings needing escapes included.
#include <catch2/catch.hpp>
#include <string>

#include "hloroof/report.h"
#include "nlohmann/json.hpp"
#include "sample_prediction.h"

namespace {

using Json = nlohmann::ordered_json;

TEST_CASE("the JSON of a prediction is the serializer's own text, escapes included") {
  hloroof::Prediction p = hloroof::testing::sample_prediction();
  REQUIRE(p.ops.size() >= 3);
  p.ops[0].name = "quote\" backslash\\ newline\n tab\t bell\x07 e\xc3\xa9";
  p.ops[1].op_name = "bad byte \xff here";
  p.ops[2].explanation = "del \x7f and ~";
  const std::string text = hloroof::prediction_to_json(p);
  // Parsing and dumping again gives the canonical text: equal only if every byte, indentation
  // and number included, is where the serializer puts it.
  const Json j = Json::parse(text);
  CHECK(j.dump(2, ' ', false, Json::error_handler_t::replace) == text);
  CHECK(j["ops"][0]["name"] == p.ops[0].name);
  CHECK(j["ops"][1]["op_name"] == "bad byte \xef\xbf\xbd here");  // U+FFFD for the bad byte
  CHECK(j["ops"][2]["explanation"] == p.ops[2].explanation);
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

}  // namespace
