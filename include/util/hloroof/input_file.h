// The one reader for every input file (HLO text, device specs, profiles): one set of checks,
// one read of the file into memory of its own, errors that name the path and say what to do.
#ifndef HLOROOF_INPUT_FILE_H_
#define HLOROOF_INPUT_FILE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace hloroof {

// The largest input read unless a caller asks otherwise: 4 GiB (2^32 bytes). The largest HLO
// dumps seen in practice are a few hundred megabytes; the limit keeps a mistaken path (a disk
// image, a log) from exhausting memory.
inline constexpr int64_t kDefaultMaxInputBytes = int64_t{4} << 30;

// The whole contents of one input, read-only. Backed by memory mapped for it, into which a
// regular file is read (its parts of 2 MiB and more in huge pages where the system gives them:
// see read_input_file), or by one buffer (standard input, an empty file, no memory to map).
// Never by a mapping of the file itself: a file rewritten or truncated while mapped kills the
// reader with SIGBUS. Move-only; the text stays valid while the object lives, whatever happens
// to the file.
class InputFile {
 public:
  InputFile() = default;
  ~InputFile();
  InputFile(InputFile&& other) noexcept;
  InputFile& operator=(InputFile&& other) noexcept;
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  // The file's bytes. `text().data()[text().size()]` is always a readable NUL byte, so the
  // text can be handed to readers that stop at a NUL sentinel.
  std::string_view text() const { return text_; }
  // The path as given (`-` for standard input).
  const std::string& path() const { return path_; }
  // True when the text lies in memory mapped for it (pages, huge where given, that the file was
  // read into) rather than in a buffer.
  bool mapped() const { return map_base_ != nullptr; }

 private:
  friend absl::StatusOr<InputFile> read_input_file(std::string_view path, int64_t max_bytes);
  void release();

  std::string path_;
  std::string buffer_;        // the text when it is not mapped
  void* map_base_ = nullptr;  // the mapping, when mapped
  size_t map_bytes_ = 0;      // its length (the file's size rounded up, plus a page)
  std::string_view text_{buffer_.c_str(), 0};
};

// Reads `path` (`-`: standard input, up to `max_bytes`). Refuses, with an error that names the
// path: a missing or unreadable file, a directory, anything that is not a regular file (devices
// such as /dev/zero, pipes, sockets), a file whose size is not known (/proc and /sys files report
// size 0 but are not empty), an input over `max_bytes`, and a file whose size or modification
// time changed while it was read ("changed while being read": it may have given part old, part
// new bytes). Standard input is refused when it is a character device (a terminal, /dev/zero)
// and when it holds a NUL byte (the read stops there).
absl::StatusOr<InputFile> read_input_file(std::string_view path,
                                          int64_t max_bytes = kDefaultMaxInputBytes);

}  // namespace hloroof

#endif  // HLOROOF_INPUT_FILE_H_
