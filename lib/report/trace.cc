#include "hloroof/trace.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "report/json_writer.h"
#include "report/trace_writer.h"

namespace hloroof {
namespace report_internal {
namespace {

double micros(double seconds) { return seconds * 1e6; }

// Whether key `a` comes before `b` (std::string_view's order: bytes as unsigned chars), told
// by the first bytes where they differ, as keys most often do.
bool key_before(std::string_view a, std::string_view b) {
  if (!a.empty() && !b.empty() && a[0] != b[0]) {
    return static_cast<unsigned char>(a[0]) < static_cast<unsigned char>(b[0]);
  }
  return a < b;
}

// Whether `a` and `b` are one double, bit for bit (0 and -0 are written apart).
bool same_bits(double a, double b) {
  return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b);
}

}  // namespace

TraceWriter::TraceWriter(std::string& out, std::ostream* sink) : text_(out, sink) {
  // The document's keys in sorted order: "displayTimeUnit" before "traceEvents".
  text_.append(kHead);
  first_event_ = false;
}

TraceWriter::TraceWriter(std::string& spill, Piece piece)
    : text_(spill, nullptr, piece.buffer_bytes), first_event_(false) {}

void TraceWriter::begin_event() {
  text_.flush_if_full();
  if (!first_event_) text_.put(',');
  first_event_ = false;
}

void TraceWriter::track(int64_t tid, std::string_view name) {
  begin_event();
  text_.append(R"({"args":{"name":)");
  text_.string(name);
  text_.append(R"(},"name":"thread_name","ph":"M","pid":1,"tid":)");
  text_.number(tid);
  text_.append(R"(},{"args":{"sort_index":)");
  text_.number(tid);
  text_.append(R"(},"name":"thread_sort_index","ph":"M","pid":1,"tid":)");
  text_.number(tid);
  text_.put('}');
}

void TraceWriter::slice(int64_t tid, std::string_view name, double start_s, double duration_s,
                        absl::Span<const TraceArg> args) {
  begin_event();
  text_.append(R"({"args":)");
  write_args(args);
  slice_tail(tid, name, start_s, duration_s);
}

void TraceWriter::begin_slice() {
  begin_event();
  text_.append(R"({"args":{)");
  first_arg_ = true;
}

void TraceWriter::arg_key(PlainKey key) {
  char* o = text_.room(key.size() + 4);
  *o = ',';
  o += first_arg_ ? 0 : 1;
  first_arg_ = false;
  *o++ = '"';
  std::memcpy(o, key.data(), key.size());
  o += key.size();
  o[0] = '"';
  o[1] = ':';
  text_.advance(o + 2);
}

void TraceWriter::arg(PlainKey key, double value) {
  arg_key(key);
  text_.number(value);
}

void TraceWriter::arg(PlainKey key, int64_t value) {
  arg_key(key);
  text_.number(value);
}

void TraceWriter::arg(PlainKey key, std::string_view text) {
  arg_key(key);
  text_.string(text);
}

void TraceWriter::repeated_arg(PlainKey key, std::string_view text) {
  arg_key(key);
  text_.repeated_string(text);
}

void TraceWriter::end_slice(int64_t tid, std::string_view name, double start_s,
                            double duration_s) {
  text_.put('}');
  slice_tail(tid, name, start_s, duration_s);
}

void TraceWriter::slice_tail(int64_t tid, std::string_view name, double start_s,
                             double duration_s) {
  text_.append(R"(,"dur":)");
  text_.number(micros(duration_s));
  text_.append(R"(,"name":)");
  text_.string(name);
  text_.append(R"(,"ph":"X","pid":1,"tid":)");
  text_.number(tid);
  text_.append(R"(,"ts":)");
  const double ts = micros(start_s);
  const std::string_view text = text_.number(ts);
  if (text.size() <= sizeof(StartText::text) &&
      (starts_.empty() ? !std::isnan(ts) : starts_.back().ts < ts)) {
    StartText& s = starts_.emplace_back();
    s.ts = ts;
    s.size = static_cast<uint8_t>(text.size());
    std::memcpy(s.text, text.data(), text.size());
  }
  text_.put('}');
}

void TraceWriter::counter(std::string_view name, double time_s, double value) {
  begin_event();
  text_.append(R"({"args":{"value":)");
  text_.number(value);
  text_.append(R"(},"name":)");
  text_.string(name);
  text_.append(R"(,"ph":"C","pid":1,"ts":)");
  const double ts = micros(time_s);
  while (next_start_ < starts_.size() && starts_[next_start_].ts < ts) ++next_start_;
  if (next_start_ < starts_.size() && same_bits(starts_[next_start_].ts, ts)) {
    const StartText& s = starts_[next_start_];
    text_.append(s.text, s.size);
  } else {
    text_.number(ts);
  }
  text_.put('}');
}

void TraceWriter::finish() {
  text_.append(kTail);
  text_.hand_over();
}

void TraceWriter::write_arg(const TraceArg& arg) {
  if (arg.plain_key) {
    // `"key":` as it is.
    char* o = text_.room(arg.key.size() + 3);
    *o++ = '"';
    copy_bytes(o, arg.key.data(), arg.key.size());
    o += arg.key.size();
    o[0] = '"';
    o[1] = ':';
    text_.advance(o + 2);
  } else {
    text_.string(arg.key);
    text_.put(':');
  }
  std::visit([&](const auto& v) {
    if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::string_view>) {
      text_.string(v);
    } else {
      text_.number(v);
    }
  }, arg.value);
}

void TraceWriter::write_args(absl::Span<const TraceArg> args) {
  text_.put('{');
  // Args given in the order of their keys, none twice (a record's, as a caller lists them),
  // are written as they come.
  bool in_order = true;
  for (size_t i = 1; i < args.size() && in_order; ++i) {
    in_order = key_before(args[i - 1].key, args[i].key);
  }
  if (in_order) {
    for (size_t i = 0; i < args.size(); ++i) {
      if (i > 0) text_.put(',');
      write_arg(args[i]);
    }
    text_.put('}');
    return;
  }
  // Else in key order (an insertion sort: events have a few args), equal keys in the order
  // given.
  sorted_.clear();
  for (const TraceArg& arg : args) {
    auto at = sorted_.end();
    while (at != sorted_.begin() && arg.key < (*(at - 1))->key) --at;
    sorted_.insert(at, &arg);
  }
  bool first = true;
  for (size_t i = 0; i < sorted_.size(); ++i) {
    if (i + 1 < sorted_.size() && sorted_[i + 1]->key == sorted_[i]->key) continue;
    if (!first) text_.put(',');
    first = false;
    write_arg(*sorted_[i]);
  }
  text_.put('}');
}

}  // namespace report_internal

int TraceBuilder::add_track(std::string name) {
  tracks_.push_back(std::move(name));
  return static_cast<int>(tracks_.size()) - 1;
}

void TraceBuilder::add_slice(int track, std::string name, double start_s, double duration_s,
                             std::vector<Arg> args) {
  slices_.push_back({track, std::move(name), start_s, duration_s, std::move(args)});
}

void TraceBuilder::add_counter(const std::string& name, double time_s, double value) {
  samples_.push_back({name, time_s, value});
}

std::string TraceBuilder::to_json() const {
  std::string out;
  report_internal::TraceWriter writer(out, nullptr);
  for (size_t t = 0; t < tracks_.size(); ++t) writer.track(static_cast<int64_t>(t), tracks_[t]);
  // Sorted by start, longer first on ties, so an enclosing slice precedes what it encloses.
  std::vector<const Slice*> order;
  order.reserve(slices_.size());
  for (const Slice& s : slices_) order.push_back(&s);
  std::stable_sort(order.begin(), order.end(), [](const Slice* a, const Slice* b) {
    if (a->start_s != b->start_s) return a->start_s < b->start_s;
    return a->duration_s > b->duration_s;
  });
  std::vector<report_internal::TraceArg> args;
  for (const Slice* s : order) {
    args.clear();
    for (const auto& [key, value] : s->args) {
      // Clang before 16 cannot capture a structured binding; name it first.
      const std::string& name = key;
      std::visit(
          [&](const auto& v) {
            if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::string>) {
              args.push_back({name, std::string_view(v)});
            } else {
              args.push_back({name, v});
            }
          },
          value);
    }
    writer.slice(s->track, s->name, s->start_s, s->duration_s, args);
  }
  std::vector<const Sample*> samples;
  samples.reserve(samples_.size());
  for (const Sample& s : samples_) samples.push_back(&s);
  std::stable_sort(samples.begin(), samples.end(),
                   [](const Sample* a, const Sample* b) { return a->time_s < b->time_s; });
  for (const Sample* s : samples) writer.counter(s->counter, s->time_s, s->value);
  writer.finish();
  return out;
}

}  // namespace hloroof
