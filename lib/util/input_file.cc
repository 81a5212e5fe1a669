#include "hloroof/input_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "hloroof/absl_compat.h"
#include "hloroof/huge_pages.h"

namespace hloroof {
namespace {

// Closes a descriptor on every path out of read_input_file.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

std::string quoted(std::string_view path) { return absl::StrCat("'", sv(path), "'"); }

absl::Status errno_error(std::string_view path, int error) {
  const std::string what = absl::StrCat("cannot read ", quoted(path), ": ");
  switch (error) {
    case ENOENT:
      return absl::NotFoundError(absl::StrCat(what, "no such file; check the path"));
    case ENOTDIR:
      return absl::NotFoundError(
          absl::StrCat(what, "a part of the path is not a directory; check the path"));
    case EACCES:
    case EPERM:
      return absl::PermissionDeniedError(
          absl::StrCat(what, "permission denied; make the file readable or copy it"));
    case ENAMETOOLONG:
      return absl::InvalidArgumentError(absl::StrCat(what, "the path is too long"));
    default:
      return absl::UnavailableError(absl::StrCat(what, std::strerror(error)));
  }
}

// What a file that is not a regular file is, in words.
std::string_view kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a named pipe";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

absl::Status not_regular(std::string_view path, mode_t mode) {
  const std::string_view advice =
      S_ISDIR(mode) ? "name a file in it" : "name a regular file (or '-' for standard input)";
  return absl::InvalidArgumentError(
      absl::StrCat("cannot read ", quoted(path), ": it is ", sv(kind_of(mode)), "; ", sv(advice)));
}

absl::Status too_large(std::string_view what, std::string_view size_words, int64_t max_bytes) {
  return absl::OutOfRangeError(absl::StrCat("cannot read ", sv(what), ": ", sv(size_words),
                                            " the input limit of ", max_bytes, " bytes"));
}

// Reads standard input until its end, or until more than `max_bytes` were read (then `*over` is
// set). The buffer doubles up to 256 MiB, then grows by a quarter (a grown buffer is copied
// while the old one is held: doubling 2 GiB would need 6 GiB), up to the limit and a page past
// it, never beyond. Memory that cannot be had is an error that says how far the read got. A
// NUL byte ends the read with an error: no text holds one, and a stream of them (`<
// /dev/zero`) would otherwise be read to the limit.
absl::Status read_all(int fd, std::string_view path, int64_t max_bytes, std::string* out,
                      bool* over) {
  *over = false;
  const size_t cap = static_cast<size_t>(max_bytes) + 4096;
  constexpr size_t kDoublingBytes = size_t{256} << 20;
  size_t used = out->size();
  for (;;) {
    if (out->size() - used < 4096) {
      const size_t size = out->size();
      const size_t grown = size < 65536           ? 65536
                           : size < kDoublingBytes ? size * 2
                                                   : size + size / 4;
      try {
        out->resize(std::min(grown, cap));
      } catch (const std::bad_alloc&) {
        return absl::ResourceExhaustedError(absl::StrCat(
            "cannot read ", path == "-" ? "standard input" : quoted(path), ": out of memory after ",
            used, " bytes (this machine, or its ulimit -v, gives no more); give a file instead, "
            "which is read at its size in one allocation"));
      }
    }
    ssize_t n = ::read(fd, out->data() + used, out->size() - used);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_error(path, errno);
    if (n == 0) break;
    if (const void* nul = std::memchr(out->data() + used, '\0', static_cast<size_t>(n))) {
      const size_t at = static_cast<size_t>(static_cast<const char*>(nul) - out->data());
      return absl::InvalidArgumentError(
          absl::StrCat("cannot read standard input: it holds a NUL byte (at byte ", at,
                       "), which no text holds; give a text file"));
    }
    used += static_cast<size_t>(n);
    if (static_cast<int64_t>(used) > max_bytes) {
      *over = true;
      break;
    }
  }
  out->resize(used);
  return absl::OkStatus();
}

absl::Status changed_while_read(std::string_view path) {
  return absl::DataLossError(absl::StrCat(
      "cannot read ", quoted(path),
      ": it changed while being read (another program is writing it?); read it again when it is "
      "written, or copy it first"));
}

// Whether `a` and `b` (fstat of one file before and after reading it) show the same contents:
// the same size and modification time.
bool same_contents(const struct stat& a, const struct stat& b) {
  return a.st_size == b.st_size && a.st_mtim.tv_sec == b.st_mtim.tv_sec &&
         a.st_mtim.tv_nsec == b.st_mtim.tv_nsec && a.st_ino == b.st_ino && a.st_dev == b.st_dev;
}

// Reads exactly `size` bytes into `out`.
absl::Status read_into(int fd, std::string_view path, size_t size, char* out) {
  size_t used = 0;
  while (used < size) {
    ssize_t n = ::read(fd, out + used, size - used);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_error(path, errno);
    if (n == 0) return changed_while_read(path);  // it became shorter
    used += static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

// One read of exactly `size` bytes (where mapping the file failed).
absl::Status read_exact(int fd, std::string_view path, size_t size, std::string* out) {
  out->resize(size);
  return read_into(fd, path, size, out->data());
}

}  // namespace

InputFile::~InputFile() { release(); }

void InputFile::release() {
  if (map_base_ != nullptr) ::munmap(map_base_, map_bytes_);
  map_base_ = nullptr;
  map_bytes_ = 0;
}

InputFile::InputFile(InputFile&& other) noexcept
    : path_(std::move(other.path_)),
      buffer_(std::move(other.buffer_)),
      map_base_(std::exchange(other.map_base_, nullptr)),
      map_bytes_(std::exchange(other.map_bytes_, 0)) {
  text_ = map_base_ != nullptr ? other.text_ : std::string_view(buffer_);
  other.buffer_.clear();
  other.text_ = std::string_view(other.buffer_);
}

InputFile& InputFile::operator=(InputFile&& other) noexcept {
  if (this == &other) return *this;
  release();
  path_ = std::move(other.path_);
  buffer_ = std::move(other.buffer_);
  map_base_ = std::exchange(other.map_base_, nullptr);
  map_bytes_ = std::exchange(other.map_bytes_, 0);
  text_ = map_base_ != nullptr ? other.text_ : std::string_view(buffer_);
  other.buffer_.clear();
  other.text_ = std::string_view(other.buffer_);
  return *this;
}

absl::StatusOr<InputFile> read_input_file(std::string_view path, int64_t max_bytes) {
  InputFile file;
  file.path_ = std::string(path);
  if (path == "-") {
    struct stat in;
    if (::fstat(STDIN_FILENO, &in) == 0 && S_ISCHR(in.st_mode)) {
      // A terminal, /dev/zero, /dev/urandom: no HLO text comes from a character device.
      return absl::InvalidArgumentError(
          "cannot read standard input: it is a character device (a terminal, /dev/zero?); "
          "redirect a file into it (`< FILE`) or pipe one");
    }
    bool over = false;
    if (absl::Status s = read_all(STDIN_FILENO, "-", max_bytes, &file.buffer_, &over); !s.ok()) {
      return s;
    }
    if (over) return too_large("standard input", "it is over", max_bytes);
    file.text_ = std::string_view(file.buffer_);
    return file;
  }
  if (path.empty()) return absl::InvalidArgumentError("cannot read '': the path is empty");

  // Refuse what is not a regular file before opening it: opening a named pipe would block.
  struct stat st;
  if (::stat(file.path_.c_str(), &st) != 0) return errno_error(path, errno);
  if (!S_ISREG(st.st_mode)) return not_regular(path, st.st_mode);
  Fd fd(::open(file.path_.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (fd.get() < 0) return errno_error(path, errno);
  // The path may have changed between stat and open: check what was opened.
  if (::fstat(fd.get(), &st) != 0) return errno_error(path, errno);
  if (!S_ISREG(st.st_mode)) return not_regular(path, st.st_mode);
  const int64_t size = static_cast<int64_t>(st.st_size);
  if (size > max_bytes) {
    return too_large(quoted(path), absl::StrCat("it is ", size, " bytes, over"), max_bytes);
  }

  if (size == 0) {
    // Either empty, or a file that does not know its size (/proc, /sys): they report 0.
    char probe = 0;
    ssize_t n;
    do {
      n = ::read(fd.get(), &probe, 1);
    } while (n < 0 && errno == EINTR);
    if (n < 0) return errno_error(path, errno);
    if (n > 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot read ", quoted(path),
                       ": its size is unknown (a /proc or /sys file?); copy it to a file first"));
    }
    return file;
  }

  // The text is read (read(2), not mapped: a file rewritten or cut short while mapped would
  // kill the process with SIGBUS when a page of it is touched) into memory of its own, one byte
  // longer than the file and rounded up to pages, so that the byte after the text is a readable
  // zero. Its parts of 2 MiB are huge pages where the system gives them: one copy, after which
  // the text costs much less to touch the first time than 4 KiB pages (util/huge_pages.h). So is
  // its last part (or the whole text, under 2 MiB) when the huge page it takes would leave at
  // most half a byte per text byte unused (resident all the same): memory of its own costs a
  // fault and a zeroing per 4 KiB page where a mapping of the file took pages already in the
  // page cache, and one per 2 MiB in huge pages. After the read, the file must still have the
  // size and modification time it had before: a file rewritten meanwhile (`cp` over it) may
  // have given part old, part new bytes, so it is an error rather than a mixture.
  const size_t bytes = static_cast<size_t>(size);
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  size_t span = (bytes / page + 1) * page;
  size_t huge = bytes / detail::kHugePageBytes * detail::kHugePageBytes;
  if (const size_t whole = huge + detail::kHugePageBytes;
      bytes > huge && (whole - bytes) * 2 <= bytes) {
    huge = whole;  // whole > bytes: the byte after the text is in it
    span = whole;
  }
  void* base = huge > 0 ? detail::map_huge_pages(span, huge) : nullptr;
  if (base == nullptr) {
    huge = 0;
    base = ::mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) base = nullptr;
  }
  // The part in 4 KiB pages is made resident in one call before the read, rather than one
  // fault at a time as the read reaches each page.
#ifdef MADV_POPULATE_WRITE
  if (base != nullptr && span > huge) {
    (void)::madvise(static_cast<char*>(base) + huge, span - huge, MADV_POPULATE_WRITE);
  }
#endif
  const struct stat before = st;
  if (base != nullptr) {
    char* text = static_cast<char*>(base);
    absl::Status s = read_into(fd.get(), path, bytes, text);
    if (s.ok() && (::fstat(fd.get(), &st) != 0 || !same_contents(before, st))) {
      s = changed_while_read(path);
    }
    if (!s.ok()) {
      ::munmap(base, span);
      return s;
    }
    (void)::mprotect(base, span, PROT_READ);
    file.map_base_ = base;
    file.map_bytes_ = span;
    file.text_ = std::string_view(text, bytes);
    return file;
  }
  // No memory mapped for it: one read of the file's size into a buffer.
  if (absl::Status s = read_exact(fd.get(), path, bytes, &file.buffer_); !s.ok()) return s;
  if (::fstat(fd.get(), &st) != 0 || !same_contents(before, st)) return changed_while_read(path);
  file.text_ = std::string_view(file.buffer_);
  return file;
}

}  // namespace hloroof
