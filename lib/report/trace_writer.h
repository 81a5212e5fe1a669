// Chrome trace-event JSON written one event at a time, as it is produced: the same text as
// nlohmann's dump() (no indentation, keys in sorted order, invalid UTF-8 replaced) of the
// document {"displayTimeUnit": "ns", "traceEvents": [...]}, without building that document.
// A trace holds several times the bytes of its module; with a sink, at most about 64 KiB of it
// is held in memory at a time.
#ifndef HLOROOF_LIB_REPORT_TRACE_WRITER_H_
#define HLOROOF_LIB_REPORT_TRACE_WRITER_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "absl/types/span.h"
#include "report/json_writer.h"

namespace hloroof::report_internal {

// One entry of an event's "args"; the strings it names outlive the call that writes it.
struct TraceArg {
  using Value = std::variant<double, int64_t, std::string_view>;
  // A literal key (plain ASCII, checked as the program is compiled): written as it is.
  TraceArg(PlainKey name, Value v)
      : key(name.data(), name.size()), plain_key(true), value(std::move(v)) {}
  // Any other key: escaped as it needs.
  template <typename S>
    requires(std::is_convertible_v<const S&, std::string_view> && !std::is_array_v<S>)
  TraceArg(const S& name, Value v) : key(name), value(std::move(v)) {}

  std::string_view key;
  bool plain_key = false;
  Value value;
};

class TraceWriter {
 public:
  // Writes to `out` (at finish()); with a `sink`, hands the text to it in pieces of about
  // 64 KiB, and at finish(). Opens the document and writes the process name event.
  TraceWriter(std::string& out, std::ostream* sink);
  // A writer of a run of events within a document opened elsewhere (a piece of it made apart
  // from the rest, on another thread): each event it writes follows another (a comma first).
  // The text goes to `spill` while its buffer of `buffer_bytes` is full, and all of it to a
  // sink at write_piece_to(). The document's first text (the process name event included) is
  // kHead; its last, kTail.
  struct Piece {
    size_t buffer_bytes;
  };
  TraceWriter(std::string& spill, Piece piece);
  static constexpr std::string_view kHead =
      R"({"displayTimeUnit":"ns","traceEvents":[)"
      R"({"args":{"name":"hloroof predicted step"},"name":"process_name","ph":"M","pid":1})";
  static constexpr std::string_view kTail = "]}";
  // Writes to `sink` what the events since the last call made, and empties the writer.
  void write_piece_to(std::ostream& sink) { text_.write_to(sink); }

  // A track's two metadata events (its name, and its place: `tid`).
  void track(int64_t tid, std::string_view name);
  // A complete slice ("X"). Of several args with one key, the last is written (as a JSON
  // object keeps it).
  void slice(int64_t tid, std::string_view name, double start_s, double duration_s,
             absl::Span<const TraceArg> args);
  // The same slice with its args written one by one, as they come, rather than gathered:
  // begin_slice(), an arg() for each (in the order of their keys, each key once: a record's
  // fields, listed so), then end_slice().
  void begin_slice();
  void arg(PlainKey key, double value);
  void arg(PlainKey key, int64_t value);
  void arg(PlainKey key, std::string_view text);
  // An arg whose text repeats from event to event and stays where it lies while this lives (a
  // text of a prediction's pool): written once, then copied (JsonText::repeated_string).
  void repeated_arg(PlainKey key, std::string_view text);
  void end_slice(int64_t tid, std::string_view name, double start_s, double duration_s);
  // One sample of a counter track ("C").
  void counter(std::string_view name, double time_s, double value);
  // Closes the document and hands the rest to the sink.
  void finish();
  // Room for the start texts of this many slices (written in time order), made at once.
  void expect_slices(size_t n) { starts_.reserve(n); }

 private:
  void begin_event();
  // `"key":`, after a comma but for the first arg.
  void arg_key(PlainKey key);
  // What follows a slice's args: its duration, name, track and start.
  void slice_tail(int64_t tid, std::string_view name, double start_s, double duration_s);
  void write_args(absl::Span<const TraceArg> args);
  void write_arg(const TraceArg& arg);

  // A slice's start time (its "ts", in microseconds) and its text as written.
  struct StartText {
    double ts;
    uint8_t size;
    char text[23];
  };

  JsonText text_;
  std::vector<const TraceArg*> sorted_;  // reused for each event's args
  bool first_event_ = true;
  bool first_arg_ = true;  // of the slice begun
  // The texts of the slices' start times as written, while those come in increasing order:
  // counters sample at the times slices start (a trace writes them after its slices, in time
  // order), and copy the text written there rather than format the number again.
  std::vector<StartText> starts_;
  size_t next_start_ = 0;  // counter(): the first start not below the last counter's time
};

}  // namespace hloroof::report_internal

#endif  // HLOROOF_LIB_REPORT_TRACE_WRITER_H_
