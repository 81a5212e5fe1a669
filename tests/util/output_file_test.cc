#include "hloroof/output_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/functional/function_ref.h"
#include "hloroof/text_safety.h"
#include "require_ok.h"

namespace hloroof {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "hloroof_output_XXXXXX").string();
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    fs::permissions(path_, fs::perms::owner_all, ignored);
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string contents_of(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

size_t files_in(const fs::path& dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir)) ++n;
  return n;
}

// Whether the file system of `dir` makes unnamed files (O_TMPFILE).
bool tmpfile_supported(const fs::path& dir) {
#ifdef O_TMPFILE
  const int fd = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  ::close(fd);
  return true;
#else
  (void)dir;
  return false;
#endif
}

// Writes `produce` to `out`, holding "old", in a child process whose files may grow to `limit`
// bytes: true when the write failed as it should ("cannot write the trace to '...") and left
// "old" as it was, alone in its directory.
bool cut_short_keeps_old(const fs::path& out, absl::FunctionRef<void(std::ostream&)> produce,
                         rlim_t limit) {
  std::ofstream(out) << "old";
  const pid_t child = fork();
  if (child < 0) return false;
  if (child == 0) {
    signal(SIGXFSZ, SIG_IGN);
    const rlimit limits{limit, limit};
    setrlimit(RLIMIT_FSIZE, &limits);
    const absl::Status s = write_output_file(out.string(), produce, "the trace");
    _exit(!s.ok() && s.message().find("cannot write the trace to '") == 0 ? 0 : 1);
  }
  int status = 0;
  if (waitpid(child, &status, 0) != child) return false;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 && contents_of(out) == "old" &&
         files_in(out.parent_path()) == 1;
}

TEST_CASE("An output replaces the old file whole and leaves nothing beside it") {
  TempDir dir;
  const fs::path out = dir.path() / "step.trace.json";
  std::ofstream(out) << "old";
  fs::permissions(out, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  REQUIRE_OK(write_output_file(out.string(), "new contents", "the trace"));
  CHECK(contents_of(out) == "new contents");
  CHECK(files_in(dir.path()) == 1);  // no temporary left
  // The replaced file keeps its permissions.
  CHECK(fs::status(out).permissions() ==
        (fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read));
  // A new file.
  REQUIRE_OK(write_output_file((dir.path() / "new.svg").string(), "<svg/>", "the roofline"));
  CHECK(contents_of(dir.path() / "new.svg") == "<svg/>");
}

TEST_CASE("A write that fails leaves the old file as it was") {
  TempDir dir;
  const fs::path out = dir.path() / "device.json";
  std::ofstream(out) << "{\"old\": true}";
  // A file-size limit of 1000 bytes: writing 5000 fails (EFBIG). In a child process, so that
  // the limit does not outlive the test.
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{1000, 1000};
    setrlimit(RLIMIT_FSIZE, &limit);
    const absl::Status s = write_output_file(out.string(), std::string(5000, 'x'), "the device");
    const bool said = !s.ok() && s.message().find("cannot write the device to '") == 0 &&
                      s.message().find("the file already there is left as it was") !=
                          std::string::npos;
    _exit(said ? 0 : 1);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(contents_of(out) == "{\"old\": true}");
  CHECK(files_in(dir.path()) == 1);
  // A directory that does not exist.
  const absl::Status missing =
      write_output_file((dir.path() / "no" / "x.json").string(), "x", "the trace");
  CHECK(missing.message().find("No such file or directory") != std::string_view::npos);
}

TEST_CASE("An output that names an input is refused, however it is spelled") {
  TempDir dir;
  const fs::path in = dir.path() / "in.hlo";
  std::ofstream(in) << "HloModule m";
  fs::create_symlink(in, dir.path() / "link.hlo");
  const std::string inputs[] = {in.string()};
  for (const fs::path& out : {in, dir.path() / "." / "in.hlo", dir.path() / "link.hlo"}) {
    INFO(out.string());
    const absl::Status s = write_output_file(out.string(), "trace", "the trace", inputs);
    CHECK(s.message() == "cannot write the trace to '" + out.string() +
                             "': it is an input of this command ('" + in.string() +
                             "'), which would be overwritten; write to another file");
  }
  CHECK(contents_of(in) == "HloModule m");
  // A link to another file: the file it names is replaced, the link stays a link.
  const fs::path target = dir.path() / "target.json";
  std::ofstream(target) << "old";
  fs::create_symlink(target, dir.path() / "out.json");
  REQUIRE_OK(write_output_file((dir.path() / "out.json").string(), "new", "the trace", inputs));
  CHECK(fs::is_symlink(dir.path() / "out.json"));
  CHECK(contents_of(target) == "new");
  // What cannot be replaced is written in place, and a directory is refused.
  CHECK(write_output_file("/dev/null", "x", "the trace").ok());
  CHECK(write_output_file(dir.path().string(), "x", "the trace").message().find(
            "it is a directory") != std::string_view::npos);
}

TEST_CASE("A device spec with its topology and a file on standard input are inputs too") {
  TempDir dir;
  const fs::path spec = dir.path() / "dev.json";
  std::ofstream(spec) << "{}";
  // `--device dev.json:2x2 --trace dev.json`: the suffix hid the file from the check.
  const std::string with_topology[] = {spec.string() + ":2x2"};
  CHECK(write_output_file(spec.string(), "trace", "the trace", with_topology).message().find(
            "it is an input of this command") != std::string_view::npos);
  CHECK(contents_of(spec) == "{}");
  // `predict - --trace in.hlo < in.hlo`: "-" names the file redirected to standard input.
  const fs::path in = dir.path() / "in.hlo";
  std::ofstream(in) << "HloModule m";
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    const int fd = ::open(in.c_str(), O_RDONLY);
    if (fd < 0 || ::dup2(fd, STDIN_FILENO) < 0) _exit(2);
    const std::string stdin_input[] = {"-"};
    const absl::Status s = write_output_file(in.string(), "trace", "the trace", stdin_input);
    _exit(s.message().find("it is an input of this command ('-')") != std::string_view::npos
              ? 0
              : 1);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(contents_of(in) == "HloModule m");
}

TEST_CASE("A path of - is standard output") {
  TempDir dir;
  const fs::path captured = dir.path() / "stdout.txt";
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    const int fd = ::open(captured.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || ::dup2(fd, STDOUT_FILENO) < 0) _exit(2);
    _exit(write_output_file("-", "the trace\n", "the trace").ok() ? 0 : 1);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(contents_of(captured) == "the trace\n");
  CHECK_FALSE(fs::exists(fs::current_path() / "-"));
}

TEST_CASE("A run killed while it writes leaves the old file and nothing beside it") {
  TempDir dir;
  const fs::path out = dir.path() / "step.trace.json";
  // SIGKILL after 1 MiB is written; then a file-size limit whose SIGXFSZ is not ignored (the
  // default action ends the process). Neither may leave `.step.trace.json.tmp.PID.N`.
  for (const bool kill_self : {true, false}) {
    INFO((kill_self ? "SIGKILL" : "SIGXFSZ"));
    std::ofstream(out) << "old";
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      if (!kill_self) {
        const rlimit limit{4096, 4096};
        setrlimit(RLIMIT_FSIZE, &limit);
      }
      (void)write_output_file(
          out.string(),
          [&](std::ostream& o) {
            o << std::string(size_t{1} << 20, 'x');
            o.flush();
            if (kill_self) ::kill(::getpid(), SIGKILL);
            o << std::string(size_t{1} << 20, 'y');
          },
          "the trace");
      _exit(0);
    }
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    CHECK(WIFSIGNALED(status));
    CHECK(contents_of(out) == "old");
    // Nothing behind where the file system makes unnamed files (O_TMPFILE: ext4, xfs, tmpfs);
    // elsewhere the named temporary of a killed run stays.
    if (tmpfile_supported(dir.path())) CHECK(files_in(dir.path()) == 1);
  }
}

TEST_CASE("A writable file in a folder that is not: refused with why, or written in place") {
  TempDir dir;
  const fs::path folder = dir.path() / "locked";
  fs::create_directories(folder);
  const fs::path out = folder / "device.json";
  std::ofstream(out) << "old";
  fs::permissions(out, fs::perms::all);
  // In a child without the right to write the folder (root's children become nobody).
  for (const bool in_place : {false, true}) {
    INFO((in_place ? "HLOROOF_WRITE_IN_PLACE=1" : "refused"));
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      if (::getuid() == 0) {
        // Without the right to become nobody (a container's root), the case cannot be made.
        if (::chmod(dir.path().c_str(), 0755) != 0 || ::setgid(65534) != 0 ||
            ::setuid(65534) != 0) {
          _exit(77);
        }
      } else if (::chmod(folder.c_str(), 0555) != 0) {
        _exit(2);
      }
      if (in_place) ::setenv("HLOROOF_WRITE_IN_PLACE", "1", 1);
      const absl::Status s = write_output_file(out.string(), "new", "the device");
      if (in_place) _exit(s.ok() ? 0 : 1);
      _exit(s.message().find("cannot be written") != std::string_view::npos &&
                    s.message().find("HLOROOF_WRITE_IN_PLACE=1") != std::string_view::npos
                ? 0
                : 1);
    }
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    REQUIRE(WIFEXITED(status));
    if (WEXITSTATUS(status) == 77) {
      WARN("no user without the right to write the folder could be had: not checked");
      return;
    }
    CHECK(WEXITSTATUS(status) == 0);
    CHECK(contents_of(out) == (in_place ? "new" : "old"));
  }
}

TEST_CASE("Names from outside print without control characters") {
  // ESC [ 2 J clears a terminal; ESC ] 0 ; ... BEL sets its title.
  CHECK(printable("\x1b[2J\x1b]0;pwn\a") == "\\x1b[2J\\x1b]0;pwn\\x07");
  CHECK(printable("fusion.1\nfusion.2\t\r") == "fusion.1\\nfusion.2\\t\\r");
  // U+009B (CSI in some terminals) as UTF-8, and the same byte alone (not UTF-8).
  CHECK(printable("a\xc2\x9b" "b\x9b" "c") == "a\\xc2\\x9bb\\x9bc");
  CHECK(printable("caf\xc3\xa9 \xe2\x88\x9e") == "caf\xc3\xa9 \xe2\x88\x9e");  // unchanged
  CHECK(utf8_replaced("ok\xff\xfe" "ok") == "ok\xef\xbf\xbd\xef\xbf\xbdok");
  CHECK(utf8_replaced("\xed\xa0\x80") == "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");  // surrogate
  CHECK(utf8_replaced("\xf0\x9f\x98\x80") == "\xf0\x9f\x98\x80");
}

TEST_CASE("An output produced into a stream is written whole, or not at all") {
  // 300,000 bytes in lines of 10: several of the writer's 64 KiB pieces.
  TempDir dir;
  const fs::path out = dir.path() / "big.json";
  auto produce = [](std::ostream& stream) {
    for (int i = 0; i < 30000; ++i) stream << "line " << (10000 + i) % 10000 / 1000 << "...\n";
  };
  std::ostringstream expected;
  produce(expected);
  REQUIRE(expected.str().size() == 300000);
  REQUIRE_OK(write_output_file(out.string(), produce, "the trace"));
  CHECK(contents_of(out) == expected.str());
  // A file-size limit of 100,000 bytes stops it after the first pieces: the old file stays.
  CHECK(cut_short_keeps_old(out, produce, 100000));
}

TEST_CASE("Pieces of 64 KiB and more written into the stream land in order among small ones") {
  // Small pieces, then pieces of 65,536 and 100,000 bytes (the writer's buffer holds 65,536):
  // each large one follows what the buffer held before it.
  TempDir dir;
  const fs::path out = dir.path() / "pieces.json";
  auto produce = [](std::ostream& stream) {
    stream << "head;";
    stream.write(std::string(65536, 'a').data(), 65536);
    stream << "middle;";
    stream.write(std::string(100000, 'b').data(), 100000);
    stream.write(std::string(100000, 'c').data(), 100000);
    stream << "tail";
  };
  std::ostringstream expected;
  produce(expected);
  // 5 + 65,536 + 7 + 2 x 100,000 + 4 bytes.
  REQUIRE(expected.str().size() == 265552);
  REQUIRE_OK(write_output_file(out.string(), produce, "the trace"));
  CHECK(contents_of(out) == expected.str());
  // A file-size limit of 100,000 bytes stops it at the second large piece: the old file stays.
  CHECK(cut_short_keeps_old(out, produce, 100000));
}

TEST_CASE("An output of several MiB, handed to the disk a MiB at a time, is whole or absent") {
  // 3,670,016 bytes (3.5 MiB) in pieces of 64 KiB and small ones: past three of the MiB
  // marks where the written part is handed to the disk before the end.
  TempDir dir;
  const fs::path out = dir.path() / "large.json";
  auto produce = [](std::ostream& stream) {
    for (int i = 0; i < 56; ++i) {
      stream << "piece " << i % 10 << ";";  // 8 bytes
      const std::string piece(65536 - 8, static_cast<char>('a' + i % 26));
      stream.write(piece.data(), static_cast<std::streamsize>(piece.size()));
    }
  };
  std::ostringstream expected;
  produce(expected);
  REQUIRE(expected.str().size() == 56 * 65536);
  REQUIRE_OK(write_output_file(out.string(), produce, "the trace"));
  CHECK(contents_of(out) == expected.str());
  // A file-size limit of 2.5 MiB stops it after two hand-overs: the old file stays.
  CHECK(cut_short_keeps_old(out, produce, 5 << 19));
}

TEST_CASE("A text written whole in one piece of MiBs, and a producer that fails, keep the rule") {
  // 3 MiB and 5 bytes in one write (a serialized XSpace): handed to the disk a MiB at a time.
  TempDir dir;
  const fs::path out = dir.path() / "space.pb";
  const std::string text = std::string(3 << 20, 'x') + "tail.";
  REQUIRE_OK(write_output_file(out.string(), text, "the XSpace"));
  CHECK(contents_of(out) == text);
  // A producer that cannot make its text leaves the stream bad: an error, the old file kept,
  // nothing beside it.
  absl::Status failed = write_output_file(
      out.string(),
      [](std::ostream& stream) {
        stream << "half";
        stream.setstate(std::ios::badbit);
      },
      "the XSpace");
  CHECK(!failed.ok());
  CHECK(contents_of(out) == text);
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir.path())) files += entry.is_regular_file();
  CHECK(files == 1);
}

}  // namespace
}  // namespace hloroof
