#include "standard_output.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <streambuf>
#include <string>
#include <string_view>
#include <vector>

#include "cli.h"

namespace hloroof::cli {
namespace {

// A buffer in front of descriptor 1 that remembers the errno of the first failed write and
// drops what follows it (the output is already cut). A terminal gets each line as it ends.
class StandardOutputBuffer : public std::streambuf {
 public:
  StandardOutputBuffer() : buffer_(kBytes), line_buffered_(::isatty(STDOUT_FILENO) == 1) {
    setp(buffer_.data(), buffer_.data() + buffer_.size());
  }
  int error() const { return error_; }

 protected:
  int_type overflow(int_type ch) override {
    if (drain() != 0) return traits_type::eof();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
      if (line_buffered_ && ch == '\n' && drain() != 0) return traits_type::eof();
    }
    return traits_type::not_eof(ch);
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    const std::streamsize written = std::streambuf::xsputn(s, n);
    if (line_buffered_ && std::string_view(s, static_cast<size_t>(n)).find('\n') !=
                              std::string_view::npos) {
      if (drain() != 0) return 0;
    }
    return written;
  }
  int sync() override { return drain() == 0 ? 0 : -1; }

 private:
  // Writes what is held; 0 or the errno of the (first) failure.
  int drain() {
    const char* at = pbase();
    while (error_ == 0 && at < pptr()) {
      const ssize_t n = ::write(STDOUT_FILENO, at, static_cast<size_t>(pptr() - at));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) error_ = errno;
      if (n == 0) error_ = EIO;
      if (n > 0) at += n;
    }
    setp(buffer_.data(), buffer_.data() + buffer_.size());
    return error_;
  }

  static constexpr size_t kBytes = size_t{1} << 16;
  std::vector<char> buffer_;
  bool line_buffered_;
  int error_ = 0;
};

StandardOutputBuffer* held_buffer = nullptr;

}  // namespace

void take_standard_output() {
  for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    // The lowest free descriptor: this one, as those below it are open.
    const int held = ::open("/dev/null", O_RDONLY);
    if (held >= 0 && held != fd) {
      (void)::dup2(held, fd);
      (void)::close(held);
    }
  }
  // Never destroyed: static objects may still print as the process ends.
  held_buffer = new StandardOutputBuffer();
  std::cout.rdbuf(held_buffer);
}

int finish_standard_output(int exit_code) {
  if (held_buffer == nullptr) return exit_code;
  std::cout.flush();
  int error = held_buffer->error();
  if (error == 0 && std::cout.bad()) error = EIO;
  if (error == 0) return exit_code;
  std::cerr << "error: cannot write standard output: " << std::strerror(error)
            << (error == EBADF ? " (standard output is closed)" : "")
            << "; what was written is cut short\n";
  return exit_code == kExitOk ? kExitBadInput : exit_code;
}

}  // namespace hloroof::cli
