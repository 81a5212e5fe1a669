#include "hloroof/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hloroof/absl_compat.h"

namespace hloroof {
namespace {

std::string target_words(std::string_view what, std::string_view path) {
  return absl::StrCat("cannot write ", sv(what), " to '", sv(path), "'");
}

absl::Status errno_status(std::string_view what, std::string_view path, int error,
                          bool old_kept) {
  return absl::UnavailableError(
      absl::StrCat(target_words(what, path), ": ", std::strerror(error),
                   old_kept ? " (the file already there is left as it was)" : ""));
}

// Writes all of `contents` to `fd`; 0 or the errno of the failure.
int write_all(int fd, std::string_view contents) {
  size_t done = 0;
  while (done < contents.size()) {
    const ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return EIO;
    done += static_cast<size_t>(n);
  }
  return 0;
}

// The directory part of `path` ("." when it has none) and the file name.
std::pair<std::string, std::string> split_path(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return {".", path};
  return {slash == 0 ? "/" : path.substr(0, slash), path.substr(slash + 1)};
}

// A stream buffer that writes into a file descriptor in pieces of 64 KiB, keeping the errno
// of the first failure (later output is dropped). A piece written whole that fills the buffer
// (a JSON writer hands over 64 KiB at a time) goes to the file from where it lies, after what
// the buffer holds, instead of being copied through the buffer. Each MiB written is handed to
// the disk at once (sync_file_range, without waiting), so that the fsync before the file takes
// its name waits for the last MiB only: a trace of 22 MB waited 6-8 ms there, 0.5 with this.
class FdBuffer : public std::streambuf {
 public:
  explicit FdBuffer(int fd) : fd_(fd), buffer_(64 << 10) {
    setp(buffer_.data(), buffer_.data() + buffer_.size());
  }
  // 0, or the errno of the first failure; writes what is still held.
  int finish() {
    drain();
    return error_;
  }

 protected:
  int_type overflow(int_type c) override {
    drain();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return error_ == 0 ? traits_type::not_eof(c) : traits_type::eof();
  }
  int sync() override {
    drain();
    return error_ == 0 ? 0 : -1;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    if (n < static_cast<std::streamsize>(buffer_.size())) return std::streambuf::xsputn(s, n);
    drain();
    if (error_ == 0) write(std::string_view(s, static_cast<size_t>(n)));
    return error_ == 0 ? n : 0;
  }

 private:
  void drain() {
    const std::string_view held(pbase(), static_cast<size_t>(pptr() - pbase()));
    if (error_ == 0 && !held.empty()) write(held);
    setp(buffer_.data(), buffer_.data() + buffer_.size());
  }
  // A MiB at a time, so that a large text written at once (a serialized XSpace) is handed to
  // the disk as it goes too.
  void write(std::string_view text) {
    for (size_t at = 0; at < text.size() && error_ == 0; at += kHandedBytes) {
      const std::string_view piece = text.substr(at, kHandedBytes);
      error_ = write_all(fd_, piece);
      written_ += static_cast<int64_t>(piece.size());
#if defined(__linux__) && defined(SYNC_FILE_RANGE_WRITE)
      if (error_ == 0 && written_ - handed_ >= static_cast<int64_t>(kHandedBytes)) {
        // Starts the writeback and returns; a file system without it (EINVAL, ESPIPE) is
        // left to the fsync.
        (void)::sync_file_range(fd_, handed_, written_ - handed_, SYNC_FILE_RANGE_WRITE);
        handed_ = written_;
      }
#endif
    }
  }

  static constexpr size_t kHandedBytes = size_t{1} << 20;
  int fd_;
  std::vector<char> buffer_;
  int error_ = 0;
  int64_t written_ = 0;  // bytes written to fd_
  int64_t handed_ = 0;   // of those, the ones handed to the disk
};

// Writes what `produce` writes into a stream to `fd`: 0 or the errno of the failure.
int write_produced(int fd, absl::FunctionRef<void(std::ostream&)> produce) {
  FdBuffer buffer(fd);
  std::ostream out(&buffer);
  produce(out);
  out.flush();
  const int error = buffer.finish();
  // A producer that could not make its text leaves the stream bad: the file is not written.
  return error == 0 && out.bad() ? EIO : error;
}

// The file an input of the command names: standard output's for "-" (a file redirected into
// the command), and for "PATH:SUFFIX" that names no file, PATH (a device spec with its
// topology, `dev.json:2x2`). False when it names none.
bool input_stat(const std::string& input, struct stat* read) {
  if (input.empty()) return false;
  if (input == "-") return ::fstat(STDIN_FILENO, read) == 0 && S_ISREG(read->st_mode);
  if (::stat(input.c_str(), read) == 0) return true;
  const size_t colon = input.rfind(':');
  return colon != std::string::npos && colon > 0 &&
         ::stat(input.substr(0, colon).c_str(), read) == 0;
}

}  // namespace

absl::Status write_output_file(std::string_view path_text, std::string_view contents,
                               std::string_view what, absl::Span<const std::string> inputs) {
  return write_output_file(
      path_text,
      [&](std::ostream& out) {
        out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
      },
      what, inputs);
}

absl::Status write_output_file(std::string_view path_text,
                               absl::FunctionRef<void(std::ostream&)> produce,
                               std::string_view what, absl::Span<const std::string> inputs) {
  if (path_text.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(target_words(what, ""), ": the path is empty"));
  }
  if (path_text.find('\0') != std::string_view::npos) {
    // The system would read the path only up to the NUL: another file than the one named.
    return absl::InvalidArgumentError(absl::StrCat(
        target_words(what, path_text.substr(0, path_text.find('\0'))),
        ": the path holds a NUL byte, which no path holds"));
  }
  if (path_text == "-") {
    // Standard output, written in place, after what the stream holds.
    std::cout.flush();
    const int error = write_produced(STDOUT_FILENO, produce);
    return error == 0 ? absl::OkStatus() : errno_status(what, "standard output", error, false);
  }
  std::string path(path_text);
  struct stat target;
  const bool exists = ::stat(path.c_str(), &target) == 0;
  if (exists) {
    if (S_ISDIR(target.st_mode)) {
      return absl::InvalidArgumentError(
          absl::StrCat(target_words(what, path), ": it is a directory; name a file in it"));
    }
    for (const std::string& input : inputs) {
      struct stat read;
      if (!input_stat(input, &read)) continue;
      if (read.st_dev == target.st_dev && read.st_ino == target.st_ino) {
        return absl::InvalidArgumentError(absl::StrCat(
            target_words(what, path), ": it is an input of this command ('", input,
            "'), which would be overwritten; write to another file"));
      }
    }
    if (!S_ISREG(target.st_mode)) {
      // /dev/null, /dev/stdout, a named pipe: written in place (not replaced by a file). Opened
      // without blocking: a named pipe that no program reads would wait forever.
      const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
      if (fd < 0 && errno == ENXIO && S_ISFIFO(target.st_mode)) {
        return absl::UnavailableError(absl::StrCat(
            target_words(what, path), ": it is a named pipe that no program reads; start its "
            "reader first, or name a file"));
      }
      if (fd < 0) return errno_status(what, path, errno, false);
      // A reader is there: written as any file, each write waiting for it.
      if (const int flags = ::fcntl(fd, F_GETFL); flags != -1) {
        (void)::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
      }
      int error = write_produced(fd, produce);
      if (::close(fd) != 0 && error == 0) error = errno;
      return error == 0 ? absl::OkStatus() : errno_status(what, path, error, false);
    }
    // A symbolic link: replace the file it names, not the link.
    if (char* resolved = ::realpath(path.c_str(), nullptr); resolved != nullptr) {
      path = resolved;
      std::free(resolved);
    }
  }
  const auto [directory, name] = split_path(path);
  // Where the file system allows it, an unnamed file in the target's folder (O_TMPFILE): a run
  // killed while it writes (SIGKILL, a file-size limit) leaves nothing behind. It is given a
  // name only once written whole, then renamed over the target.
  static std::atomic<uint64_t> counter{0};
  std::string temporary;
  int fd = -1;
  bool unnamed = false;
#ifdef O_TMPFILE
  fd = ::open(directory.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
  unnamed = fd >= 0;
#endif
  // Else a new name beside the target, created as any new file is (0666 less the umask).
  for (int attempt = 0; fd < 0 && attempt < 100; ++attempt) {
    temporary = absl::StrCat(directory, "/.", name, ".tmp.", ::getpid(), ".", counter++);
    fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0666);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) {
    const int error = errno;
    if ((error == EACCES || error == EROFS) && exists) {
      // A writable file in a folder that is not: written in place when the user asks.
      const char* in_place = std::getenv("HLOROOF_WRITE_IN_PLACE");
      if (in_place != nullptr && std::string_view(in_place) == "1") {
        const int out = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY);
        if (out < 0) return errno_status(what, path_text, errno, false);
        int written = write_produced(out, produce);
        if (::close(out) != 0 && written == 0) written = errno;
        return written == 0 ? absl::OkStatus() : errno_status(what, path_text, written, false);
      }
      return absl::UnavailableError(absl::StrCat(
          target_words(what, path_text), ": the folder '", directory, "' cannot be written (",
          std::strerror(error), "); a file is replaced through a new file beside it, so that a "
          "failed write never leaves half of one (the file already there is left as it was). "
          "HLOROOF_WRITE_IN_PLACE=1 writes into the file itself, which a failed write leaves "
          "cut short"));
    }
    return errno_status(what, path_text, error, exists);
  }
  int error = write_produced(fd, produce);
  // A replaced file keeps its permissions.
  if (error == 0 && exists && ::fchmod(fd, target.st_mode & 07777) != 0) error = errno;
  if (error == 0 && ::fsync(fd) != 0 && errno != EINVAL) error = errno;
  if (error == 0 && unnamed) {
    // Named now, whole, then renamed over the target as any temporary.
    const std::string proc = absl::StrCat("/proc/self/fd/", fd);
    for (int attempt = 0; attempt < 100; ++attempt) {
      temporary = absl::StrCat(directory, "/.", name, ".tmp.", ::getpid(), ".", counter++);
      if (::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, temporary.c_str(), AT_SYMLINK_FOLLOW) ==
          0) {
        error = 0;
        break;
      }
      error = errno;
      temporary.clear();
      if (error != EEXIST) break;
    }
  }
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error == 0 && ::rename(temporary.c_str(), path.c_str()) != 0) error = errno;
  if (error != 0) {
    if (!temporary.empty()) ::unlink(temporary.c_str());
    return errno_status(what, path_text, error, exists);
  }
  return absl::OkStatus();
}

}  // namespace hloroof
