// The arena many small protobuf messages are made in (an XSpace plane's lines and stats; the
// messages a WireWriter writes one at a time, ScratchMessages): made at once and dropped at
// once, one block of up to 256 KiB at a time rather than a heap allocation and a free each.
#ifndef HLOROOF_LIB_EXPORT_MESSAGE_ARENA_H_
#define HLOROOF_LIB_EXPORT_MESSAGE_ARENA_H_

#include "google/protobuf/arena.h"

namespace hloroof::proto_internal {

inline google::protobuf::ArenaOptions message_arena_options() {
  google::protobuf::ArenaOptions options;
  options.start_block_size = 64 << 10;
  options.max_block_size = 256 << 10;
  return options;
}

// Messages made one after another, each written and let go before the next is made (a
// WireWriter's): made in an arena that is emptied every kMessages messages, so that making one
// takes no heap allocation and a free each, and they hold a few blocks at most.
class ScratchMessages {
 public:
  // A new message; the ones made before it may be gone.
  template <typename Message>
  Message* make() {
    if (++made_ == kMessages) {
      made_ = 0;
      arena_.Reset();
    }
    return google::protobuf::Arena::CreateMessage<Message>(&arena_);
  }

 private:
  static constexpr int kMessages = 256;
  google::protobuf::Arena arena_{message_arena_options()};
  int made_ = 0;
};

}  // namespace hloroof::proto_internal

#endif  // HLOROOF_LIB_EXPORT_MESSAGE_ARENA_H_
