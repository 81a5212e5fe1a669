// Protobuf's deterministic serialization of a message (fields in order of their numbers, map
// entries in order of their keys): what the writers that serialize a message at a time must
// give. Test-only.
#ifndef HLOROOF_TESTS_DETERMINISTIC_BYTES_H_
#define HLOROOF_TESTS_DETERMINISTIC_BYTES_H_

#include <string>

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/message_lite.h"

namespace hloroof::testing {

inline std::string deterministic_bytes(const google::protobuf::MessageLite& message) {
  std::string out;
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    message.ByteSizeLong();  // the sizes SerializeWithCachedSizes writes
    message.SerializeWithCachedSizes(&coded);
  }  // (the stream trims the string as it goes)
  return out;
}

}  // namespace hloroof::testing

#endif  // HLOROOF_TESTS_DETERMINISTIC_BYTES_H_
