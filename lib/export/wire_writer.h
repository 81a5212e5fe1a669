// A protobuf message written into a string piece by piece: its own few fields by hand, each of
// its repeated messages made, serialized and let go in turn. A whole HloProto of a large module
// as one message tree takes about 9 times its serialized size (gemma3: 38 MB for 4.4); written
// this way, only one instruction's message is held at a time.
//
// The bytes are the ones protobuf writes for the whole tree, deterministically (map entries in
// order of their keys: the same module gives the same bytes), when the fields of each message
// are written in order of their numbers, as protobuf writes them: a message's fields numbered
// below its repeated field by hand first, then the repeated ones, then a message holding its
// other fields (append).
#ifndef HLOROOF_EXPORT_WIRE_WRITER_H_
#define HLOROOF_EXPORT_WIRE_WRITER_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/message_lite.h"
#include "google/protobuf/wire_format_lite.h"

namespace hloroof::proto_internal {

class WireWriter {
 public:
  explicit WireWriter(std::string& out) : out_(out) {}

  // The bytes a length-delimited field numbered below 16 (a one-byte tag) takes with `length`
  // bytes after its length; bytes() of `value`'s, 0 where it is empty.
  static size_t field_size(size_t length) {
    return 1 + google::protobuf::io::CodedOutputStream::VarintSize64(length) + length;
  }
  static size_t bytes_size(std::string_view value) {
    return value.empty() ? 0 : field_size(value.size());
  }

  // Protobuf serializes no message of 2 GiB or more (nor reads one): false once one was met
  // (it is left out), or when all that was written comes to that much.
  bool fits() const { return fits_ && out_.size() <= kMaxMessageBytes; }

  // A `bytes` or `string` field; none where it is empty (proto3).
  void bytes(int field, std::string_view value) {
    if (value.empty()) return;
    tagged(field, WireType::WIRETYPE_LENGTH_DELIMITED, value.size());
    out_.append(value);
  }

  // An integer field (int32, int64, uint64, bool, enum); none where it is 0 (proto3).
  void integer(int field, int64_t value) {
    if (value == 0) return;
    tagged(field, WireType::WIRETYPE_VARINT, static_cast<uint64_t>(value));
  }

  // A packed repeated integer field (int64, int32, enum); none where it is empty.
  template <typename Integers>
  void packed(int field, const Integers& values) {
    if (values.empty()) return;
    size_t length = 0;
    for (const auto v : values) {
      length += google::protobuf::io::CodedOutputStream::VarintSize64(static_cast<uint64_t>(v));
    }
    tagged(field, WireType::WIRETYPE_LENGTH_DELIMITED, length);
    for (const auto v : values) varint(static_cast<uint64_t>(v));
  }

  // An integer field written whatever its value: a map entry's key.
  void key(int field, int64_t value) {
    tagged(field, WireType::WIRETYPE_VARINT, static_cast<uint64_t>(value));
  }

  // The tag and length of a message field whose bytes are written apart.
  void header(int field, size_t length) {
    tagged(field, WireType::WIRETYPE_LENGTH_DELIMITED, length);
  }

  // Fields already serialized (what another WireWriter wrote), as they are.
  void raw(std::string_view bytes) { out_.append(bytes); }

  // A message field: `message` serialized after its tag and length.
  void message(int field, const google::protobuf::MessageLite& message) {
    tag(field, WireType::WIRETYPE_LENGTH_DELIMITED);
    const size_t size = message.ByteSizeLong();
    varint(size);
    serialize_cached(message, size);
  }

  // `message`'s fields, as fields of the message being written (they must come next in order).
  void append(const google::protobuf::MessageLite& message) {
    serialize_cached(message, message.ByteSizeLong());
  }
  // The same where ByteSizeLong() has just given `size`.
  void append(const google::protobuf::MessageLite& message, size_t size) {
    serialize_cached(message, size);
  }

  // A message field written piece by piece: open() before its fields, close() with what open()
  // returned after them, which puts its length in front. open() keeps a byte for it, which a
  // message of fewer than 128 bytes fills (most: no bytes moved); a longer one's bytes move up
  // by the rest of its length.
  size_t open(int field) {
    tag(field, WireType::WIRETYPE_LENGTH_DELIMITED);
    out_.push_back('\0');
    return out_.size();
  }
  void close(size_t start) {
    const size_t length = out_.size() - start;
    if (length < 0x80) {
      out_[start - 1] = static_cast<char>(length);
      return;
    }
    uint8_t digits[kMaxVarintBytes];
    const uint8_t* end =
        google::protobuf::io::CodedOutputStream::WriteVarint64ToArray(length, digits);
    out_[start - 1] = static_cast<char>(digits[0]);
    out_.insert(start, reinterpret_cast<const char*>(digits + 1), end - digits - 1);
  }

  // The most bytes protobuf serializes or reads as one message.
  static constexpr size_t kMaxMessageBytes = 0x7fffffff;

 private:
  static constexpr int kMaxVarintBytes = 10;  // 64 bits, 7 a byte
  using WireType = google::protobuf::internal::WireFormatLite::WireType;

  // A tag and the varint after it (a value or a length). Byte by byte: most are one or two
  // bytes each, which push_back writes in place where an append of them calls out to copy.
  void tagged(int field, WireType type, uint64_t value) {
    tag(field, type);
    varint(value);
  }
  void tag(int field, WireType type) {
    varint(google::protobuf::internal::WireFormatLite::MakeTag(field, type));
  }
  // Protobuf's base-128 varint: seven bits a byte, least significant first, the high bit set
  // on every byte but the last.
  void varint(uint64_t value) {
    while (value >= 0x80) {
      out_.push_back(static_cast<char>(value | 0x80));
      value >>= 7;
    }
    out_.push_back(static_cast<char>(value));
  }
  // `message` (whose size ByteSizeLong() has just cached) at the end of the string.
  void serialize_cached(const google::protobuf::MessageLite& message, size_t size) {
    if (size > kMaxMessageBytes) {
      fits_ = false;
      return;
    }
    const size_t at = out_.size();
    out_.resize(at + size);
    google::protobuf::io::ArrayOutputStream array(out_.data() + at, static_cast<int>(size));
    google::protobuf::io::CodedOutputStream coded(&array);
    coded.SetSerializationDeterministic(true);
    message.SerializeWithCachedSizes(&coded);
  }

  std::string& out_;
  bool fits_ = true;
};

// Serialized fields held in pieces of up to about a MiB, each given its room when made and
// never grown: megabytes of them in one string would be copied each time it doubled, and held
// at up to twice their size. The first piece's room is 64 KiB, each next one's twice the last.
class SerializedPieces {
 public:
  // The string to write the next fields, at most `bytes` of them, into: the last piece while
  // they fit in its room, else a new one.
  std::string& last(size_t bytes) {
    if (pieces_.empty() || pieces_.back().size() + bytes > pieces_.back().capacity()) {
      const size_t room =
          pieces_.empty() ? kFirstPieceBytes
                          : std::min(2 * std::max(pieces_.back().capacity(), kFirstPieceBytes),
                                     kPieceBytes);
      pieces_.emplace_back().reserve(std::max(room, bytes));
    }
    return pieces_.back();
  }
  size_t size() const {
    size_t bytes = 0;
    for (const std::string& p : pieces_) bytes += p.size();
    return bytes;
  }
  const std::vector<std::string>& pieces() const { return pieces_; }
  // `bytes` as the next piece, held as they are (no copy of megabytes).
  void adopt(std::string bytes) { pieces_.push_back(std::move(bytes)); }

 private:
  static constexpr size_t kFirstPieceBytes = size_t{64} << 10;
  static constexpr size_t kPieceBytes = size_t{1} << 20;
  std::vector<std::string> pieces_;
};

// A message written by a WireWriter into pieces of about kPieceBytes rather than one string:
// megabytes in one block need a hole of their size in the heap, or grow it, where pieces fit
// the holes earlier work left. The writer's string is handed over as a piece once it holds
// kPieceBytes (maybe_flush, between two of the message's parts). A field opened in one piece and
// closed in a later one gets its length as a piece of its own, between the bytes before the
// field in its first piece and the rest (a copy of that rest, not of the field's bytes).
class WirePieces {
 public:
  static constexpr size_t kPieceBytes = size_t{256} << 10;

  // `bytes`: the string the WireWriter writes into (emptied as pieces are handed over).
  explicit WirePieces(std::string& bytes) : bytes_(bytes) { bytes_.reserve(kRoom); }

  // A length-delimited field opened with `w` (which writes into the string given above).
  struct Open {
    size_t piece;   // the pieces handed over before it
    size_t offset;  // where its bytes begin in the piece after those
  };
  Open open(WireWriter& w, int field) { return {pieces_.size(), w.open(field)}; }
  void close(WireWriter& w, Open o) {
    if (o.piece == pieces_.size()) {  // all in the string being written: as WireWriter does
      w.close(o.offset);
      return;
    }
    size_t length = bytes_.size() - o.offset;
    for (size_t k = o.piece; k < pieces_.size(); ++k) length += pieces_[k].size();
    uint8_t digits[10];
    const uint8_t* end =
        google::protobuf::io::CodedOutputStream::WriteVarint64ToArray(length, digits);
    // (The byte open() kept for the length is the first piece's last before the tail.)
    std::string& first = pieces_[o.piece];
    std::string parts[2] = {std::string(reinterpret_cast<const char*>(digits), end - digits),
                            first.substr(o.offset)};
    first.resize(o.offset - 1);
    pieces_.insert(pieces_.begin() + static_cast<std::ptrdiff_t>(o.piece) + 1,
                   std::make_move_iterator(std::begin(parts)),
                   std::make_move_iterator(std::end(parts)));
  }
  // Hands the string over as a piece once it holds kPieceBytes.
  void maybe_flush() {
    if (bytes_.size() < kPieceBytes) return;
    pieces_.push_back(std::move(bytes_));
    bytes_ = std::string();
    bytes_.reserve(kRoom);
  }
  // Every byte written, in order (the string's last ones included); the string is left empty.
  std::vector<std::string> take() {
    if (!bytes_.empty()) pieces_.push_back(std::move(bytes_));
    bytes_ = std::string();
    return std::move(pieces_);
  }

 private:
  // A piece's room: kPieceBytes and the part that crosses it (most are a few hundred bytes).
  static constexpr size_t kRoom = kPieceBytes + kPieceBytes / 8;
  std::string& bytes_;
  std::vector<std::string> pieces_;
};

// For a writer that makes either the whole message (no pieces) or its pieces: a field opened
// and closed with `pieces`' open and close where there are pieces, else with `w`'s own; the
// string handed over as a piece when it is full, where there are pieces.
inline WirePieces::Open open_field(WireWriter& w, WirePieces* pieces, int field) {
  return pieces != nullptr ? pieces->open(w, field) : WirePieces::Open{0, w.open(field)};
}
inline void close_field(WireWriter& w, WirePieces* pieces, WirePieces::Open o) {
  if (pieces != nullptr) {
    pieces->close(w, o);
  } else {
    w.close(o.offset);
  }
}
inline void maybe_flush(WirePieces* pieces) {
  if (pieces != nullptr) pieces->maybe_flush();
}

}  // namespace hloroof::proto_internal

#endif  // HLOROOF_EXPORT_WIRE_WRITER_H_
