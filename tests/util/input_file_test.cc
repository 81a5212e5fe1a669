#include "hloroof/input_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include "require_ok.h"

namespace hloroof {
namespace {

namespace fs = std::filesystem;

// A fresh directory under the system's temporary directory, removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "hloroof_input_XXXXXX").string();
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    fs::permissions(path_, fs::perms::owner_all, ignored);
    fs::remove_all(path_, ignored);
  }
  std::string write(const std::string& name, const std::string& contents) const {
    std::string file = (path_ / name).string();
    std::ofstream(file, std::ios::binary) << contents;
    return file;
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string message_of(const absl::StatusOr<InputFile>& f) {
  return std::string(f.status().message());
}

TEST_CASE("A regular file reads whole, mapped, with a NUL after its text") {
  TempDir dir;
  const std::string path =
      dir.write("m.hlo", "HloModule m\n\nENTRY e { ROOT c = f32[] constant(1) }\n");
  absl::StatusOr<InputFile> f = read_input_file(path);
  REQUIRE_OK(f);
  CHECK(f->text() == "HloModule m\n\nENTRY e { ROOT c = f32[] constant(1) }\n");
  CHECK(f->path() == path);
  CHECK(f->mapped());
  CHECK(f->text().data()[f->text().size()] == '\0');
}

TEST_CASE("A file that ends on a page boundary still has a NUL after its text") {
  TempDir dir;
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const std::string contents(2 * page, 'x');
  absl::StatusOr<InputFile> f = read_input_file(dir.write("pages.hlo", contents));
  REQUIRE_OK(f);
  CHECK(f->text().size() == 2 * page);
  CHECK(f->text() == contents);
  CHECK(f->text().data()[2 * page] == '\0');
}

TEST_CASE("A file of several huge pages reads whole, with a NUL after its text") {
  // 2 MiB and more are read into huge pages, the rest into 4 KiB pages: both parts must read
  // back, whether the file ends inside a huge page or on its boundary. A last part that leaves
  // at most half a byte per byte of the file of its huge page unused is read into one too:
  // 4 MiB - 1 (one byte unused, the NUL), 4 MiB - 100 KB and 5 MiB - 1 (1 MiB + 1 unused,
  // 2.5 MiB allowed) are; 2 MiB + 100 (2 MiB - 100 unused, 1 MiB allowed) is not. Under 2 MiB
  // the same: 1.5 MiB (0.5 MiB unused, 0.75 MiB allowed) is one huge page.
  TempDir dir;
  for (size_t size : {(size_t{2} << 20) + 100, size_t{4} << 20, (size_t{5} << 20) - 1,
                      (size_t{4} << 20) - 1, (size_t{4} << 20) - 100 * 1024,
                      size_t{3} << 19}) {
    std::string contents(size, '\0');
    for (size_t i = 0; i < size; ++i) contents[i] = static_cast<char>('a' + i % 23);
    absl::StatusOr<InputFile> f = read_input_file(dir.write("big.hlo", contents));
    REQUIRE_OK(f);
    INFO(size);
    CHECK(f->mapped());
    CHECK(f->text().size() == size);
    CHECK(f->text() == contents);
    CHECK(f->text().data()[size] == '\0');
  }
}

TEST_CASE("A file cut short and rewritten after it was read leaves the text as it was") {
  // The text is the file's bytes as read, not a mapping of the file: a mapping would raise
  // SIGBUS on the first touch of a page past the file's new end.
  TempDir dir;
  for (size_t size : {size_t{100} << 10, (size_t{3} << 20) + 5}) {
    INFO(size);
    const std::string contents(size, 'a');
    const std::string path = dir.write("changing.hlo", contents);
    absl::StatusOr<InputFile> f = read_input_file(path);
    REQUIRE_OK(f);
    REQUIRE(truncate(path.c_str(), 0) == 0);
    dir.write("changing.hlo", "b");
    CHECK(f->text().size() == size);
    CHECK(f->text() == contents);
  }
}

TEST_CASE("An empty file reads as empty text") {
  TempDir dir;
  absl::StatusOr<InputFile> f = read_input_file(dir.write("empty.hlo", ""));
  REQUIRE_OK(f);
  CHECK(f->text().empty());
  CHECK(f->text().data()[0] == '\0');
}

TEST_CASE("Moving an InputFile moves its text") {
  TempDir dir;
  absl::StatusOr<InputFile> f = read_input_file(dir.write("a.hlo", "abc"));
  REQUIRE_OK(f);
  InputFile moved = *std::move(f);
  CHECK(moved.text() == "abc");
  InputFile assigned;
  assigned = std::move(moved);
  CHECK(assigned.text() == "abc");
  CHECK(moved.text().empty());  // NOLINT(bugprone-use-after-move): moved-from is empty
}

TEST_CASE("A missing file is refused with its path and what to check") {
  TempDir dir;
  const std::string path = (dir.path() / "missing.hlo").string();
  absl::StatusOr<InputFile> f = read_input_file(path);
  REQUIRE(!f.ok());
  CHECK(absl::IsNotFound(f.status()));
  CHECK(message_of(f) == "cannot read '" + path + "': no such file; check the path");
}

TEST_CASE("A directory is refused") {
  TempDir dir;
  absl::StatusOr<InputFile> f = read_input_file(dir.path().string());
  REQUIRE(!f.ok());
  CHECK(message_of(f) ==
        "cannot read '" + dir.path().string() + "': it is a directory; name a file in it");
}

TEST_CASE("Devices and named pipes are refused without reading them") {
  if (fs::exists("/dev/zero")) {
    absl::StatusOr<InputFile> f = read_input_file("/dev/zero");
    REQUIRE(!f.ok());
    CHECK(message_of(f).find("'/dev/zero': it is a character device; name a regular file") !=
          std::string::npos);
  }
  TempDir dir;
  const std::string fifo = (dir.path() / "pipe").string();
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  // Opening a pipe with no writer would block: the check comes before the open.
  absl::StatusOr<InputFile> f = read_input_file(fifo);
  REQUIRE(!f.ok());
  CHECK(message_of(f).find("it is a named pipe; name a regular file") != std::string::npos);
}

TEST_CASE("A /proc file, which reports size 0 but has contents, is refused") {
  if (!fs::exists("/proc/self/status")) return;  // not Linux
  absl::StatusOr<InputFile> f = read_input_file("/proc/self/status");
  REQUIRE(!f.ok());
  CHECK(message_of(f).find("'/proc/self/status': its size is unknown (a /proc or /sys file?)") !=
        std::string::npos);
}

TEST_CASE("An input over the limit is refused; one at the limit is read") {
  TempDir dir;
  const std::string path = dir.write("big.hlo", std::string(100, 'y'));
  absl::StatusOr<InputFile> over = read_input_file(path, 99);
  REQUIRE(!over.ok());
  CHECK(absl::IsOutOfRange(over.status()));
  CHECK(message_of(over) ==
        "cannot read '" + path + "': it is 100 bytes, over the input limit of 99 bytes");
  absl::StatusOr<InputFile> at = read_input_file(path, 100);
  REQUIRE_OK(at);
  CHECK(at->text().size() == 100);
  CHECK(kDefaultMaxInputBytes == 4294967296);  // 4 GiB = 4 * 2^30 bytes
}

TEST_CASE("An unreadable file is refused") {
  if (geteuid() == 0) return;  // root reads any file
  TempDir dir;
  const std::string path = dir.write("secret.hlo", "x");
  fs::permissions(path, fs::perms::none);
  absl::StatusOr<InputFile> f = read_input_file(path);
  REQUIRE(!f.ok());
  CHECK(absl::IsPermissionDenied(f.status()));
  CHECK(message_of(f).find("permission denied") != std::string::npos);
}

// Runs `body` with standard input reading `contents`.
template <typename Body>
void with_stdin(const TempDir& dir, const std::string& contents, Body body) {
  const std::string path = dir.write("stdin.txt", contents);
  FILE* in = std::fopen(path.c_str(), "rb");
  REQUIRE(in != nullptr);
  const int saved = dup(STDIN_FILENO);
  REQUIRE(dup2(fileno(in), STDIN_FILENO) == STDIN_FILENO);
  body();
  dup2(saved, STDIN_FILENO);
  close(saved);
  std::fclose(in);
}

TEST_CASE("'-' reads standard input, up to the limit") {
  TempDir dir;
  const std::string text(200000, 'z');  // several read chunks
  with_stdin(dir, text, [&] {
    absl::StatusOr<InputFile> f = read_input_file("-");
    REQUIRE_OK(f);
    CHECK(f->text() == text);
    CHECK(f->path() == "-");
    CHECK(f->text().data()[f->text().size()] == '\0');
  });
  with_stdin(dir, text, [&] {
    absl::StatusOr<InputFile> f = read_input_file("-", 1000);
    REQUIRE(!f.ok());
    CHECK(message_of(f) == "cannot read standard input: it is over the input limit of 1000 bytes");
  });
}

TEST_CASE("Standard input stops at its first NUL byte and refuses a character device") {
  TempDir dir;
  // "abc" and a NUL at byte 3 (counting from 0), then more text that is never used.
  with_stdin(dir, std::string("abc\0def", 7), [&] {
    absl::StatusOr<InputFile> f = read_input_file("-");
    REQUIRE(!f.ok());
    CHECK(message_of(f) ==
          "cannot read standard input: it holds a NUL byte (at byte 3), which no text holds; "
          "give a text file");
  });
  if (!fs::exists("/dev/zero")) return;
  FILE* zero = std::fopen("/dev/zero", "rb");
  REQUIRE(zero != nullptr);
  const int saved = dup(STDIN_FILENO);
  REQUIRE(dup2(fileno(zero), STDIN_FILENO) == STDIN_FILENO);
  absl::StatusOr<InputFile> f = read_input_file("-");
  dup2(saved, STDIN_FILENO);
  close(saved);
  std::fclose(zero);
  REQUIRE(!f.ok());
  CHECK(message_of(f).find("standard input: it is a character device") != std::string::npos);
}

}  // namespace
}  // namespace hloroof
