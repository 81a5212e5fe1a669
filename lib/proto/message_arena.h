// The arena a tree of many small protobuf messages is made in (an HloProto, an XSpace): tens
// of thousands of messages made at once and dropped at once, one block of up to 256 KiB at a
// time rather than a heap allocation and a free each.
#ifndef HLOROOF_LIB_PROTO_MESSAGE_ARENA_H_
#define HLOROOF_LIB_PROTO_MESSAGE_ARENA_H_

#include "google/protobuf/arena.h"

namespace hloroof::proto_internal {

inline google::protobuf::ArenaOptions message_arena_options() {
  google::protobuf::ArenaOptions options;
  options.start_block_size = 64 << 10;
  options.max_block_size = 256 << 10;
  return options;
}

}  // namespace hloroof::proto_internal

#endif  // HLOROOF_LIB_PROTO_MESSAGE_ARENA_H_
