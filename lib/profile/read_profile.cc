// Reading profiles: the XSpace protobuf through our xplane.proto, trace-event JSON through
// nlohmann_json's SAX reader, gzip through zlib; and finding the file in the folders JAX writes.
// Every reader is bounded (docs/limits.md): what a file may inflate to, how many planes, lines
// and events it may hold and the memory they take are checked as the file is read, so that a
// hostile file ends in an error long before memory runs out.
#include <zlib.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <filesystem>
#include <istream>
#include <map>
#include <optional>
#include <streambuf>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "hloroof/input_file.h"
#include "hloroof/nccl_tests.h"
#include "hloroof/profile.h"
#include "nlohmann/json.hpp"
#include "proto/xplane.pb.h"
#include "proto/xspace_wire.h"
#include "profile/xspace_metadata.h"
#include "hloroof/absl_compat.h"
#include "hloroof/text_safety.h"

namespace hloroof {
namespace {

namespace fs = std::filesystem;

// A JSON string or number longer than this is refused (names and arguments of real traces are
// at most a few kilobytes): the JSON reader holds a token twice while reading it.
constexpr int64_t kMaxJsonToken = int64_t{16} << 20;
// Brackets, braces, commas and colons in a row without a value between them: the JSON reader
// keeps them all until the next value (a trace's events each hold several values).
constexpr int64_t kMaxJsonStructureRun = int64_t{1} << 20;
// Planes named in an error message; the rest are counted.
constexpr size_t kPlanesListed = 16;

bool is_gzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

using xspace::size_words;

// What a profile holds, counted as it is read: events, and the bytes of memory its planes,
// lines and events take (the objects and their strings).
class Budget {
 public:
  explicit Budget(std::string_view origin) : origin_(origin) {}

  absl::Status add_event(const ProfileEvent& e) {
    ++events_;
    bytes_ += static_cast<int64_t>(sizeof(ProfileEvent)) + heap(e.name) + heap(e.hlo_op) +
              heap(e.hlo_module);
    return check();
  }
  absl::Status add(int64_t bytes) {
    bytes_ += bytes;
    return check();
  }
  static int64_t heap(const std::string& s) {
    return s.size() > 15 ? static_cast<int64_t>(s.size()) + 1 : 0;
  }

 private:
  absl::Status check() const {
    if (events_ > kMaxProfileEvents) {
      return absl::ResourceExhaustedError(absl::StrCat(
          origin_, ": holds more than ", kMaxProfileEvents,
          " events, more than hloroof reads from one profile; profile fewer steps"));
    }
    if (bytes_ > kMaxProfileHeldBytes) {
      return absl::ResourceExhaustedError(absl::StrCat(
          origin_, ": its events take more than ", size_words(kMaxProfileHeldBytes),
          " of memory, more than hloroof holds for one profile; profile fewer steps"));
    }
    return absl::OkStatus();
  }

  std::string origin_;
  int64_t events_ = 0;
  int64_t bytes_ = 0;
};

// ---- XSpace ------------------------------------------------------------------------------
//
// Counted in its wire format first, and refused before anything is decoded when it holds too
// many (proto/xspace_wire.h); then each plane is decoded without its lines (its name and
// metadata), and its lines one at a time: at most one line's messages are held beside what was
// read.

using xspace::not_xspace;

// An event's fields that come from its metadata: its name and the metadata's stats.
struct EventTemplate {
  std::string name;
  std::string hlo_op;
  std::string hlo_module;
  uint64_t correlation_id = 0;
  ProfileEventExtra extra;
  bool has_extra = false;
};



// A stat's value as text: strings as they are (bytes that are not UTF-8 replaced), references
// through the stat metadata.
std::string stat_text(const xplane::XStat& stat, const xplane::XPlane& plane) {
  switch (stat.value_case()) {
    case xplane::XStat::kStrValue:
      return utf8_replaced(stat.str_value());
    case xplane::XStat::kRefValue: {
      auto it = plane.stat_metadata().find(static_cast<int64_t>(stat.ref_value()));
      return it == plane.stat_metadata().end() ? std::string() : utf8_replaced(it->second.name());
    }
    case xplane::XStat::kInt64Value:
      return absl::StrCat(stat.int64_value());
    case xplane::XStat::kUint64Value:
      return absl::StrCat(stat.uint64_value());
    default:
      return {};
  }
}

// A stat's value as an unsigned number; 0 when it holds none.
uint64_t stat_number(const xplane::XStat& stat, const xplane::XPlane& plane) {
  switch (stat.value_case()) {
    case xplane::XStat::kUint64Value:
      return stat.uint64_value();
    case xplane::XStat::kInt64Value:
      return stat.int64_value() > 0 ? static_cast<uint64_t>(stat.int64_value()) : 0;
    default: {
      uint64_t n = 0;
      return absl::SimpleAtoi(stat_text(stat, plane), &n) ? n : 0;
    }
  }
}

// Fills hlo_op, hlo_module and correlation_id, and the extra stats (program_id,
// device_offset_ps, device_duration_ps), from the stats that carry them.
template <typename Stats, typename Event>
void read_stats(const Stats& stats, const xplane::XPlane& plane,
                const absl::flat_hash_map<int64_t, std::string>& stat_names, Event& event,
                ProfileEventExtra& extra, bool& has_extra) {
  for (const xplane::XStat& stat : stats) {
    auto name = stat_names.find(stat.metadata_id());
    if (name == stat_names.end()) continue;
    if (name->second == "hlo_op") {
      event.hlo_op = stat_text(stat, plane);
    } else if (name->second == "hlo_module") {
      event.hlo_module = stat_text(stat, plane);
    } else if (name->second == "correlation_id") {
      event.correlation_id = stat_number(stat, plane);
    } else if (name->second == "program_id") {
      extra.program_id = stat_number(stat, plane);
      has_extra = true;
    } else if (name->second == "device_offset_ps") {
      extra.device_start_s = static_cast<double>(stat_number(stat, plane)) * 1e-12;
      has_extra = true;
    } else if (name->second == "device_duration_ps") {
      extra.device_duration_s = static_cast<double>(stat_number(stat, plane)) * 1e-12;
      has_extra = true;
    }
  }
}

// Decodes one plane: `count` from count_plane, `shell` the plane's bytes without its lines.
absl::Status convert_plane(std::string_view shell, const xspace::PlaneCount& count,
                           std::string_view origin, Budget& budget, ProfilePlane& out) {
  xplane::XPlane plane;
  if (!plane.ParseFromArray(shell.data(), static_cast<int>(shell.size()))) {
    return not_xspace(origin);
  }
  out.name = utf8_replaced(plane.name());
  absl::flat_hash_map<int64_t, std::string> stat_names;
  for (const auto& [id, m] : plane.stat_metadata()) stat_names[id] = utf8_replaced(m.name());
  absl::flat_hash_map<int64_t, EventTemplate> templates;
  for (const auto& [id, m] : plane.event_metadata()) {
    EventTemplate& t = templates[id];
    // A TPU op's metadata is named by the instruction's text, and displayed by its name.
    t.name = utf8_replaced(m.display_name().empty() ? m.name() : m.display_name());
    read_stats(m.stats(), plane, stat_names, t, t.extra, t.has_extra);
    if (absl::Status s = budget.add(128 + Budget::heap(t.name) + Budget::heap(t.hlo_op) +
                                    Budget::heap(t.hlo_module));
        !s.ok()) {
      return s;
    }
  }
  out.lines.reserve(count.lines.size());
  for (std::string_view bytes : count.lines) {
    xplane::XLine line;
    if (!line.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
      return not_xspace(origin);
    }
    ProfileLine& l = out.lines.emplace_back();
    l.name = utf8_replaced(line.display_name().empty() ? line.name() : line.display_name());
    if (absl::Status s =
            budget.add(static_cast<int64_t>(sizeof(ProfileLine)) + Budget::heap(l.name));
        !s.ok()) {
      return s;
    }
    const double origin_s = static_cast<double>(line.timestamp_ns()) * 1e-9;
    l.events.reserve(static_cast<size_t>(line.events_size()));
    bool line_has_extra = false;
    for (const xplane::XEvent& e : line.events()) {
      // Aggregated events (num_occurrences) have no place on the timeline.
      if (e.data_case() != xplane::XEvent::kOffsetPs || e.duration_ps() < 0) continue;
      ProfileEvent event;
      ProfileEventExtra extra;
      bool has_extra = false;
      event.start_s = origin_s + static_cast<double>(e.offset_ps()) * 1e-12;
      event.duration_s = static_cast<double>(e.duration_ps()) * 1e-12;
      if (auto t = templates.find(e.metadata_id()); t != templates.end()) {
        event.name = t->second.name;
        event.hlo_op = t->second.hlo_op;
        event.hlo_module = t->second.hlo_module;
        event.correlation_id = t->second.correlation_id;
        extra = t->second.extra;
        has_extra = t->second.has_extra;
      }
      read_stats(e.stats(), plane, stat_names, event, extra, has_extra);
      if (absl::Status s = budget.add_event(event); !s.ok()) return s;
      // The extra stats: kept for every event of the line from the first one that has any.
      if (has_extra && !line_has_extra) {
        if (absl::Status s = budget.add(static_cast<int64_t>(sizeof(ProfileEventExtra)) *
                                        static_cast<int64_t>(l.events.size()));
            !s.ok()) {
          return s;
        }
        l.extra.resize(l.events.size());
        line_has_extra = true;
      }
      if (line_has_extra) {
        if (absl::Status s = budget.add(static_cast<int64_t>(sizeof(ProfileEventExtra)));
            !s.ok()) {
          return s;
        }
        l.extra.push_back(extra);
      }
      l.events.push_back(std::move(event));
    }
  }
  return absl::OkStatus();
}

// ---- Trace-event JSON ----------------------------------------------------------------------
//
// The text streams from the file (inflated 64 KiB at a time when gzipped) through a filter
// into nlohmann_json's SAX reader, which calls TraceReader for each key and value; only the
// fields of the events that are used are kept. The filter bounds the text and what the reader
// holds: it counts the text against kMaxTraceTextBytes, writes each run of whitespace outside
// strings as one space (the reader keeps every character between two values: 4 GiB of
// whitespace would be held twice over), and refuses a token longer than kMaxJsonToken and a run of
// structure longer than kMaxJsonStructureRun.

class TraceText : public std::streambuf {
 public:
  TraceText(std::string_view bytes, std::string_view origin)
      : bytes_(bytes), origin_(origin), gzip_(is_gzip(bytes)) {}
  ~TraceText() override {
    if (inflating_) inflateEnd(&z_);
  }
  TraceText(const TraceText&) = delete;
  TraceText& operator=(const TraceText&) = delete;

  const absl::Status& status() const { return status_; }

  // Reads the text through without parsing it (inflating it 64 KiB at a time when gzipped),
  // counting its "X" events (objects of the event array whose "ph" is "X", as the parse keeps
  // them) and its bytes: an error as soon as either passes its limit, before anything is held.
  // A file's events are counted so before it is parsed: a gzip bomb of 8.4 million events took
  // 7 s and 2 GB to reach kMaxProfileEvents in the parse, and is refused here after 1.7 s of
  // CPU at 5 MB. An event this count misses (a "ph" written with
  // escapes) is still counted by the parse.
  absl::Status count_events() {
    while (status_.ok() && !done_) {
      const std::string_view piece = next_piece();
      text_bytes_ += static_cast<int64_t>(piece.size());
      if (text_bytes_ > kMaxTraceTextBytes) {
        fail(absl::StrCat(gzip_ ? "inflates to" : "is", " more than ",
                          size_words(kMaxTraceTextBytes),
                          " of JSON text, more than hloroof reads from one trace; not read"));
        break;
      }
      count(piece);
      if (events_ > kMaxProfileEvents) {
        return absl::ResourceExhaustedError(absl::StrCat(
            origin_, ": holds more than ", kMaxProfileEvents,
            " events, more than hloroof reads from one profile; profile fewer steps"));
      }
    }
    return status_;
  }

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    out_.clear();
    while (out_.empty()) {
      if (!status_.ok() || done_) return traits_type::eof();
      filter(next_piece());
    }
    if (!status_.ok()) return traits_type::eof();
    setg(out_.data(), out_.data(), out_.data() + out_.size());
    return traits_type::to_int_type(*gptr());
  }

 private:
  static constexpr size_t kPiece = size_t{1} << 16;

  // The next piece of the text, from the file or inflated; empty (and done_ or an error set)
  // at the end.
  std::string_view next_piece() {
    if (!gzip_) {
      const std::string_view piece = bytes_.substr(offset_, kPiece);
      offset_ += piece.size();
      done_ = offset_ >= bytes_.size();
      return piece;
    }
    if (!inflating_) {
      // 15 + 16: a gzip header and trailer around the deflate stream.
      if (inflateInit2(&z_, 15 + 16) != Z_OK) {
        status_ = absl::InternalError(absl::StrCat(origin_, ": zlib failed to start"));
        return {};
      }
      inflating_ = true;
      inflated_.resize(kPiece);
    }
    if (z_.avail_in == 0 && offset_ < bytes_.size()) {
      const size_t n = std::min<size_t>(bytes_.size() - offset_, UINT_MAX);
      z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes_.data() + offset_));
      z_.avail_in = static_cast<uInt>(n);
      offset_ += n;
    }
    z_.next_out = reinterpret_cast<Bytef*>(inflated_.data());
    z_.avail_out = static_cast<uInt>(inflated_.size());
    const int rc = inflate(&z_, Z_NO_FLUSH);
    const size_t produced = inflated_.size() - z_.avail_out;
    if (rc == Z_STREAM_END) {
      // Another member may follow (`cat a.gz b.gz`), read on as zcat does; bytes after the
      // last member that start none are ignored, as zcat does.
      const size_t at = static_cast<size_t>(reinterpret_cast<const char*>(z_.next_in) -
                                            bytes_.data());
      if (is_gzip(bytes_.substr(at))) {
        inflateReset(&z_);
      } else {
        done_ = true;
      }
    } else if (rc != Z_OK && !(rc == Z_BUF_ERROR && z_.avail_in == 0)) {
      status_ = absl::InvalidArgumentError(absl::StrCat(
          origin_, ": not a valid gzip stream (", z_.msg ? z_.msg : "corrupt", ")"));
      return {};
    } else if (produced == 0 && z_.avail_in == 0 && offset_ >= bytes_.size()) {
      status_ = absl::InvalidArgumentError(absl::StrCat(origin_, ": gzip stream is truncated"));
      return {};
    }
    return std::string_view(inflated_.data(), produced);
  }

  void fail(std::string_view why) {
    status_ = absl::InvalidArgumentError(absl::StrCat(origin_, ": ", sv(why)));
    out_.clear();
  }

  void filter(std::string_view piece) {
    text_bytes_ += static_cast<int64_t>(piece.size());
    if (text_bytes_ > kMaxTraceTextBytes) {
      return fail(absl::StrCat(gzip_ ? "inflates to" : "is", " more than ",
                               size_words(kMaxTraceTextBytes),
                               " of JSON text, more than hloroof reads from one trace; not read"));
    }
    for (const char c : piece) {
      if (in_string_) {
        out_.push_back(c);
        if (++token_ > kMaxJsonToken) {
          return fail(absl::StrCat("holds a string longer than ", kMaxJsonToken >> 20,
                                   " MiB: not a trace hloroof reads"));
        }
        if (escape_) {
          escape_ = false;
        } else if (c == '\\') {
          escape_ = true;
        } else if (c == '"') {
          in_string_ = false;
        }
        continue;
      }
      switch (c) {
        case ' ':
        case '\t':
        case '\n':
        case '\r':
          if (!space_) out_.push_back(' ');
          space_ = true;
          token_ = 0;
          continue;
        case '[':
        case ']':
        case '{':
        case '}':
        case ',':
        case ':':
          token_ = 0;
          if (++structure_ > kMaxJsonStructureRun) {
            return fail(absl::StrCat("holds more than ", kMaxJsonStructureRun,
                                     " brackets, braces, commas and colons in a row without a "
                                     "value: not a trace"));
          }
          break;
        case '"':
          in_string_ = true;
          token_ = 1;
          structure_ = 0;
          break;
        default:
          structure_ = 0;
          if (++token_ > kMaxJsonToken) {
            return fail(absl::StrCat("holds a number or word longer than ", kMaxJsonToken >> 20,
                                     " MiB: not a trace hloroof reads"));
          }
      }
      space_ = false;
      out_.push_back(c);
    }
  }

  // count_events' scan of one piece: strings, nesting, and at the events' depth the value of
  // each "ph" key.
  void count(std::string_view piece) {
    for (const char c : piece) {
      if (in_string_) {
        if (escape_) {
          escape_ = false;
          word_.clear();  // an escaped name is no "ph" nor "X" read here
          word_long_ = true;
        } else if (c == '\\') {
          escape_ = true;
        } else if (c == '"') {
          in_string_ = false;
          end_string();
        } else if (word_.size() < 12) {
          word_.push_back(c);
        } else {
          word_long_ = true;
        }
        continue;
      }
      switch (c) {
        case '"':
          in_string_ = true;
          word_.clear();
          word_long_ = false;
          break;
        case '[':
        case '{':
          if (depth_ == 0) root_object_ = c == '{';
          // The event array: the root array, or the root object's "traceEvents".
          if (c == '[' && ((depth_ == 0 && !root_object_) ||
                           (depth_ == 1 && root_object_ && last_key_is_events_))) {
            events_depth_ = depth_ + 1;
          }
          ++depth_;
          ph_value_ = false;
          break;
        case ']':
        case '}':
          if (depth_ == events_depth_) events_depth_ = -1;
          if (depth_ > 0) --depth_;
          ph_value_ = false;
          break;
        case ':':
          ph_value_ = events_depth_ >= 0 && depth_ == events_depth_ + 1 && last_word_ph_;
          break;
        case ',':
          ph_value_ = false;
          break;
        default:
          break;
      }
    }
  }
  void end_string() {
    const bool whole = !word_long_;
    if (depth_ == 1 && root_object_) last_key_is_events_ = whole && word_ == "traceEvents";
    if (events_depth_ >= 0 && depth_ == events_depth_ + 1) {
      if (ph_value_ && whole && word_ == "X") ++events_;
      last_word_ph_ = whole && word_ == "ph";
      ph_value_ = false;
    }
  }

  std::string_view bytes_;
  std::string origin_;
  bool gzip_;
  // count_events' state.
  int64_t events_ = 0, depth_ = 0, events_depth_ = -1;
  bool root_object_ = false, last_key_is_events_ = false, last_word_ph_ = false;
  bool ph_value_ = false, word_long_ = false;
  std::string word_;
  z_stream z_{};
  bool inflating_ = false;
  size_t offset_ = 0;  // bytes of the file handed on (to zlib, or as text)
  bool done_ = false;
  std::vector<char> inflated_;
  std::vector<char> out_;  // the filtered piece the reader reads from
  int64_t text_bytes_ = 0;
  bool in_string_ = false, escape_ = false, space_ = false;
  int64_t token_ = 0, structure_ = 0;
  absl::Status status_;
};

// The trace's events as nlohmann_json's SAX reader gives them: "X" events placed on their
// plane (pid) and line (tid) as they come, "M" events' process and thread names kept. Values of
// unexpected types are ignored as absent, never trusted; a key given twice keeps its last
// value (as the JSON document would).
class TraceReader {
 public:
  TraceReader(std::string_view origin, Budget* budget) : origin_(origin), budget_(budget) {}

  // nlohmann_json's SAX interface.
  bool null() { return scalar({}); }
  bool boolean(bool) { return scalar({}); }
  bool number_integer(int64_t v) {
    return scalar({.kind = Kind::kInteger, .number = static_cast<double>(v), .integer = v});
  }
  bool number_unsigned(uint64_t v) {
    return scalar({.kind = Kind::kUnsigned, .number = static_cast<double>(v), .unsigned_ = v});
  }
  bool number_float(double v, const std::string&) {
    return scalar({.kind = Kind::kFloat, .number = v});
  }
  bool string(std::string& v) { return scalar({.kind = Kind::kString, .text = &v}); }
  bool binary(std::vector<uint8_t>&) { return scalar({}); }
  bool start_object(size_t) { return open(/*object=*/true); }
  bool start_array(size_t) { return open(/*object=*/false); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(std::string& k) {
    field_ = Field::kNone;
    if (depth_ == 1 && root_ == Root::kObject) {
      trace_events_key_ = k == "traceEvents";
    } else if (event_depth_ >= 0 && depth_ == event_depth_) {
      field_ = k == "ph"    ? Field::kPh
               : k == "name" ? Field::kName
               : k == "pid"  ? Field::kPid
               : k == "tid"  ? Field::kTid
               : k == "ts"   ? Field::kTs
               : k == "dur"  ? Field::kDur
               : k == "args" ? Field::kArgs
                             : Field::kNone;
    } else if (args_depth_ >= 0 && depth_ == args_depth_) {
      field_ = k == "hlo_op"           ? Field::kHloOp
               : k == "hlo_module"     ? Field::kHloModule
               : k == "correlation_id" ? Field::kCorrelation
               : k == "name"           ? Field::kLabel
                                       : Field::kNone;
    }
    return true;
  }
  bool parse_error(size_t, const std::string&, const nlohmann::detail::exception&) {
    invalid_ = true;
    return false;
  }

  // The profile read, or what is wrong with the trace.
  absl::StatusOr<Profile> finish() {
    if (!status_.ok()) return status_;
    if (invalid_) return absl::InvalidArgumentError(absl::StrCat(origin_, ": not valid JSON"));
    if (root_ == Root::kObject && !saw_trace_events_) {
      return absl::InvalidArgumentError(
          absl::StrCat(origin_, ": a JSON object without 'traceEvents': not a trace"));
    }
    if (root_ != Root::kArray && (root_ != Root::kObject || !trace_events_array_)) {
      return absl::InvalidArgumentError(
          absl::StrCat(origin_, ": 'traceEvents' is not an array of events"));
    }
    for (size_t k = 0; k < profile_.planes.size(); ++k) {
      const std::string& pid = plane_pids_[k];
      auto name = process_names_.find(pid);
      profile_.planes[k].name =
          name != process_names_.end() ? name->second : absl::StrCat("pid ", pid);
    }
    for (const auto& [key, at] : line_index_) {
      auto name = thread_names_.find(key);
      profile_.planes[at.first].lines[at.second].name =
          name != thread_names_.end() ? name->second : absl::StrCat("tid ", key.second);
    }
    profile_.origin = origin_;
    profile_.format = "trace-json";
    return std::move(profile_);
  }

 private:
  enum class Root { kUnknown, kArray, kObject, kScalar };
  enum class Field {
    kNone, kPh, kName, kPid, kTid, kTs, kDur, kArgs,              // of an event
    kHloOp, kHloModule, kCorrelation, kLabel,                     // of its args
  };
  enum class Kind { kOther, kInteger, kUnsigned, kFloat, kString };
  struct Scalar {
    Kind kind = Kind::kOther;
    double number = 0;
    int64_t integer = 0;
    uint64_t unsigned_ = 0;
    std::string* text = nullptr;
  };
  // The fields of the event being read.
  struct Event {
    std::string ph, name, pid, tid;
    std::optional<double> ts, dur;
    std::string hlo_op, hlo_module, correlation, label;
  };

  // pid and tid: numbers in Chrome's format, sometimes strings.
  static std::string id_text(const Scalar& v) {
    switch (v.kind) {
      case Kind::kString:
        return std::move(*v.text);
      case Kind::kInteger:
        return absl::StrCat(v.integer);
      case Kind::kUnsigned:
        return absl::StrCat(v.unsigned_);
      case Kind::kFloat:
        return absl::StrCat(v.number);
      default:
        return {};
    }
  }
  // An argument: a string, or a number as JSON writes it.
  static std::string arg_text(const Scalar& v) {
    switch (v.kind) {
      case Kind::kString:
        return std::move(*v.text);
      case Kind::kInteger:
        return absl::StrCat(v.integer);
      case Kind::kUnsigned:
        return absl::StrCat(v.unsigned_);
      case Kind::kFloat:
        return nlohmann::json(v.number).dump();
      default:
        return {};
    }
  }

  void clear_args() {
    event_.hlo_op.clear();
    event_.hlo_module.clear();
    event_.correlation.clear();
    event_.label.clear();
  }

  // A value for `field_` (a container: `v` of kind kOther, the field absent).
  void assign(const Scalar& v) {
    const bool number = v.kind == Kind::kInteger || v.kind == Kind::kUnsigned ||
                        v.kind == Kind::kFloat;
    switch (field_) {
      case Field::kNone:
        break;
      case Field::kPh:
        event_.ph = v.kind == Kind::kString ? std::move(*v.text) : std::string();
        break;
      case Field::kName:
        event_.name = v.kind == Kind::kString ? std::move(*v.text) : std::string();
        break;
      case Field::kPid:
        event_.pid = id_text(v);
        break;
      case Field::kTid:
        event_.tid = id_text(v);
        break;
      case Field::kTs:
        event_.ts = number ? std::optional<double>(v.number) : std::nullopt;
        break;
      case Field::kDur:
        event_.dur = number ? std::optional<double>(v.number) : std::nullopt;
        break;
      case Field::kArgs:
        clear_args();
        break;
      case Field::kHloOp:
        event_.hlo_op = arg_text(v);
        break;
      case Field::kHloModule:
        event_.hlo_module = arg_text(v);
        break;
      case Field::kCorrelation:
        event_.correlation = arg_text(v);
        break;
      case Field::kLabel:
        event_.label = arg_text(v);
        break;
    }
    field_ = Field::kNone;
  }

  bool scalar(const Scalar& v) {
    if (depth_ == 0) {
      root_ = Root::kScalar;
    } else if (depth_ == 1 && root_ == Root::kObject && trace_events_key_) {
      saw_trace_events_ = true;
      trace_events_array_ = false;
      trace_events_key_ = false;
    } else {
      assign(v);
    }
    return true;
  }

  bool open(bool object) {
    if (depth_ == 0) {
      root_ = object ? Root::kObject : Root::kArray;
      if (!object) events_depth_ = 1;
    } else if (depth_ == 1 && root_ == Root::kObject && trace_events_key_) {
      // 'traceEvents' given twice: the last one counts, as in the JSON document.
      if (saw_trace_events_) restart();
      saw_trace_events_ = true;
      trace_events_array_ = !object;
      trace_events_key_ = false;
      if (!object) events_depth_ = 2;
    } else if (events_depth_ >= 0 && depth_ == events_depth_ && object) {
      event_depth_ = depth_ + 1;
      event_ = Event();
    } else if (field_ == Field::kArgs && depth_ == event_depth_ && object) {
      args_depth_ = depth_ + 1;
      clear_args();
      field_ = Field::kNone;
    } else {
      assign({});  // a container where a value was expected: the field is absent
    }
    field_ = Field::kNone;
    ++depth_;
    return true;
  }

  bool close() {
    --depth_;
    if (depth_ + 1 == args_depth_) {
      args_depth_ = -1;
    } else if (depth_ + 1 == event_depth_) {
      event_depth_ = -1;
      if (absl::Status s = finish_event(); !s.ok()) {
        status_ = s;
        return false;
      }
    } else if (depth_ + 1 == events_depth_) {
      events_depth_ = -1;
    }
    field_ = Field::kNone;
    return true;
  }

  void restart() {
    last_line_.reset();
    profile_.planes.clear();
    plane_pids_.clear();
    plane_index_.clear();
    line_index_.clear();
    process_names_.clear();
    thread_names_.clear();
  }

  absl::Status finish_event() {
    Event& e = event_;
    if (e.ph == "M") {
      if (e.name == "process_name") {
        if (absl::Status s = budget_->add(96 + Budget::heap(e.pid) + Budget::heap(e.label));
            !s.ok()) {
          return s;
        }
        process_names_[e.pid] = std::move(e.label);
      } else if (e.name == "thread_name") {
        if (absl::Status s = budget_->add(128 + Budget::heap(e.pid) + Budget::heap(e.tid) +
                                          Budget::heap(e.label));
            !s.ok()) {
          return s;
        }
        thread_names_[{e.pid, e.tid}] = std::move(e.label);
      }
      return absl::OkStatus();
    }
    if (e.ph != "X" || !e.ts || !e.dur) return absl::OkStatus();
    const double start_us = *e.ts, duration_us = *e.dur;
    if (!std::isfinite(start_us) || !std::isfinite(duration_us) || duration_us < 0) {
      return absl::OkStatus();
    }
    // Events of one thread mostly come one after another: the last line is looked up first.
    if (!last_line_ || e.pid != last_pid_ || e.tid != last_tid_) {
      absl::StatusOr<std::pair<size_t, size_t>> at = line_of(e.pid, e.tid);
      if (!at.ok()) return at.status();
      last_line_ = *at;
      last_pid_ = e.pid;
      last_tid_ = e.tid;
    }
    ProfileLine& line = profile_.planes[last_line_->first].lines[last_line_->second];
    ProfileEvent event;
    event.name = std::move(e.name);
    event.start_s = start_us * 1e-6;
    event.duration_s = duration_us * 1e-6;
    event.hlo_op = std::move(e.hlo_op);
    event.hlo_module = std::move(e.hlo_module);
    uint64_t correlation = 0;
    if (absl::SimpleAtoi(e.correlation, &correlation)) event.correlation_id = correlation;
    if (absl::Status s = budget_->add_event(event); !s.ok()) return s;
    line.events.push_back(std::move(event));
    return absl::OkStatus();
  }

  // The plane and line of (pid, tid), made when first seen.
  absl::StatusOr<std::pair<size_t, size_t>> line_of(const std::string& pid,
                                                    const std::string& tid) {
    auto [plane, new_plane] = plane_index_.try_emplace(pid, profile_.planes.size());
    if (new_plane) {
      profile_.planes.emplace_back();
      plane_pids_.push_back(pid);
      if (absl::Status s =
              budget_->add(static_cast<int64_t>(sizeof(ProfilePlane)) + 2 * Budget::heap(pid));
          !s.ok()) {
        return s;
      }
    }
    ProfilePlane& pl = profile_.planes[plane->second];
    auto [line, new_line] =
        line_index_.try_emplace({pid, tid}, std::make_pair(plane->second, pl.lines.size()));
    if (new_line) {
      pl.lines.emplace_back();
      if (absl::Status s = budget_->add(static_cast<int64_t>(sizeof(ProfileLine)) + 64 +
                                        Budget::heap(pid) + 2 * Budget::heap(tid));
          !s.ok()) {
        return s;
      }
    }
    return line->second;
  }

  std::string origin_;
  Budget* budget_;
  absl::Status status_;
  bool invalid_ = false;
  int64_t depth_ = 0;  // containers open
  Root root_ = Root::kUnknown;
  bool trace_events_key_ = false;  // the root object's last key was "traceEvents"
  bool saw_trace_events_ = false;
  bool trace_events_array_ = false;
  int64_t events_depth_ = -1;  // depth inside the events array, while it is open
  int64_t event_depth_ = -1;   // depth inside the event being read
  int64_t args_depth_ = -1;    // depth inside its args
  Field field_ = Field::kNone;
  Event event_;
  Profile profile_;
  std::vector<std::string> plane_pids_;
  // The line of the last event placed, and its pid and tid.
  std::optional<std::pair<size_t, size_t>> last_line_;
  std::string last_pid_, last_tid_;
  std::map<std::string, size_t> plane_index_;
  std::map<std::pair<std::string, std::string>, std::pair<size_t, size_t>> line_index_;
  std::map<std::string, std::string> process_names_;
  std::map<std::pair<std::string, std::string>, std::string> thread_names_;
};

}  // namespace

absl::StatusOr<Profile> parse_xspace(std::string_view bytes, std::string_view origin) {
  absl::StatusOr<std::vector<xspace::PlaneCount>> planes = xspace::count_xspace(bytes, origin);
  if (!planes.ok()) return planes.status();
  Profile p;
  p.origin = std::string(origin);
  p.format = "xplane";
  Budget budget(origin);
  p.planes.reserve(planes->size());
  for (const xspace::PlaneCount& count : *planes) {
    const std::string shell = xspace::plane_shell(count.bytes);
    if (absl::Status s = convert_plane(shell, count, origin, budget, p.planes.emplace_back());
        !s.ok()) {
      return s;
    }
    // What the plane says besides its timeline (xspace_metadata.h), from the same shell.
    xplane::XPlane meta;
    if (meta.ParseFromString(shell)) read_plane_metadata(meta, &p.planes.back(), &p);
  }
  finish_xspace_metadata(&p);
  return p;
}

absl::StatusOr<Profile> parse_trace_json(std::string_view bytes, std::string_view origin) {
  {
    TraceText counted(bytes, origin);
    if (absl::Status s = counted.count_events(); !s.ok()) return s;
  }
  Budget budget(origin);
  TraceText text(bytes, origin);
  std::istream stream(&text);
  TraceReader reader(origin, &budget);
  nlohmann::json::sax_parse(stream, &reader);
  // The text's own error (too long, not gzip) comes first: the reader saw its end as a cut.
  if (!text.status().ok()) return text.status();
  return reader.finish();
}

namespace {

bool is_xspace_name(const std::string& name) { return absl::EndsWith(name, ".xplane.pb"); }
bool is_trace_name(const std::string& name) {
  return absl::EndsWith(name, ".trace.json.gz") || absl::EndsWith(name, ".trace.json") ||
         name == "perfetto_trace.json.gz" || name == "perfetto_trace.json";
}

// The profile file directly in `dir`: an XSpace first, then a trace; nullopt when none.
std::optional<fs::path> profile_file_in(const fs::path& dir) {
  std::vector<fs::path> xspaces, traces;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    if (!entry.is_regular_file(ec)) continue;
    const std::string name = entry.path().filename().string();
    if (is_xspace_name(name)) xspaces.push_back(entry.path());
    if (is_trace_name(name)) traces.push_back(entry.path());
  }
  std::sort(xspaces.begin(), xspaces.end());
  std::sort(traces.begin(), traces.end());
  if (!xspaces.empty()) return xspaces.front();
  if (!traces.empty()) return traces.front();
  return std::nullopt;
}

// The profile files of `dir`, in the order they are looked for: DIR itself, DIR/plugins/
// profile/RUN (the last run by name first: runs are named by their time), DIR/profile (a
// capture folder); one file of each folder.
void find_profile_files(const fs::path& dir, int depth, std::vector<fs::path>& out) {
  if (std::optional<fs::path> f = profile_file_in(dir)) out.push_back(*f);
  std::error_code ec;
  const fs::path runs = dir / "plugins" / "profile";
  if (fs::is_directory(runs, ec)) {
    std::vector<fs::path> names;
    for (const fs::directory_entry& entry : fs::directory_iterator(runs, ec)) {
      if (entry.is_directory(ec)) names.push_back(entry.path());
    }
    std::sort(names.rbegin(), names.rend());
    for (const fs::path& run : names) {
      if (std::optional<fs::path> f = profile_file_in(run)) out.push_back(*f);
    }
  }
  if (depth > 0 && fs::is_directory(dir / "profile", ec)) {
    find_profile_files(dir / "profile", depth - 1, out);
  }
}

// The profile in `file`.
absl::StatusOr<Profile> read_profile_file(const fs::path& file) {
  // The checks every input gets: a regular file (not /dev/zero, not a named pipe), its size
  // known and within the limit.
  absl::StatusOr<InputFile> read = read_input_file(file.string(), kMaxProfileFileBytes);
  if (!read.ok()) return read.status();
  const std::string_view bytes = read->text();
  const std::string name = file.filename().string();
  const std::string origin = file.string();
  const bool json_name = absl::EndsWith(name, ".json") || absl::EndsWith(name, ".json.gz");
  const bool looks_json = !bytes.empty() && (bytes[0] == '{' || bytes[0] == '[');
  if (json_name || is_gzip(bytes) || looks_json) return parse_trace_json(bytes, origin);
  absl::StatusOr<Profile> profile = parse_xspace(bytes, origin);
  if (!profile.ok() && looks_like_nccl_tests(bytes)) {
    // Given where a profile goes: among profiles, or on standard input.
    return absl::InvalidArgumentError(absl::StrCat(
        origin == "-" ? "standard input" : origin,
        ": an nccl-tests log, not a profile; `hloroof calibrate LOG... --device D` reads "
        "nccl-tests logs as files (not standard input), every input a log"));
  }
  return profile;
}

}  // namespace

absl::StatusOr<Profile> read_profile(std::string_view path_text) {
  const fs::path path{std::string(path_text)};
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return read_profile_file(path);
  std::vector<fs::path> found;
  find_profile_files(path, 1, found);
  if (found.empty()) {
    return absl::NotFoundError(absl::StrCat(
        "no profile in '", path.string(),
        "': looked for *.xplane.pb, perfetto_trace.json.gz or *.trace.json.gz there, in "
        "plugins/profile/RUN/ and in profile/"));
  }
  // The runs hloroof predicted into the folder (`predict --xspace`) are passed over for the
  // next one measured; where there is none, the first is read (and refused as a measurement).
  std::optional<absl::StatusOr<Profile>> first;
  for (const fs::path& file : found) {
    absl::StatusOr<Profile> profile = read_profile_file(file);
    if (!profile.ok() || !is_predicted_profile(*profile)) return profile;
    if (!first) first = std::move(profile);
  }
  return *std::move(first);
}

absl::StatusOr<const ProfilePlane*> device_plane(const Profile& profile, int index) {
  const std::string suffix = absl::StrCat(":", index);
  const ProfilePlane* loose = nullptr;
  for (const ProfilePlane& plane : profile.planes) {
    for (std::string_view kind : {"GPU", "TPU"}) {
      const std::string wanted = absl::StrCat(sv(kind), suffix);
      size_t at = plane.name.find(wanted);
      while (at != std::string::npos) {
        const size_t end = at + wanted.size();
        const bool whole = end == plane.name.size() || !absl::ascii_isdigit(plane.name[end]);
        if (whole) {
          if (plane.name.compare(0, 8, "/device:") == 0) return &plane;
          if (loose == nullptr) loose = &plane;
        }
        at = plane.name.find(wanted, at + 1);
      }
    }
  }
  if (loose != nullptr) return loose;
  // The planes there are, the first kPlanesListed of them (a hostile file may hold thousands).
  std::string names;
  for (size_t k = 0; k < profile.planes.size() && k < kPlanesListed; ++k) {
    absl::StrAppend(&names, names.empty() ? "" : ", ", "'", printable(profile.planes[k].name), "'");
  }
  if (profile.planes.size() > kPlanesListed) {
    absl::StrAppend(&names, " and ", profile.planes.size() - kPlanesListed, " more");
  }
  return absl::NotFoundError(absl::StrCat(profile.origin, ": no plane for device ", index, " (GPU",
                                          suffix, " or TPU", suffix, "); the profile has ",
                                          profile.planes.empty() ? "no planes" : names,
                                          ". Pick another with --device-index"));
}

}  // namespace hloroof
