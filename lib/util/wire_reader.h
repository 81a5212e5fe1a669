// Reading the protobuf wire format without decoding: fields one at a time, and how many
// length-delimited fields (messages, strings) a message holds, so that a reader can refuse
// bytes whose decoded messages would be many times their size before it decodes them; and
// writing the fields a reader keeps of a message, so that it decodes only those.
#ifndef HLOROOF_UTIL_WIRE_READER_H_
#define HLOROOF_UTIL_WIRE_READER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace hloroof::wire {

// One field of a message in the protobuf wire format.
struct Field {
  uint64_t number = 0;
  int type = 0;               // 0 varint, 1 fixed64, 2 length-delimited, 5 fixed32
  uint64_t value = 0;         // type 0: the varint
  std::string_view payload;   // type 2: the bytes
  std::string_view raw;       // the whole field, tag included
};

inline bool read_varint(std::string_view bytes, size_t* at, uint64_t* value) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*at >= bytes.size()) return false;
    const uint8_t b = static_cast<uint8_t>(bytes[(*at)++]);
    v |= static_cast<uint64_t>(b & 0x7F) << shift;
    if ((b & 0x80) == 0) {
      *value = v;
      return true;
    }
  }
  return false;
}

// Calls fn(field) for each field of `message`; fn returns false to stop. False when the bytes
// are not a well-formed message (or fn stopped). Groups (wire types 3 and 4) are skipped.
template <typename Fn>
bool for_each_field(std::string_view message, Fn fn) {
  size_t at = 0;
  int64_t groups = 0;  // open groups of unknown fields, skipped
  while (at < message.size()) {
    const size_t start = at;
    uint64_t tag = 0;
    if (!read_varint(message, &at, &tag)) return false;
    Field field;
    field.number = tag >> 3;
    field.type = static_cast<int>(tag & 7);
    if (field.number == 0) return false;
    switch (field.type) {
      case 0:
        if (!read_varint(message, &at, &field.value)) return false;
        break;
      case 1:
      case 5: {
        const size_t n = field.type == 1 ? 8 : 4;
        if (message.size() - at < n) return false;
        at += n;
        break;
      }
      case 2: {
        uint64_t length = 0;
        if (!read_varint(message, &at, &length) || length > message.size() - at) return false;
        field.payload = message.substr(at, static_cast<size_t>(length));
        at += static_cast<size_t>(length);
        break;
      }
      case 3:
        ++groups;
        continue;
      case 4:
        if (--groups < 0) return false;
        continue;
      default:
        return false;
    }
    if (groups > 0) continue;
    field.raw = message.substr(start, at - start);
    if (!fn(field)) return false;
  }
  return groups == 0;
}

// The length-delimited fields of `message` and, through every payload that is itself a
// well-formed message, of the messages inside it (to `max_depth` levels): each is an object or
// a string when decoded. Counting stops past `limit` (the result is then limit + 1). -1 when
// `message` is not well formed.
inline int64_t count_length_delimited(std::string_view message, int64_t limit,
                                      int max_depth = 100) {
  int64_t n = 0;
  const bool ok = for_each_field(message, [&](const Field& f) {
    if (f.type != 2) return true;
    if (++n > limit) return false;
    if (max_depth > 0 && !f.payload.empty()) {
      const int64_t inner = count_length_delimited(f.payload, limit - n, max_depth - 1);
      if (inner > 0) n += inner;
    }
    return n <= limit;
  });
  if (n > limit) return limit + 1;
  return ok ? n : -1;
}

// Appends a varint, and a length-delimited field (its tag, its length, `payload`).
inline void put_varint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}
inline void put_bytes_field(std::string* out, uint64_t number, std::string_view payload) {
  put_varint(out, number << 3 | 2);
  put_varint(out, payload.size());
  out->append(payload);
}

}  // namespace hloroof::wire

#endif  // HLOROOF_UTIL_WIRE_READER_H_
