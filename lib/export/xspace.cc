// The predicted step as an XSpace (lib/proto/xplane.proto) in the shape XProf's converters
// read. The names and their meaning come from openxla/xprof and openxla/xla (docs/xspace.md
// cites file and commit for each):
//  - line names "XLA Modules", "XLA Ops", "Async XLA Ops", "Steps" and the stat names
//    (xla/tsl/profiler/utils/xplane_schema.cc);
//  - op metrics: an "XLA Ops" event's metadata gives the op's display name, its text (name),
//    program_id, symbol_id (0 is the root and is skipped), hlo_category, tf_op, flops,
//    model_flops, bytes_accessed; nested events count as children, so a loop's own time is
//    what its body leaves (xprof/utils/op_metrics_db_utils.cc,
//    xprof/convert/xplane_to_op_metrics_db.cc);
//  - the TPU roofline: the device plane's peak_teraflops_per_second,
//    peak_hbm_bw_gigabytes_per_second, peak_sram_rd/wr_bw_gigabytes_per_second
//    (xprof/convert/xplane_to_op_stats.cc, GetPerfEnvFromXPlane);
//  - GPUs: kernels with hlo_op, hlo_module, program_id and correlation_id
//    (xprof/utils/gpu_event_stats.cc); the peaks from clock_rate, core_count,
//    compute_cap_major/minor and memory_bandwidth (xprof/utils/hardware_type_utils.cc).
#include "hloroof/xspace.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <filesystem>
#include <future>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_format.h"
#include "export/hlo_proto_pieces.h"
#include "export/instruction_ids.h"
#include "export/message_arena.h"
#include "export/wire_writer.h"
#include "proto/xplane.pb.h"
#include "hloroof/hlo_proto_writer.h"
#include "hloroof/hlo_text.h"
#include "hloroof/memory.h"
#include "hloroof/output_file.h"
#include "hloroof/shape_text.h"
#include "hloroof/text_pool.h"
#include "predict/op_index.h"
#include "ir/shape_printer.h"
#include "hloroof/wrap.h"
#include "text/printer.h"
#include "hloroof/absl_compat.h"
#include "util/string_view_hash.h"
#include "hloroof/threads.h"

namespace hloroof {
namespace {

namespace fs = std::filesystem;
namespace xp = hloroof::xplane;

// Events written in all, every step: a bound that keeps a deep loop nest's file in memory.
constexpr int64_t kMaxEvents = 4'000'000;

constexpr const char* kPredicted = kPredictedByHloroof;

// FNV-1a, 64 bits: a program id that is the same for the same module name on every machine.
uint64_t fingerprint(std::string_view text) {
  uint64_t h = 14695981039346656037ull;
  for (char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h == 0 ? 1 : h;
}

// Seconds to whole picoseconds; negative and non-finite times last no time.
int64_t to_ps(double seconds) {
  if (!std::isfinite(seconds) || seconds <= 0) return 0;
  const double ps = std::round(seconds * 1e12);
  return ps >= 9e18 ? int64_t{9'000'000'000'000'000'000} : static_cast<int64_t>(ps);
}

uint64_t to_count(double value) {
  if (!std::isfinite(value) || value <= 0) return 0;
  return value >= 1.8e19 ? std::numeric_limits<uint64_t>::max()
                         : static_cast<uint64_t>(std::llround(value));
}

// XProf's MemoryAccessBreakdown message (plugin/xprof/protobuf/op_metrics.proto): repeated
// MemoryAccessed memory_accessed = 1, each {operation_type = 1 (READ = 1), memory_space = 2
// (HBM = 1, on-chip = 2147483646), bytes_accessed = 3}. Written by hand: the message is three
// integers, and its .proto is XProf's, not ours. Made for every op twice: in place, no string.
class MemoryAccessBreakdown {
 public:
  MemoryAccessBreakdown(double hbm_bytes, double on_chip_bytes) {
    add(1, hbm_bytes);
    add(2147483646, on_chip_bytes);
  }
  std::string_view bytes() const { return {reinterpret_cast<const char*>(bytes_.data()), size_}; }

 private:
  using Coded = google::protobuf::io::CodedOutputStream;
  void add(uint64_t space, double bytes) {
    if (bytes <= 0) return;
    uint8_t* entry = bytes_.data() + size_ + 2;  // after its tag and one-byte length
    uint8_t* p = entry;
    *p++ = 0x08;  // field 1, varint: operation_type
    p = Coded::WriteVarint64ToArray(1, p);
    *p++ = 0x10;  // field 2, varint: memory_space
    p = Coded::WriteVarint64ToArray(space, p);
    *p++ = 0x18;  // field 3, varint: bytes_accessed
    p = Coded::WriteVarint64ToArray(to_count(bytes), p);
    bytes_[size_] = 0x0a;  // field 1, length-delimited: memory_accessed
    bytes_[size_ + 1] = static_cast<uint8_t>(p - entry);  // at most kEntryBytes
    size_ = static_cast<size_t>(p - bytes_.data());
  }
  // An entry's tags (3), 1, the space (at most 5 bytes) and the count (at most 10).
  static constexpr size_t kEntryBytes = 3 + 1 + 5 + 10;
  std::array<uint8_t, 2 * (2 + kEntryBytes)> bytes_{};
  size_t size_ = 0;
};

// An event metadata's fields after its id and name (XEventMetadata: display_name (4), then
// stats (5), each an XStat {metadata_id (1), its value}), or an event's stats (XEvent.stats,
// 4), written as they are given: a message made for each of thousands of ops or events cost
// more than the rest of its plane.
class EventFields {
 public:
  explicit EventFields(int stats_field = 5) : stats_tag_(tag(stats_field, kLength)) {}

  // Its display name: before any stat.
  void set_display_name(std::string_view name) {
    proto_internal::WireWriter(bytes_).bytes(4, name);
  }

  // An XStat {metadata_id (1) `stat`, `field` set to `value`}: the value is a oneof member,
  // written whatever it is. Varint fields: 3 (uint64), 4 (int64), 7 (ref).
  void add_varint(int64_t stat, int field, uint64_t value) {
    uint8_t b[2 + 2 * (1 + kMaxVarint)];
    uint8_t* p = b + 2;  // after the tag and the one-byte length (the fields are < 128 bytes)
    *p++ = tag(1, kVarint);
    p = Coded::WriteVarint64ToArray(static_cast<uint64_t>(stat), p);
    *p++ = tag(field, kVarint);
    p = Coded::WriteVarint64ToArray(value, p);
    b[0] = stats_tag_;
    b[1] = static_cast<uint8_t>(p - b - 2);
    bytes_.append(reinterpret_cast<const char*>(b), static_cast<size_t>(p - b));
  }
  // The same with a length-delimited field: 5 (str), 6 (bytes).
  void add_text(int64_t stat, int field, std::string_view value) {
    add_text_header(stat, field, value.size());
    bytes_.append(value);
  }
  // add_text's bytes but the value's `size` bytes, which the caller writes right after them.
  void add_text_header(int64_t stat, int field, size_t size) {
    const size_t fields = 1 + Coded::VarintSize64(static_cast<uint64_t>(stat)) +
                          proto_internal::WireWriter::field_size(size);
    uint8_t b[4 * (1 + kMaxVarint)];
    uint8_t* p = b;
    *p++ = stats_tag_;
    p = Coded::WriteVarint64ToArray(fields, p);
    *p++ = tag(1, kVarint);
    p = Coded::WriteVarint64ToArray(static_cast<uint64_t>(stat), p);
    *p++ = tag(field, kLength);
    p = Coded::WriteVarint64ToArray(size, p);
    bytes_.append(reinterpret_cast<const char*>(b), static_cast<size_t>(p - b));
  }

 private:
  friend class PlaneBuilder;
  friend class LineBuilder;
  using Coded = google::protobuf::io::CodedOutputStream;
  static constexpr int kMaxVarint = 10;
  static constexpr int kVarint = 0, kLength = 2;  // wire types
  static constexpr uint8_t tag(int field, int wire_type) {
    return static_cast<uint8_t>(field << 3 | wire_type);
  }
  uint8_t stats_tag_;
  std::string bytes_;
};

// One line of a plane, its events serialized as they are added (XLine: id (1), name (2),
// timestamp_ns (3), events (4), display_name (11)): a message for each of the thousands of
// events held them at several times their bytes, and the plane's serialization once more.
class LineBuilder {
 public:
  LineBuilder(int64_t id, std::string_view name, std::string_view display_name,
              int64_t timestamp_ns)
      : display_name_(display_name) {
    proto_internal::WireWriter w(head_);
    w.integer(1, id);
    w.bytes(2, name);
    w.integer(3, timestamp_ns);
  }

  // A new event (XEvent: metadata_id (1), offset_ps (2, a oneof member: written whatever it
  // is), duration_ps (3)); the stats added to what it returns follow it, until the next.
  EventFields& add_event(int64_t metadata_id, int64_t offset_ps, int64_t duration_ps) {
    close_event();
    proto_internal::WireWriter w(event_.bytes_);
    w.integer(1, metadata_id);
    w.key(2, offset_ps);
    w.integer(3, duration_ps);
    return event_;
  }

  // XPlane.lines (3): this line, its bytes handed to `emit` in pieces.
  void finish(absl::FunctionRef<void(std::string_view)> emit) {
    close_event();
    using proto_internal::WireWriter;
    std::string head;
    WireWriter w(head);
    w.header(3, body_size());
    w.raw(head_);
    emit(head);
    for (const std::string& piece : events_.pieces()) emit(piece);
    head.clear();
    w.bytes(11, display_name_);
    emit(head);
  }
  // The bytes finish() hands over (the last event made part of the line).
  size_t field_size() {
    close_event();
    return proto_internal::WireWriter::field_size(body_size());
  }

 private:
  // The line's fields, its events closed.
  size_t body_size() const {
    return head_.size() + events_.size() + proto_internal::WireWriter::bytes_size(display_name_);
  }
  // The event being made, into the line: XLine.events (4).
  void close_event() {
    if (event_.bytes_.empty()) return;
    const size_t size = event_.bytes_.size();
    proto_internal::WireWriter w(events_.last(proto_internal::WireWriter::field_size(size)));
    w.header(4, size);
    w.raw(event_.bytes_);
    event_.bytes_.clear();
  }

  std::string display_name_;  // its last field
  std::string head_;          // id, name, timestamp_ns
  EventFields event_{4};
  proto_internal::SerializedPieces events_;
};

// The bytes of pieces written one after the other.
size_t total_size(const std::vector<std::string>& pieces) {
  size_t bytes = 0;
  for (const std::string& p : pieces) bytes += p.size();
  return bytes;
}

// One plane under construction, written (finish) as soon as it is laid out: its lines and stats
// as messages, its stat and event metadata interned by name and serialized as each is made (an
// op's metadata, its text and costs, is most of a plane's bytes: as messages, several times
// that). Ids are given in the order the metadata is made, so the map entries are written in
// order of their keys, as protobuf's deterministic serialization writes them.
class PlaneBuilder {
 public:
  PlaneBuilder(int64_t id, std::string name) {
    plane_->set_id(id);
    plane_->set_name(std::move(name));
  }

  int64_t stat_id(std::string_view name) {
    if (auto it = stats_.find(name); it != stats_.end()) return it->second;
    const auto id = static_cast<int64_t>(stats_.size()) + 1;
    stats_.emplace(names_.save_once(name), id);
    // XPlane.stat_metadata (5): {key (1), value (2): XStatMetadata {id (1), name (2)}}.
    // Its name and at most 30 bytes of tags, lengths and ids.
    proto_internal::WireWriter w(stat_metadata_.last(name.size() + 30));
    const size_t entry = w.open(5);
    w.key(1, id);
    const size_t value = w.open(2);
    w.integer(1, id);
    w.bytes(2, name);
    w.close(value);
    w.close(entry);
    return id;
  }

  // stat_id of a string literal: the ids of the last ones met kept by their address, which
  // names the same text for the whole program (hashed: literals lie a few bytes apart).
  template <size_t N>
  int64_t literal_stat_id(const char (&name)[N]) {
    const uint64_t hash = reinterpret_cast<uintptr_t>(name) * uint64_t{0x9e3779b97f4a7c15};
    auto& [text, id] = literal_ids_[hash >> (64 - kLiteralIdBits)];
    if (text != name) {
      text = name;
      id = stat_id(std::string_view(name, N - 1));
    }
    return id;
  }

  // The id of the event metadata named `name`; where it is new, made with `fill` (the stats and
  // display name to add to its id and name).
  int64_t event_id(std::string_view name,
                   absl::FunctionRef<void(EventFields&)> fill = [](EventFields&) {}) {
    if (auto it = events_.find(name); it != events_.end()) return it->second;
    const int64_t id = ++event_count_;
    events_.emplace(names_.save_once(name), id);
    add_event_metadata(id, name, fill);
    return id;
  }
  // An event metadata's fields made into `fields` for `key`, and its name (valid until the
  // next call): the same every time for the same key.
  using Remake = absl::FunctionRef<std::string_view(const void* key, EventFields& fields)>;
  // A new event metadata, which no other of the plane names, made by `make` for `key`: the
  // plane counts its bytes but does not keep them, and finish() has them made again in their
  // turn (an op's metadata, its text and costs, is most of a plane's bytes: megabytes kept).
  int64_t new_remade_event_id(const void* key, Remake make) {
    const int64_t id = ++event_count_;
    fields_.bytes_.clear();
    const std::string_view name = make(key, fields_);
    remade_.push_back({event_metadata_.size(), key, id});
    remade_bytes_ += proto_internal::WireWriter::field_size(
        entry_size(id, value_size(id, name, fields_.bytes_.size())));
    return id;
  }

  // An event metadata of the given id (the plane's others are numbered from 1).
  void add_event_metadata(int64_t id, std::string_view name,
                          absl::FunctionRef<void(EventFields&)> fill) {
    fields_.bytes_.clear();
    fill(fields_);
    write_event_metadata(id, name, {});
  }
  // The same with one stat only: bytes (6), the pieces of `bytes` one after the other, which
  // the plane then holds as they are rather than a copy (the HloProto's, megabytes).
  template <size_t N>
  void add_event_metadata(int64_t id, std::string_view name, const char (&stat)[N],
                          std::vector<std::string> bytes) {
    fields_.bytes_.clear();
    fields_.add_text_header(literal_stat_id(stat), 6, total_size(bytes));
    write_event_metadata(id, name, std::move(bytes));
  }

  // A new line, after those made before; the plane keeps it (its address stays).
  LineBuilder* add_line(int64_t id, std::string_view name, std::string_view display_name,
                        int64_t timestamp_ns) {
    return &lines_.emplace_back(id, name, display_name, timestamp_ns);
  }

  using Stats = google::protobuf::RepeatedPtrField<xp::XStat>;

  // The plane's own stats.
  Stats* stats() { return stats_holder_->mutable_stats(); }

  void add_str(Stats* stats, std::string_view name, std::string_view value) {
    xp::XStat* s = stats->Add();
    s->set_metadata_id(stat_id(name));
    s->set_str_value(std::string(value));
  }
  void add_double(Stats* stats, std::string_view name, double value) {
    xp::XStat* s = stats->Add();
    s->set_metadata_id(stat_id(name));
    s->set_double_value(value);
  }
  void add_uint(Stats* stats, std::string_view name, uint64_t value) {
    xp::XStat* s = stats->Add();
    s->set_metadata_id(stat_id(name));
    s->set_uint64_value(value);
  }
  void add_int(Stats* stats, std::string_view name, int64_t value) {
    xp::XStat* s = stats->Add();
    s->set_metadata_id(stat_id(name));
    s->set_int64_value(value);
  }
  // The same as an event metadata's stats, named by string literals (made for thousands of
  // ops: their ids are found by the literal's address).
  template <size_t N>
  void add_str(EventFields* fields, const char (&name)[N], std::string_view value) {
    fields->add_text(literal_stat_id(name), 5, value);
  }
  template <size_t N>
  void add_bytes(EventFields* fields, const char (&name)[N], std::string_view value) {
    fields->add_text(literal_stat_id(name), 6, value);
  }
  template <size_t N>
  void add_uint(EventFields* fields, const char (&name)[N], uint64_t value) {
    fields->add_varint(literal_stat_id(name), 3, value);
  }
  template <size_t N>
  void add_int(EventFields* fields, const char (&name)[N], int64_t value) {
    fields->add_varint(literal_stat_id(name), 4, static_cast<uint64_t>(value));
  }

  // A string value held once in the stat metadata (XProf's "ref" values): the stat's name is
  // given its id before the value is.
  template <size_t N>
  void add_ref(EventFields* fields, const char (&name)[N], std::string_view value) {
    const int64_t key = literal_stat_id(name);
    fields->add_varint(key, 7, static_cast<uint64_t>(stat_id(value)));
  }

  // The plane's bytes handed to `emit` as a field of the XSpace (planes, 1): id (1), name
  // (2), lines (3), event metadata (4), stat metadata (5), stats (6). False where an event
  // metadata made again by `remake` came to other bytes than it did the first time, or named a
  // stat that no other had (the plane's length, written first, is then wrong: the bytes must
  // not be kept).
  [[nodiscard]] bool finish(absl::FunctionRef<void(std::string_view)> emit,
                            std::optional<Remake> remake = std::nullopt) {
    size_t lines = 0;
    for (LineBuilder& line : lines_) lines += line.field_size();
    std::string bytes;
    proto_internal::WireWriter w(bytes);
    w.header(1, plane_->ByteSizeLong() + lines + event_metadata_.size() + remade_bytes_ +
                    stat_metadata_.size() + stats_holder_->ByteSizeLong());
    w.append(*plane_);
    emit(bytes);
    for (LineBuilder& line : lines_) line.finish(emit);
    // (Made again, an event metadata names the stats it named the first time: none is added.)
    const size_t stats = stat_metadata_.size();
    const bool same = emit_event_metadata(emit, remake) && stat_metadata_.size() == stats;
    for (const std::string& piece : stat_metadata_.pieces()) emit(piece);
    bytes.clear();
    w.append(*stats_holder_);
    emit(bytes);
    return same;
  }

 private:
  // A field below 16 (a one-byte tag) holding `id`.
  static size_t id_size(int64_t id) {
    return 1 + google::protobuf::io::CodedOutputStream::VarintSize64(static_cast<uint64_t>(id));
  }
  // An XEventMetadata's bytes: its id, name and `fields` bytes of the rest.
  static size_t value_size(int64_t id, std::string_view name, size_t fields) {
    return (id != 0 ? id_size(id) : 0) + proto_internal::WireWriter::bytes_size(name) + fields;
  }
  // A map entry's bytes: its key, then its value of `value` bytes.
  static size_t entry_size(int64_t id, size_t value) {
    return id_size(id) + proto_internal::WireWriter::field_size(value);
  }

  // XPlane.event_metadata (4): {key (1), value (2): {id (1), name (2), the fields, then
  // `tail` and `more`}}, the lengths counted first, into `out`.
  void write_entry(std::string& out, int64_t id, std::string_view name, size_t tail) {
    const size_t value = value_size(id, name, fields_.bytes_.size() + tail);
    proto_internal::WireWriter w(out);
    w.header(4, entry_size(id, value));
    w.key(1, id);
    w.header(2, value);
    w.integer(1, id);
    w.bytes(2, name);
    w.raw(fields_.bytes_);
  }
  // An event metadata kept: the pieces of `tail` (the last stat's value) become pieces of the
  // plane's, not copied.
  void write_event_metadata(int64_t id, std::string_view name, std::vector<std::string> tail) {
    const size_t extra = total_size(tail);
    const size_t entry = entry_size(id, value_size(id, name, fields_.bytes_.size() + extra));
    write_entry(event_metadata_.last(proto_internal::WireWriter::field_size(entry) - extra), id,
                name, extra);
    for (std::string& piece : tail) {
      if (!piece.empty()) event_metadata_.adopt(std::move(piece));
    }
  }

  // The event metadata in the order they were made: the kept ones' pieces, with those made
  // again by `remake` at their places among them. False where these came to other bytes than
  // new_remade_event_id counted.
  bool emit_event_metadata(absl::FunctionRef<void(std::string_view)> emit,
                           std::optional<Remake> remake) {
    const std::vector<std::string>& pieces = event_metadata_.pieces();
    size_t kept = 0, piece = 0, offset = 0;  // kept bytes handed over; the next one's place
    auto emit_kept = [&](size_t until) {
      while (kept < until) {
        const std::string_view p = pieces[piece];
        if (offset == p.size()) {
          ++piece;
          offset = 0;
          continue;
        }
        const size_t n = std::min(p.size() - offset, until - kept);
        emit(p.substr(offset, n));
        kept += n;
        offset += n;
      }
    };
    size_t remade = 0;
    std::string entry;
    for (const Remade& r : remade_) {
      emit_kept(r.kept_before);
      if (!remake) return false;
      fields_.bytes_.clear();
      const std::string_view name = (*remake)(r.key, fields_);
      entry.clear();
      write_entry(entry, r.id, name, 0);
      remade += entry.size();
      emit(entry);
    }
    emit_kept(event_metadata_.size());
    return remade == remade_bytes_;
  }

  // An event metadata made again when the plane is written.
  struct Remade {
    size_t kept_before;  // the kept event metadata's bytes made before it
    const void* key;
    int64_t id;
  };

  google::protobuf::Arena arena_{proto_internal::message_arena_options()};
  xp::XPlane* plane_ = google::protobuf::Arena::CreateMessage<xp::XPlane>(&arena_);
  xp::XPlane* stats_holder_ = google::protobuf::Arena::CreateMessage<xp::XPlane>(&arena_);
  EventFields fields_;  // each event metadata's while it is made
  std::deque<LineBuilder> lines_;
  static constexpr int kLiteralIdBits = 6;
  std::array<std::pair<const char*, int64_t>, size_t{1} << kLiteralIdBits> literal_ids_{};
  proto_internal::SerializedPieces event_metadata_, stat_metadata_;  // map entries
  // Ids by name, the names held once in `names_` (a GPU plane names a stat and an event
  // metadata after each op: a std::string each would take 32 bytes and a block of its own).
  using Ids = absl::flat_hash_map<std::string_view, int64_t, detail::StringViewHash,
                                  detail::StringViewEq>;
  TextPool names_;
  Ids stats_, events_;
  int64_t event_count_ = 0;  // the event metadata made, by event_id and new_remade_event_id
  std::vector<Remade> remade_;
  size_t remade_bytes_ = 0;  // theirs as fields of the plane
};

// A slice of the step as written: the prediction's timeline, with the summary slice of a loop's
// remaining iterations filled by the last laid-out iteration, stretched by their count.
struct Slice {
  // Views of the instruction's name, or of the writer's texts: not of the prediction's
  // timeline, which its owner may free once the step is laid out (timeline_read).
  std::string_view name;
  std::string_view track;
  double start_s = 0;  // laid out in seconds, so that stretching does not multiply rounding
  double duration_s = 0;
  int depth = 0;
  uint32_t symbol = 0;     // an op's: its instruction's symbol id (resolve_ops)
  int64_t iterations = 0;  // iteration slices
  const Instruction* instruction = nullptr;
  const OpPrediction* op = nullptr;  // an op's record (resolve_ops), if any
  int64_t start_ps = 0;  // then rounded to whole picoseconds and fitted (fit_nesting)
  int64_t duration_ps = 0;
  double end_s() const { return start_s + duration_s; }
  int64_t end_ps() const { return start_ps + duration_ps; }
};

class StepLayout {
 public:
  // The slices' texts other than instructions' names are saved in `texts`.
  StepLayout(const Prediction& prediction, const Module& module, TextPool& texts)
      : prediction_(prediction), module_(module), texts_(texts) {}

  std::vector<Slice> build(std::vector<std::string>& unfilled) {
    std::vector<Slice> out;
    const std::vector<TimelineEvent>& events = prediction_.timeline;
    out.reserve(std::min<size_t>(events.size(), kMaxEvents));  // more where loops are stretched
    // The last laid-out iteration slice per depth, and whether it belongs to the loop still
    // open at the depth above.
    std::map<int, size_t> last_iteration;
    for (size_t k = 0; k < events.size() && !full_; ++k) {
      const TimelineEvent& e = events[k];
      Slice s;
      s.start_s = std::max(0.0, e.start_s);
      s.duration_s = std::max(0.0, e.duration_s);
      s.depth = e.depth;
      s.iterations = e.iterations;
      // The timeline's own instruction when the prediction was made from this module; by
      // name when it was made from the module's text.
      if (e.instruction != nullptr) {
        s.instruction = e.instruction;
      } else if (e.iterations == 0) {
        s.instruction = instruction_named(e.name);
      }
      s.name = s.instruction != nullptr && s.instruction->name() == e.name
                   ? s.instruction->name()
                   : texts_.save_once(e.name);
      s.track = e.track == kComputeTrack ? kComputeTrack : texts_.save(e.track);
      const bool has_children = k + 1 < events.size() && events[k + 1].depth > e.depth &&
                                events[k + 1].start_s < e.start_s + e.duration_s;
      if (e.iterations == 0 && e.track == "compute") last_iteration.erase(e.depth + 1);
      if (e.iterations > 0 && has_children) last_iteration[e.depth] = out.size();
      const bool summary = e.iterations > 0 && !has_children;
      push(out, s);
      if (!summary) continue;
      auto t = last_iteration.find(e.depth);
      if (t == last_iteration.end()) {
        unfilled.push_back(absl::StrCat(
            "'", e.name, "': no iteration of the loop is laid out, so its ops are missing from "
            "the op profile (raise max_expanded_iterations)"));
        continue;
      }
      stretch(out, t->second, out.size() - 1, e.iterations);
    }
    if (full_) {
      unfilled.push_back(absl::StrCat("the step holds more than ", kMaxEvents,
                                      " events; later ones are left out"));
    }
    for (Slice& s : out) {
      s.start_ps = to_ps(s.start_s);
      s.duration_ps = to_ps(s.end_s()) - s.start_ps;
    }
    return out;
  }

 private:
  void push(std::vector<Slice>& out, Slice s) {
    if (static_cast<int64_t>(out.size()) >= kMaxEvents) {
      full_ = true;
      return;
    }
    out.push_back(std::move(s));
  }

  // Fills the summary slice out[rest] (the loop's last `count` iterations) with the contents
  // of the iteration slice out[iteration], each stretched `count` times, then the loop's last
  // condition once.
  void stretch(std::vector<Slice>& out, size_t iteration, size_t rest, int64_t count) {
    const Slice template_slice = out[iteration];
    const Slice rest_slice = out[rest];
    std::vector<Slice> contents;
    for (size_t k = iteration + 1; k < rest; ++k) {
      if (out[k].depth > template_slice.depth && out[k].start_s < template_slice.end_s()) {
        contents.push_back(out[k]);
      }
    }
    const Computation* condition = loop_condition(out, iteration);
    double condition_end = template_slice.start_s;
    for (const Slice& c : contents) {
      if (c.depth == template_slice.depth + 1 && c.instruction != nullptr &&
          c.instruction->parent() == condition) {
        condition_end = std::max(condition_end, c.end_s());
      }
    }
    const double n = static_cast<double>(count);
    for (const Slice& c : contents) {
      Slice s = c;
      s.start_s = rest_slice.start_s + (c.start_s - template_slice.start_s) * n;
      s.duration_s = c.duration_s * n;
      s.depth = c.depth - template_slice.depth + rest_slice.depth;
      push(out, std::move(s));
    }
    // The last condition, once, after the stretched iterations.
    const double last = rest_slice.start_s + template_slice.duration_s * n;
    for (const Slice& c : contents) {
      if (c.start_s >= condition_end) break;
      Slice s = c;
      s.start_s = last + (c.start_s - template_slice.start_s);
      s.depth = c.depth - template_slice.depth + rest_slice.depth;
      push(out, std::move(s));
    }
  }

  // The condition computation of the loop whose iteration is out[iteration]: the nearest
  // earlier slice one level up.
  static const Computation* loop_condition(const std::vector<Slice>& out, size_t iteration) {
    for (size_t k = iteration; k-- > 0;) {
      if (out[k].depth == out[iteration].depth - 1) {
        const Instruction* loop = out[k].instruction;
        return loop != nullptr ? loop->computation_attribute(AttrId::kCondition) : nullptr;
      }
    }
    return nullptr;
  }

  // The module's first instruction of that name; the index made when first asked.
  const Instruction* instruction_named(std::string_view name) {
    if (by_name_.empty()) {
      for (const Computation* c : module_.computations()) {
        for (const Instruction* i : c->instructions()) by_name_.try_emplace(i->name(), i);
      }
    }
    auto it = by_name_.find(name);
    return it != by_name_.end() ? it->second : nullptr;
  }

  static constexpr std::string_view kComputeTrack = "compute";

  const Prediction& prediction_;
  const Module& module_;
  TextPool& texts_;
  absl::flat_hash_map<std::string_view, const Instruction*> by_name_;
  bool full_ = false;
};

// The slices of one line as XProf nests them, by time: a slice must lie inside its parent (the
// nearest earlier one of lower depth) and after its previous sibling, or XProf takes it for
// the sibling's child or the parent's sibling. Rounding to picoseconds can break either by
// 1 ps; the slice is moved or cut to fit.
void fit_nesting(std::vector<Slice*>& line) {
  std::stable_sort(line.begin(), line.end(), [](const Slice* a, const Slice* b) {
    if (a->start_ps != b->start_ps) return a->start_ps < b->start_ps;
    return a->depth < b->depth;
  });
  std::vector<Slice*> open;
  for (Slice* s : line) {
    auto move_start_to = [&](int64_t start) {
      if (start <= s->start_ps) return;
      s->duration_ps = std::max<int64_t>(0, s->end_ps() - start);
      s->start_ps = start;
    };
    while (!open.empty() && open.back()->depth >= s->depth) {
      const Slice* before = open.back();
      open.pop_back();
      if (before->depth == s->depth) move_start_to(before->end_ps());
    }
    if (!open.empty()) {
      const Slice* parent = open.back();
      move_start_to(parent->start_ps);
      if (s->start_ps > parent->end_ps()) s->start_ps = parent->end_ps();
      if (s->end_ps() > parent->end_ps()) s->duration_ps = parent->end_ps() - s->start_ps;
    }
    open.push_back(s);
  }
}

absl::Status check_steps(const XSpaceOptions& options) {
  if (options.steps < 1 || options.steps > kMaxXSpaceSteps) {
    return absl::InvalidArgumentError(
        absl::StrCat("steps: ", options.steps, " is not in [1, ", kMaxXSpaceSteps, "]"));
  }
  return absl::OkStatus();
}

class XSpaceWriter {
 public:
  XSpaceWriter(const Module& module, const Prediction& prediction, const DeviceSpec& device,
               const XSpaceOptions& options)
      : module_(module), prediction_(prediction), device_(device), options_(options) {}

  // The XSpace serialized into `out`, or into the file's bytes without one.
  absl::StatusOr<XSpaceFile> write(std::ostream* out = nullptr) {
    if (absl::Status s = check_steps(options_); !s.ok()) return s;
    out_ = out;
    XSpaceFile file;
    program_id_ = options_.program_id != 0 ? options_.program_id
                                            : fingerprint(std::string(module_.name()));
    file.program_id = program_id_;
    module_event_name_ = absl::StrCat(std::string(module_.name()), "(", program_id_, ")");
    // Made apart, in this order, on as many threads as options.threads says but two at most
    // (each thread takes the next part not taken): the HloProto's buffer assignment (with its
    // memory analysis where that is not given, or waiting for one still running elsewhere), the
    // device's planes (written as each is finished) and the HloProto's module (the two parts
    // of the HloProto are its fields, one after the other). What the assignment leaves
    // unfilled is said after the planes' gaps.
    std::vector<std::string> proto_gaps;
    std::vector<std::string> module_proto, buffers;
    detail::for_each_on_threads(3, std::min(options_.threads, 2), [&](size_t part) {
      if (part == 0) {
        buffers = buffer_assignment(proto_gaps);
      } else if (part == 1) {
        write_device_planes();
      } else {
        module_proto = proto_internal::write_hlo_proto_pieces(module_);
      }
    });
    unfilled_.insert(unfilled_.end(), proto_gaps.begin(), proto_gaps.end());
    // A module whose HloProto would come to 2 GiB has none (protobuf reads no larger one).
    if (module_proto.empty() || total_size(module_proto) + total_size(buffers) >
                                     proto_internal::WireWriter::kMaxMessageBytes) {
      module_proto.clear();
      buffers.clear();
    }
    std::move(buffers.begin(), buffers.end(), std::back_inserter(module_proto));
    write_metadata_plane(std::move(module_proto));
    write_task_environment();
    // One warning each for the assumptions and for what is not filled: XProf's overview shows
    // every warning as a box of its own above the page.
    if (!prediction_.diagnostics.notes.empty()) {
      space_.add_warnings(absl::StrCat("assumptions of the prediction (",
                                       prediction_.diagnostics.notes.size(), "): ",
                                       absl::StrJoin(prediction_.diagnostics.notes, "; ")));
    }
    unfilled_.insert(unfilled_.begin(), unfilled_always().begin(), unfilled_always().end());
    space_.add_warnings(absl::StrCat("not filled in this predicted run: ",
                                     absl::StrJoin(unfilled_, "; ")));
    file.events = events_;
    file.unfilled = std::move(unfilled_);
    // XSpace: planes (1, written), warnings (3), hostnames (4). (A stream that failed says why
    // where it was opened.)
    std::string last;
    proto_internal::WireWriter w(last);
    w.append(space_);
    emit(last);
    if (remade_differ_) {
      if (out != nullptr) out->setstate(std::ios::badbit);
      return absl::InternalError(
          "the XSpace's op metadata came to other bytes when written than when counted; the "
          "file is not written (a bug of hloroof: please report it with the module)");
    }
    if (written_ > size_t{0x7fffffff}) {
      if (out != nullptr) out->setstate(std::ios::badbit);
      return absl::InternalError(
          "the XSpace comes to 2 GiB or more, more than protobuf reads: predict fewer steps");
    }
    if (out == nullptr) file.bytes = std::move(bytes_);
    return file;
  }

 private:
  // The step laid out, the space's host and first warning, then the device's planes.
  void write_device_planes() {
    StepLayout layout(prediction_, module_, *slice_texts_);
    slices_ = layout.build(unfilled_);
    // The prediction's timeline is read no more (gemma3: 1.9 MB its owner may free now).
    if (options_.timeline_read) options_.timeline_read();
    step_ps_ = std::max<int64_t>(to_ps(prediction_.step_time_s), 1);
    for (const Slice& s : slices_) step_ps_ = std::max(step_ps_, s.end_ps());
    space_.add_hostnames(options_.host);
    space_.add_warnings(absl::StrCat("This run was ", kPredicted, ": device ", device_.name,
                                     prediction_.topology.empty() ? "" : ":",
                                     prediction_.topology, ", ", options_.steps,
                                     options_.steps == 1 ? " step" : " steps"));
    if (device_.kind == DeviceKind::kTpu) {
      write_tpu_plane();
    } else {
      write_gpu_planes();
    }
    // What the device's planes alone read, freed while the HloProto's parts may still be
    // made (gemma3: 4.5 MB).
    op_metadata_ = {};
    op_text_ = {};
    shape_texts_ = {};
    slices_ = {};
    slice_texts_.reset();
  }

  const std::vector<std::string>& unfilled_always() {
    static const std::vector<std::string> kGaps = {
        "host activity (input pipeline, Python, launches other than the step's) is not "
        "predicted: the input pipeline analyzer and the host side of the overview are empty",
        "no performance counters, power or memory allocator events: the memory profile and "
        "the utilization viewer are empty",
        "one device: the other devices of the slice run the same program and are not written",
    };
    return kGaps;
  }

  // Each op slice's record and symbol id, found once (an op's metadata is made twice: counted,
  // then written), in indexes let go when done.
  void resolve_ops(const std::vector<Slice*>& op_line) const {
    // Symbol ids in module order from 1 (0 is XProf's root): the HloModuleProto's ids.
    int64_t next_symbol = 1;
    const proto_internal::InstructionIds symbols(module_, next_symbol);
    const predict::OpIndex by_instruction(prediction_.ops);
    // A slice's op: by its instruction, else, for a slice of no instruction, the first op of
    // its name (those indexed when first asked). A slice of an instruction that is no op (a
    // loop, a call) has none: an op's name is its instruction's.
    absl::flat_hash_map<std::string_view, const OpPrediction*> by_name;
    const auto op_of = [&](const Slice& s) -> const OpPrediction* {
      if (const OpPrediction* op = by_instruction.find(s.instruction)) return op;
      if (s.instruction != nullptr) return nullptr;
      if (by_name.empty()) {
        for (const OpPrediction& op : prediction_.ops) by_name.try_emplace(op.name(), &op);
      }
      auto it = by_name.find(s.name);
      return it != by_name.end() ? it->second : nullptr;
    };
    for (Slice* s : op_line) {
      s->op = op_of(*s);
      if (const int64_t id = symbols.find(s->instruction); id >= 0) {
        s->symbol = static_cast<uint32_t>(id);
      }
    }
  }

  // The event metadata of an op on a TPU: what XProf's op profile reads. An instruction's
  // text is its own (its name is), so no other event metadata has it: made again when the
  // plane is written rather than kept.
  int64_t tpu_op_metadata(PlaneBuilder& plane, const Slice& s) {
    const Instruction* i = s.instruction;
    if (i == nullptr) {
      return plane.event_id(s.name, [&](EventFields& m) { tpu_op_fields(plane, s, m); });
    }
    auto [known, added] = op_metadata_.try_emplace(i, 0);
    if (added) {
      known->second = plane.new_remade_event_id(&s, [&](const void* key, EventFields& m) {
        return tpu_op_fields(plane, *static_cast<const Slice*>(key), m);
      });
    }
    return known->second;
  }

  // An op's event metadata on a TPU into `m`, and its name: the op's text as XLA's profiles
  // name it (text::append_profile_op_text), printed into room kept from the op before (the
  // texts of shapes made once for the instructions that share them), or the slice's name
  // where it has no instruction.
  std::string_view tpu_op_fields(PlaneBuilder& plane, const Slice& s, EventFields& m) {
    const Instruction* i = s.instruction;
    op_text_.clear();
    std::string_view shape_text;
    if (i != nullptr) {
      text::append_profile_op_text(&op_text_, *i, shape_texts_);
      shape_text = shape_texts_.text(i->shape());
    } else {
      op_text_ = s.name;
    }
    m.set_display_name(s.name);
    EventFields* stats = &m;
    plane.add_uint(stats, "program_id", program_id_);
    if (i != nullptr) plane.add_uint(stats, "symbol_id", s.symbol);
    const OpPrediction* o = s.op;
    plane.add_str(stats, "hlo_category", o != nullptr ? o->category() : category_of(i));
    if (o != nullptr && !o->op_name().empty()) plane.add_str(stats, "tf_op", o->op_name());
    // Costs of one execution; XProf multiplies them by the occurrences.
    const double flops = o != nullptr ? o->flops : 0;
    const double bytes = o != nullptr ? o->hbm_bytes + o->on_chip_bytes + o->host_bytes : 0;
    plane.add_int(stats, "flops", static_cast<int64_t>(to_count(flops)));
    plane.add_int(stats, "model_flops", static_cast<int64_t>(to_count(flops)));
    plane.add_int(stats, "bytes_accessed", static_cast<int64_t>(to_count(bytes)));
    plane.add_int(stats, "raw_bytes_accessed", static_cast<int64_t>(to_count(bytes)));
    // The prediction does not split reads from writes: every byte counts as read (XProf
    // adds the two for HBM).
    if (o != nullptr) {
      plane.add_bytes(stats, "memory_access_breakdown",
                      MemoryAccessBreakdown(o->hbm_bytes, o->on_chip_bytes).bytes());
    }
    if (i != nullptr) plane.add_str(stats, "shape_with_layout", shape_text);
    return op_text_;
  }

  static std::string category_of(const Instruction* i) {
    if (i == nullptr) return "predicted";
    return std::string(opcode_name(i->opcode()));
  }

  // An event of the line; its stats are added to what it returns.
  EventFields* add_event(LineBuilder* line, int64_t metadata_id, int64_t start_ps,
                         int64_t duration_ps) {
    ++events_;
    return &line->add_event(metadata_id, start_ps, duration_ps);
  }

  void add_device_peaks(PlaneBuilder& plane) {
    auto* stats = plane.stats();
    plane.add_str(stats, "device_type_string",
                  absl::StrCat(device_.display_name.empty() ? device_.name : device_.display_name,
                               " (", kPredicted, ")"));
    double matrix = 0;
    if (auto bf16 = device_.matrix_flops_per_s.find("bf16");
        bf16 != device_.matrix_flops_per_s.end()) {
      matrix = bf16->second;
    } else {
      for (const auto& [cls, rate] : device_.matrix_flops_per_s) matrix = std::max(matrix, rate);
    }
    plane.add_double(stats, "peak_teraflops_per_second", matrix * 1e-12);
    plane.add_double(stats, "peak_hbm_bw_gigabytes_per_second", device_.hbm_bandwidth * 1e-9);
    const double on_chip = device_.on_chip_bandwidth.value_or(0) * 1e-9;
    plane.add_double(stats, "peak_sram_rd_bw_gigabytes_per_second", on_chip);
    plane.add_double(stats, "peak_sram_wr_bw_gigabytes_per_second", on_chip);
    if (device_.kind == DeviceKind::kTpu) {
      plane.add_double(stats, "peak_vmem_rd_bw_gigabytes_per_second", on_chip);
      plane.add_double(stats, "peak_vmem_wr_bw_gigabytes_per_second", on_chip);
      plane.add_double(stats, "peak_cmem_rd_bw_gigabytes_per_second", 0);
      plane.add_double(stats, "peak_cmem_wr_bw_gigabytes_per_second", 0);
    }
  }

  // ---- TPU ----

  void write_tpu_plane() {
    PlaneBuilder plane(1, "/device:TPU:0");
    add_device_peaks(plane);
    const int64_t t0 = options_.start_time_ns;
    LineBuilder* steps = plane.add_line(1, "Steps", "", t0);
    LineBuilder* modules = plane.add_line(2, "XLA Modules", "", t0);
    LineBuilder* ops = plane.add_line(3, "XLA Ops", "", t0);
    LineBuilder* loops = plane.add_line(5, "Loop iterations", "Loop iterations (predicted)", t0);
    std::map<std::string_view, LineBuilder*> async_lines;

    std::vector<Slice*> op_line, loop_line;
    std::map<std::string_view, std::vector<Slice*>> async_slices;
    for (Slice& s : slices_) {
      if (s.track != "compute") {
        async_slices[s.track].push_back(&s);
      } else if (s.iterations > 0) {
        loop_line.push_back(&s);
      } else {
        op_line.push_back(&s);
      }
    }
    fit_nesting(op_line);
    fit_nesting(loop_line);
    resolve_ops(op_line);

    const int64_t module_md = plane.event_id(module_event_name_);
    for (int64_t step = 0; step < options_.steps; ++step) {
      const int64_t base = step * step_ps_;
      add_event(steps, plane.event_id(absl::StrCat(step)), base, step_ps_);
      EventFields* stats = add_event(modules, module_md, base, step_ps_);
      plane.add_uint(stats, "run_id", static_cast<uint64_t>(step + 1));
      plane.add_int(stats, "group_id", step);
      for (const Slice* s : op_line) {
        add_event(ops, tpu_op_metadata(plane, *s), base + s->start_ps, s->duration_ps);
      }
      for (const Slice* s : loop_line) {
        add_event(loops, plane.event_id(s->name), base + s->start_ps, s->duration_ps);
      }
      int64_t line_id = 100;
      for (auto& [track, list] : async_slices) {
        LineBuilder*& line = async_lines[track];
        if (line == nullptr) {
          line = plane.add_line(line_id, "Async XLA Ops",
                                absl::StrCat("Async XLA Ops: ", sv(track), " (predicted)"),
                                t0);
        }
        ++line_id;
        for (const Slice* s : list) {
          EventFields* work =
              add_event(line, plane.event_id(absl::StrCat(sv(s->name), " (async work)")),
                        base + s->start_ps, s->duration_ps);
          plane.add_str(work, "hlo_op", s->name);
        }
      }
    }
    finish(plane, [&](const void* key, EventFields& m) {
      return tpu_op_fields(plane, *static_cast<const Slice*>(key), m);
    });
  }

  // ---- GPU ----

  // XProf's matrix FLOPs per SM per clock for an NVIDIA compute capability, the larger of
  // fp32 and fp16 (xprof/utils/hardware_type_utils.cc, GetNvidiaFlopCapsPerSMPerCycle:
  // dense rates; a capability it lacks takes the highest one below it).
  static double xprof_flops_per_sm_per_cycle(int major, int minor, bool amd) {
    // AMD: XProf resolves 9.4 to gfx942 and 9.5 to gfx950 and takes the largest per-CU rate
    // of the CDNA white papers' tables, the f16 matrix rate (xprof/utils/rocm_type_utils.cc at
    // 16d3e2ba).
    if (amd) return major == 9 && minor == 4 ? 2048 : major == 9 && minor == 5 ? 4096 : 0;
    const int cap = major * 1000 + minor * 10;
    if (cap >= 10000) return 8192;
    if (cap >= 9000) return 4096;
    if (cap >= 8090) return 1024;
    if (cap >= 8060) return 1024;
    if (cap >= 8000) return 2048;
    if (cap >= 7000) return 1024;
    return 0;
  }

  // A GPU's figures where XProf reads them: it derives the peak FLOP/s as core_count x its
  // per-SM rate for the compute capability x clock_rate, and the HBM bandwidth from
  // memory_bandwidth (xprof/convert/xplane_to_op_stats.cc, GetPerfEnvFromXPlane). hloroof's
  // device files give the peak, not the SM count and clock: core_count is 1 and clock_rate the
  // clock that makes XProf's product equal hloroof's bf16 peak (not the chip's clock).
  void add_gpu_capabilities(PlaneBuilder& plane) {
    auto* stats = plane.stats();
    const int major = device_.gpu ? device_.gpu->compute_capability_major : 0;
    const int minor = device_.gpu ? device_.gpu->compute_capability_minor : 0;
    const bool amd = device_.gpu && device_.gpu->vendor == GpuVendor::kAmd;
    plane.add_str(stats, "device_vendor", amd ? "AMD" : "Nvidia");
    double matrix = 0;
    if (auto bf16 = device_.matrix_flops_per_s.find("bf16");
        bf16 != device_.matrix_flops_per_s.end()) {
      matrix = bf16->second;
    }
    const double per_cycle = xprof_flops_per_sm_per_cycle(major, minor, amd);
    if (per_cycle > 0 && matrix > 0) {
      const double clock_khz = matrix / per_cycle / 1e3;
      plane.add_int(stats, "clock_rate", static_cast<int64_t>(std::llround(clock_khz)));
      plane.add_int(stats, "core_count", 1);
    } else {
      unfilled_.push_back(absl::StrCat(
          "XProf knows no per-SM FLOP rate for compute capability ", major, ".", minor,
          " (or the device lists no bf16 peak): its roofline has no compute roof"));
    }
    plane.add_uint(stats, "memory_bandwidth", to_count(device_.hbm_bandwidth));
    plane.add_uint(stats, "memory_size", to_count(device_.hbm_capacity_bytes));
    plane.add_int(stats, "compute_cap_major", major);
    plane.add_int(stats, "compute_cap_minor", minor);
  }

  void write_gpu_planes() {
    PlaneBuilder plane(1, "/device:GPU:0");
    add_gpu_capabilities(plane);
    add_device_peaks(plane);
    const int64_t t0 = options_.start_time_ns;
    LineBuilder* kernels = plane.add_line(1, "Stream #1(Kernel)", "", t0);
    std::map<std::string_view, LineBuilder*> async_lines;
    PlaneBuilder host(2, "/host:CPU");
    LineBuilder* launches = host.add_line(1, "predicted launches", "", t0);

    // Kernels: the ops that run (loops, conditionals and calls are their callees' kernels).
    std::vector<const Slice*> ops;
    std::map<std::string_view, std::vector<const Slice*>> async_slices;
    for (const Slice& s : slices_) {
      if (s.track != "compute") {
        async_slices[s.track].push_back(&s);
        continue;
      }
      if (s.iterations > 0 || s.instruction == nullptr) continue;
      const Opcode op = s.instruction->opcode();
      if (op == Opcode::kWhile || op == Opcode::kConditional || op == Opcode::kCall) continue;
      ops.push_back(&s);
    }
    std::stable_sort(ops.begin(), ops.end(), [](const Slice* a, const Slice* b) {
      return a->start_ps < b->start_ps;
    });
    const std::string module_name(module_.name());
    const int64_t module_md =
        host.event_id(absl::StrCat(module_name, ":XLA GPU module"));
    const int64_t launch_md = host.event_id("cuLaunchKernel");
    uint64_t correlation = 0;
    for (int64_t step = 0; step < options_.steps; ++step) {
      const int64_t base = step * step_ps_;
      add_event(launches, module_md, base, step_ps_);
      for (const Slice* s : ops) {
        ++correlation;
        const int64_t start = base + s->start_ps;
        host.add_uint(add_event(launches, launch_md, start, 0), "correlation_id", correlation);
        EventFields* stats = add_event(kernels, plane.event_id(s->name), start, s->duration_ps);
        plane.add_uint(stats, "correlation_id", correlation);
        plane.add_ref(stats, "hlo_op", s->name);
        plane.add_ref(stats, "hlo_module", module_name);
        plane.add_uint(stats, "program_id", program_id_);
      }
      int64_t line_id = 100;
      for (auto& [track, list] : async_slices) {
        LineBuilder*& line = async_lines[track];
        if (line == nullptr) {
          line = plane.add_line(
              line_id, absl::StrCat("Stream #", line_id, "(", sv(track), ")"),
              absl::StrCat("Stream #", line_id, " (", sv(track), ", predicted)"), t0);
        }
        ++line_id;
        // The async work, shown: no hlo_op stat, so XProf's op stats keep the prediction's
        // per-op times (the done's wait) rather than adding the overlapped work.
        for (const Slice* s : list) {
          add_event(line, plane.event_id(absl::StrCat(sv(s->name), " (async work)")),
                    base + s->start_ps, s->duration_ps);
        }
      }
    }
    finish(plane);
    finish(host);
  }

  // ---- Host metadata ----

  // The module's HloProto, as XProf reads it: an event metadata of /host:metadata whose id is
  // the program id, named NAME(PROGRAM_ID), with the serialized HloProto in its stat
  // "Hlo Proto" (xprof/utils/hlo_proto_map.cc, ParseHloProtosFromXSpace; [S9]).
  // The HloProto is its module's part, then its buffer assignment's, in pieces.
  void write_metadata_plane(std::vector<std::string> hlo_proto) {
    PlaneBuilder plane(3, "/host:metadata");
    // Keyed by the program id (XProf takes the key for it), not by creation order.
    plane.add_event_metadata(static_cast<int64_t>(program_id_), module_event_name_,
                             "Hlo Proto", std::move(hlo_proto));
    finish(plane);
  }

  // The HloProto's buffer assignment (write_hlo_proto_buffers), so that XProf's memory viewer
  // shows the predicted allocations and the temp heap over program order. Bounded (each
  // buffer is a logical buffer, an assignment and two heap events, about 100 bytes): at most
  // max_assigned_buffers are described; past that, the largest ones and no heap trace (a trace
  // without the rest would understate the heap). Empty where the memory analysis failed.
  std::vector<std::string> buffer_assignment(std::vector<std::string>& gaps) {
    const size_t most = xspace_memory_options(options_).placements;
    const MemoryReport* given = options_.memory;
    if (given == nullptr && options_.memory_future.valid()) {
      try {
        given = options_.memory_future.get();
      } catch (const std::future_error&) {
        given = nullptr;  // its promise was given up without a report: as a failed analysis
      }
    }
    absl::StatusOr<MemoryReport> made;
    const bool borrowed = given != nullptr;
    if (!borrowed) {
      made = analyze_memory(module_, device_, xspace_memory_options(options_));
      if (!made.ok()) {
        gaps.push_back(absl::StrCat(
            "no buffer assignment in the HloProto (the memory analysis failed: ",
            std::string(made.status().message()), "): XProf's memory viewer is empty"));
        return {};
      }
      given = &*made;
    }
    if (given->buffer_count > static_cast<int64_t>(most)) {
      gaps.push_back(absl::StrCat(
          "the buffer assignment holds the ", most, " largest of ", given->buffer_count,
          " buffers and no heap trace: XProf's memory viewer shows every allocation but not "
          "the heap over program order (hloroof memory gives the predicted peak)"));
    }
    std::vector<std::string> bytes =
        proto_internal::write_hlo_proto_buffers_pieces(module_, *given);
    if (borrowed && options_.memory_read) options_.memory_read();
    return bytes;
  }

  void write_task_environment() {
    PlaneBuilder plane(0, "Task Environment");
    auto* stats = plane.stats();
    const uint64_t start = static_cast<uint64_t>(std::max<int64_t>(options_.start_time_ns, 0));
    plane.add_uint(stats, "profile_start_time", start);
    plane.add_uint(stats, "profile_stop_time",
                   start + static_cast<uint64_t>(step_ps_ / 1000) *
                               static_cast<uint64_t>(options_.steps));
    finish(plane);
  }

  // A finished plane into the space, its event metadata not kept made again by `remake`.
  void finish(PlaneBuilder& plane,
              std::optional<PlaneBuilder::Remake> remake = std::nullopt) {
    if (!plane.finish([this](std::string_view bytes) { emit(bytes); }, remake)) {
      remade_differ_ = true;
    }
  }
  // Bytes of the space, in order: handed to the stream at once where there is one.
  void emit(std::string_view bytes) {
    written_ += bytes.size();
    if (out_ != nullptr) {
      out_->write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    } else {
      bytes_.append(bytes);
    }
  }

  const Module& module_;
  const Prediction& prediction_;
  const DeviceSpec& device_;
  const XSpaceOptions& options_;
  // The space's planes are written as each is finished (PlaneBuilder), to the stream where
  // there is one; its warnings and host name, its last fields, are held until the end.
  xp::XSpace space_;
  std::ostream* out_ = nullptr;
  std::string bytes_;  // all of them where there is no stream
  size_t written_ = 0;
  uint64_t program_id_ = 0;
  std::string module_event_name_;
  absl::flat_hash_map<const void*, int64_t> op_metadata_;  // an instruction's event metadata
  std::string op_text_;  // the op tpu_op_metadata prints, its room kept
  detail::ShapeTexts shape_texts_;
  std::vector<Slice> slices_;
  std::unique_ptr<TextPool> slice_texts_ = std::make_unique<TextPool>();  // what slices view
  int64_t step_ps_ = 1;
  int64_t events_ = 0;
  std::vector<std::string> unfilled_;
  bool remade_differ_ = false;  // an event metadata made again came to other bytes
};

// One plain name: a folder or file name that cannot climb out of the log directory.
absl::Status check_name(std::string_view what, std::string_view name) {
  if (name.empty() || name == "." || name == ".." ||
      name.find_first_of("/\\") != std::string_view::npos || name.find('\0') != name.npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        std::string(what), " '", std::string(name),
        "' is not one plain name (no '/', '\\', '.' or '..')"));
  }
  return absl::OkStatus();
}

}  // namespace

MemoryOptions xspace_memory_options(const XSpaceOptions& options) {
  // Every buffer placed (none described: their text is not written) and the allocations; no
  // live-bytes curve, which the XSpace does not carry.
  return {.top_buffers = 1,
          .live_curves = false,
          .placements = static_cast<size_t>(std::max<int64_t>(options.max_assigned_buffers, 1))};
}

absl::StatusOr<XSpaceFile> prediction_to_xspace(const Module& module, const Prediction& prediction,
                                                const DeviceSpec& device,
                                                const XSpaceOptions& options) {
  return XSpaceWriter(module, prediction, device, options).write();
}

absl::Status check_xspace_log_dir(std::string_view log_dir) {
  if (log_dir.empty()) {
    return absl::InvalidArgumentError(
        "cannot write the XSpace: the log folder's path is empty; name a folder (made if missing)");
  }
  if (log_dir.find('\0') != std::string_view::npos) {
    return absl::InvalidArgumentError(
        "cannot write the XSpace: the log folder's path holds a NUL byte, which no path holds");
  }
  return absl::OkStatus();
}

absl::Status check_log_folder_file(std::string_view log_dir, std::string_view run,
                                   std::string_view file_name, std::string_view what) {
  const fs::path root = fs::path(std::string(log_dir));
  const fs::path folder = root / "plugins" / "profile" / std::string(run);
  const fs::path path = folder / std::string(file_name);
  // What the log folder holds is written by profilers, not linked elsewhere: a symbolic link
  // planted there (at the file's name, or a folder's) would send the file over another one.
  for (const fs::path& p : {root / "plugins", root / "plugins" / "profile", folder, path}) {
    std::error_code ec;
    if (fs::is_symlink(fs::symlink_status(p, ec))) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot write ", sv(what), " to '", path.string(), "': '", p.string(),
          "' is a symbolic link inside the log folder; remove it, or write to another folder"));
    }
  }
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(path, ec);
  if (fs::exists(status) && !fs::is_regular_file(status)) {
    const std::string_view kind = fs::is_fifo(status)        ? "a named pipe"
                                  : fs::is_directory(status) ? "a directory"
                                  : fs::is_socket(status)    ? "a socket"
                                                             : "a device";
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot write ", sv(what), " to '", path.string(), "': it is ", sv(kind),
        ", which no profiler writes into a log folder; remove it, or write to another folder"));
  }
  return absl::OkStatus();
}

absl::StatusOr<XSpaceFile> write_xspace(const Module& module, const Prediction& prediction,
                                        const DeviceSpec& device, std::string_view log_dir,
                                        const XSpaceOptions& options) {
  if (absl::Status s = check_xspace_log_dir(log_dir); !s.ok()) return s;
  const std::string run = options.run.empty() ? absl::StrCat("predicted_", device.name)
                                              : options.run;
  if (absl::Status s = check_name("run", run); !s.ok()) return s;
  if (absl::Status s = check_name("host", options.host); !s.ok()) return s;
  if (absl::Status s = check_steps(options); !s.ok()) return s;
  const fs::path root = fs::path(std::string(log_dir));
  const fs::path folder = root / "plugins" / "profile" / run;
  const fs::path path = folder / absl::StrCat(options.host, ".xplane.pb");
  if (absl::Status s = check_log_folder_file(log_dir, run, path.filename().string(), "the XSpace");
      !s.ok()) {
    return s;
  }
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot make the folder '", folder.string(), "': ", ec.message()));
  }
  // Serialized into the file as it is written (an XSpace is several times its module).
  std::optional<absl::StatusOr<XSpaceFile>> file;  // none when the path was refused
  const absl::Status written = write_output_file(
      path.string(),
      [&](std::ostream& out) {
        file = XSpaceWriter(module, prediction, device, options).write(&out);
      },
      "the XSpace", options.inputs);
  if (!file) return written;
  if (!file->ok()) return file->status();
  if (!written.ok()) return written;
  (*file)->path = path.string();
  return *std::move(file);
}

std::string render_xspace_summary(const XSpaceFile& file, std::string_view log_dir) {
  using report_internal::wrap;
  std::string out = wrap(absl::StrCat("XSpace written (", kPredicted, "): ", file.path, ", ",
                                      file.events, " events, program id ", file.program_id),
                         "", "  ");
  out += wrap(absl::StrCat("open it with `xprof --logdir ", std::string(log_dir),
                           "` (or TensorBoard's profile plugin)"),
              "  ", "  ");
  if (!file.unfilled.empty()) {
    out += "XProf views this file leaves empty or partial:\n";
    for (const std::string& gap : file.unfilled) out += wrap(gap, "  - ", "    ");
  }
  return out;
}

}  // namespace hloroof
