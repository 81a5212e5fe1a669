// JsonWriter writes the text nlohmann's dump(2, ' ', false, replace) writes for the same
// document, which is what the commands printed before they wrote their JSON as produced.
#include "report/json_writer.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace {

using hloroof::report_internal::append_whole_json_double;
using hloroof::report_internal::JsonWriter;
using Json = nlohmann::ordered_json;

std::string dumped(const Json& j) {
  return j.dump(2, ' ', false, Json::error_handler_t::replace);
}

TEST_CASE("a document written field by field reads as nlohmann's dump of it") {
  // Strings the serializer escapes or replaces: quote, backslash, short escapes, another
  // control character, UTF-8, and bytes that are not UTF-8.
  const std::string odd[] = {"plain", "q\"b\\s", "tab\tnl\nff\fcr\rbs\b", "bell\x07",
                             "caf\xc3\xa9", "bad\xff\xfe", "\x7f", ""};
  const double numbers[] = {3.0,  0.1,  1e-7, 1e21, 123456789012345678.0, -0.0, 2.5e-300,
                            std::numeric_limits<double>::quiet_NaN(),
                            std::numeric_limits<double>::infinity()};
  Json expected = Json::object();
  std::string out;
  JsonWriter w(out);
  w.begin_object();

  expected["module"] = "m";
  w.text_field("module", "m");
  expected["empty_object"] = Json::object();
  w.key("empty_object");
  w.begin_object();
  w.end_object();
  expected["empty_array"] = Json::array();
  w.key("empty_array");
  w.begin_array();
  w.end_array();
  expected["strings"] = Json::array();
  w.key("strings");
  w.begin_array();
  for (const std::string& s : odd) {
    expected["strings"].push_back(s);
    w.string(s);
  }
  w.end_array();
  expected["doubles"] = Json::array();
  w.key("doubles");
  w.begin_array();
  for (double d : numbers) {
    expected["doubles"].push_back(d);
    w.number(d);
  }
  w.end_array();
  expected["min"] = std::numeric_limits<int64_t>::min();
  w.number_field("min", std::numeric_limits<int64_t>::min());
  expected["max"] = std::numeric_limits<uint64_t>::max();
  w.number_field("max", std::numeric_limits<uint64_t>::max());
  expected["int"] = 7;
  w.number_field("int", 7);
  expected["yes"] = true;
  w.bool_field("yes", true);
  expected["none"] = nullptr;
  w.key("none");
  w.null();
  expected["key \"odd\"\x01\xff"] = 1;
  w.key(std::string_view("key \"odd\"\x01\xff"));  // not a PlainKey: not plain
  w.number(1);
  // Nested containers, and a subtree handed over as a value at depth 3.
  Json subtree = {{"a", {1, 2}}, {"b", Json::object()}, {"c", {{"d", "e"}}}};
  expected["nested"] = Json::array();
  expected["nested"].push_back(Json::array());
  expected["nested"].push_back({{"x", subtree}, {"y", Json::array({Json::array()})}});
  w.key("nested");
  w.begin_array();
  w.begin_array();
  w.end_array();
  w.begin_object();
  w.field("x", subtree);
  w.key("y");
  w.begin_array();
  w.begin_array();
  w.end_array();
  w.end_array();
  w.end_object();
  w.end_array();
  expected["notes"] = std::vector<std::string>{"one", "two"};
  w.strings_field("notes", {"one", "two"});
  expected["no_notes"] = std::vector<std::string>{};
  w.strings_field("no_notes", {});
  w.end_object();
  w.finish();

  CHECK(out == dumped(expected));
}

TEST_CASE("top-level values and empty containers") {
  std::string out;
  JsonWriter(out).number(1.5);
  CHECK(out == dumped(Json(1.5)));  // "1.5"
  out.clear();
  JsonWriter w(out);
  w.begin_object();
  w.end_object();
  w.finish();
  CHECK(out == "{}");
}

// Strings and keys are scanned sixteen bytes at a time, then byte by byte: every kind of byte
// at every place of strings of 0-40 bytes (across a block's bounds, in the tail after them),
// alone and after a first escape, reads as nlohmann writes it.
TEST_CASE("a byte of every kind at every place of a string reads as nlohmann's dump") {
  const char kinds[] = {'"',    '\\',   '\n',   '\t',   '\x01', '\x1f',
                        '\x7f', '\x80', '\xc3', '\xff', ' ',    '~'};
  Json expected = Json::object();
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  size_t written = 0;
  for (size_t length = 0; length <= 40; ++length) {
    for (size_t at = 0; at < std::max<size_t>(length, 1); ++at) {
      for (char kind : kinds) {
        std::string text(length, 'a');
        if (length > 0) text[at] = kind;
        std::string twice = text;
        if (length > at + 3) twice[at + 3] = '\\';
        const std::string key = "k" + std::to_string(written++);
        expected[key] = Json::array({text, twice});
        w.key(key);
        w.begin_array();
        w.string(text);
        w.string(twice);
        w.end_array();
        // The same text as a key.
        const std::string odd_key = key + "/" + text;
        expected[odd_key] = 0;
        w.key(odd_key);
        w.number(0);
      }
    }
  }
  w.end_object();
  w.finish();
  CHECK(written == 12 * (1 + 40 * 41 / 2));  // 12 kinds at 1 + 1 + 2 + ... + 40 places
  CHECK(out == dumped(expected));
}

// Whole numbers below 1e15 are written without the serializer (append_whole_json_double): as
// it writes them, on every whole number of [-2^17, 2^17], each power of 2 and 10 below 1e15
// and its neighbours, and 200,000 whole numbers spread over [0, 1e15) by a fixed generator;
// the values beside them (halves, 1e15 itself, -0.0) as well.
TEST_CASE("whole numbers read as nlohmann writes them") {
  std::vector<double> values;
  for (int k = -(1 << 17); k <= (1 << 17); ++k) values.push_back(k);
  for (double p = 1; p < 2e15; p *= 2) {
    for (double d : {-1.0, 0.0, 1.0, 0.5}) values.push_back(p + d), values.push_back(-(p + d));
  }
  for (double p = 1; p <= 1e16; p *= 10) {
    for (double d : {-1.0, 0.0, 1.0, 0.5}) values.push_back(p + d), values.push_back(-(p + d));
  }
  uint64_t state = 88172645463325252ull;  // xorshift64
  for (int k = 0; k < 200000; ++k) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    values.push_back(static_cast<double>(state % 1000000000000000ull));
  }
  values.push_back(-0.0);
  Json expected = Json::array();
  std::string out;
  JsonWriter w(out);
  w.begin_array();
  size_t whole = 0;
  for (double v : values) {
    expected.push_back(v);
    w.number(v);
    std::string alone;
    whole += append_whole_json_double(alone, v);
  }
  w.end_array();
  w.finish();
  CHECK(out == dumped(expected));
  CHECK(whole > values.size() / 2);  // most took the new path
}

// Doubles are written from a table of the last ones written, by a hash of their bits: 20,000
// values (a third of any bits: fractions, subnormals, both signs, 1e300s, NaNs, infinities;
// the rest fractions like a report's) written 200,000 times in a fixed pseudo-random order
// (each about 10 times, about 5 to each of the table's 4,096 slots) read as nlohmann writes
// them.
TEST_CASE("doubles written again read as nlohmann writes them") {
  std::vector<double> values;
  uint64_t state = 2463534242ull;  // xorshift64
  auto next = [&state] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  for (int k = 0; k < 20000; ++k) {
    const uint64_t bits = next();
    double d;
    std::memcpy(&d, &bits, sizeof(d));
    values.push_back(k % 3 == 0 ? d : static_cast<double>(bits % 1000000) / 997.0);
  }
  values.push_back(0.1);
  values.push_back(-0.0);
  Json expected = Json::array();
  std::string out;
  JsonWriter w(out);
  w.begin_array();
  for (int k = 0; k < 200000; ++k) {
    const double v = values[next() % values.size()];
    expected.push_back(v);
    w.number(v);
  }
  w.end_array();
  w.finish();
  CHECK(out == dumped(expected));
}

// A repeated text's quoted text is kept by where the text lies and copied when it comes again:
// texts with escapes, one the serializer writes (UTF-8), a long one, a part of one (where it
// begins, shorter), and more texts than are kept (4096), each three times, read as the same
// texts each written anew.
TEST_CASE("repeated strings read as each written anew") {
  std::vector<std::string> texts = {"plain", "two\nlines \"quoted\"", "caf\xc3\xa9",
                                    std::string(3000, 'x') + "\n"};
  for (int k = 0; k < 5000; ++k) texts.push_back("text " + std::to_string(k) + "\n  more");
  std::string repeated_out, plain_out;
  {
    hloroof::report_internal::JsonText repeated(repeated_out, nullptr);
    hloroof::report_internal::JsonText plain(plain_out, nullptr);
    for (int round = 0; round < 3; ++round) {
      for (const std::string& t : texts) {
        repeated.repeated_string(t);
        plain.string(t);
      }
      const std::string_view part = std::string_view(texts[1]).substr(0, 5);
      repeated.repeated_string(part);
      plain.string(part);
    }
  }  // each hands its text over as it goes
  CHECK(repeated_out.size() > 3 * 5000 * 12);
  CHECK(repeated_out == plain_out);
}

TEST_CASE("with a sink, a large document reaches it in pieces and whole") {
  std::ostringstream sink;
  std::string out;
  JsonWriter w(out, &sink);
  Json expected = Json::array();
  size_t held = 0;
  w.begin_array();
  for (int k = 0; k < 20000; ++k) {
    const Json row = {{"k", k}, {"half", k / 2.0}};
    expected.push_back(row);
    w.begin_object();
    w.number_field("k", k);
    w.number_field("half", k / 2.0);
    w.end_object();
    held = std::max(held, w.held());
    CHECK(out.empty());  // the text goes to the sink, never through `out`
  }
  w.end_array();
  // Never more than the flush size and one row held (about 40 bytes a row).
  CHECK(held < (64 << 10) + 100);
  w.finish();
  CHECK(out.empty());
  CHECK(sink.str() == dumped(expected));
}

TEST_CASE("pieces written apart continue the document as one writer would") {
  // An array of objects inside an object, written whole by one writer, and again with the
  // array's values in pieces of three made by writers of their own (as the ops of a
  // prediction are), at the indentation of each step the writers take.
  const auto values = [](JsonWriter& w, int begin, int end) {
    for (int k = begin; k < end; ++k) {
      w.begin_object();
      w.number_field("k", k);
      w.text_field("name", "op." + std::to_string(k));
      w.end_object();
    }
  };
  for (unsigned step : {1u, 2u, 4u}) {
    std::string whole;
    {
      JsonWriter w(whole, nullptr, step);
      w.begin_object();
      w.key("values");
      w.begin_array();
      values(w, 0, 10);
      w.end_array();
      w.end_object();
      w.finish();
    }
    std::ostringstream out;
    std::string held;
    JsonWriter w(held, &out, step);
    w.begin_object();
    w.key("values");
    w.begin_array();
    w.finish();
    std::string spill;
    JsonWriter piece(spill, size_t{1} << 16);
    for (int begin = 0; begin < 10; begin += 3) {
      piece.continue_at(w, static_cast<size_t>(begin));
      values(piece, begin, std::min(begin + 3, 10));
      piece.write_to(out);
    }
    w.count_values(10);
    w.end_array();
    w.end_object();
    w.finish();
    INFO("step " << step);
    CHECK(out.str() == whole);
  }
}

}  // namespace
