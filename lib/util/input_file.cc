#include "hloroof/input_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "util/absl_compat.h"
#include "util/huge_pages.h"

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

// Reads until end of file or until more than `max_bytes` were read (then `*over` is set).
absl::Status read_all(int fd, std::string_view path, int64_t max_bytes, std::string* out,
                      bool* over) {
  *over = false;
  size_t used = out->size();
  for (;;) {
    if (out->size() - used < 4096) {
      size_t grown = out->size() < 65536 ? 65536 : out->size() * 2;
      out->resize(grown);
    }
    ssize_t n = ::read(fd, out->data() + used, out->size() - used);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_error(path, errno);
    if (n == 0) break;
    used += static_cast<size_t>(n);
    if (static_cast<int64_t>(used) > max_bytes) {
      *over = true;
      break;
    }
  }
  out->resize(used);
  return absl::OkStatus();
}

// Reads exactly `size` bytes into `out`.
absl::Status read_into(int fd, std::string_view path, size_t size, char* out) {
  size_t used = 0;
  while (used < size) {
    ssize_t n = ::read(fd, out + used, size - used);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_error(path, errno);
    if (n == 0) {
      return absl::DataLossError(
          absl::StrCat("cannot read ", quoted(path), ": it became shorter while being read"));
    }
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

  // The text lies in a reservation one byte longer than the file, rounded up to pages, so that
  // the byte after the text is a readable zero: past the file's end within its last page the
  // kernel fills zeros; when the file ends on a page boundary, the reservation's extra page is.
  // The file's huge pages (2 MiB each) are read into huge pages: one copy, after which
  // the text costs much less to touch the first time than a mapping of the file in 4 KiB pages
  // (util/huge_pages.h; about 1 ms less for a 3.6 MB file on a virtual machine). So is its last
  // part when the huge page it takes would leave at most an eighth of a byte per text byte
  // unused (resident all the same): 0.6 ms less for a 3.8 MB file, its last 1.6 MiB in one.
  // The rest, and the whole file where huge pages are not given, is a mapping of the file.
  const size_t bytes = static_cast<size_t>(size);
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  size_t span = (bytes / page + 1) * page;
  size_t huge = bytes / detail::kHugePageBytes * detail::kHugePageBytes;
  if (const size_t whole = huge + detail::kHugePageBytes;
      huge > 0 && bytes > huge && (whole - bytes) * 8 <= bytes) {
    huge = whole;  // whole > bytes: the byte after the text is in it
    span = whole;
  }
  void* base = huge > 0 ? detail::map_huge_pages(span, huge) : nullptr;
  if (base == nullptr) {
    huge = 0;
    base = ::mmap(nullptr, span, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) base = nullptr;
  }
  if (base != nullptr) {
    char* text = static_cast<char*>(base);
    if (huge > 0) {
      if (absl::Status s = read_into(fd.get(), path, std::min(huge, bytes), text); !s.ok()) {
        ::munmap(base, span);
        return s;
      }
      (void)::mprotect(base, huge, PROT_READ);
    }
    bool ok = true;
    if (bytes > huge) {
      void* mapped =
          ::mmap(text + huge, bytes - huge, PROT_READ, MAP_PRIVATE | MAP_FIXED | MAP_POPULATE,
                 fd.get(), static_cast<off_t>(huge));
      ok = mapped != MAP_FAILED;
    }
    if (ok) {
      file.map_base_ = base;
      file.map_bytes_ = span;
      file.text_ = std::string_view(text, bytes);
      return file;
    }
    ::munmap(base, span);
    if (huge > 0 && ::lseek(fd.get(), 0, SEEK_SET) != 0) return errno_error(path, errno);
  }
  // No mapping (a file system without mmap): one read of the file's size.
  if (absl::Status s = read_exact(fd.get(), path, bytes, &file.buffer_); !s.ok()) return s;
  file.text_ = std::string_view(file.buffer_);
  return file;
}

}  // namespace hloroof
