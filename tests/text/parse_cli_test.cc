// `hloroof parse` as a user runs it: summaries, canonical printing, JSON and exit codes.
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <string>

#include "../cli/cli_runner.h"
#include "nlohmann/json.hpp"

namespace {

using hloroof::testing::run_cli;

constexpr const char* kGood = R"(HloModule m
ENTRY e {
  a = f32[4]{0} parameter(0)
  b = f32[4]{0} negate(a)
  ROOT c = f32[4]{0} add(a, b)
}
)";

// A file that exists for the duration of a test.
struct TempFile {
  std::string path;
  explicit TempFile(const std::string& text) {
    char name[] = "/tmp/hloroof_parse_test_XXXXXX";
    int fd = mkstemp(name);
    if (fd >= 0) close(fd);
    path = name;
    std::ofstream(path, std::ios::binary) << text;
  }
  ~TempFile() { std::remove(path.c_str()); }
};

TEST_CASE("parse summarizes a good file and exits 0") {
  TempFile good(kGood);
  auto r = run_cli("parse " + good.path);
  CHECK(r.exit_code == 0);
  CHECK(r.out == good.path + ": ok, module m, 1 computations, 3 instructions\n");
}

TEST_CASE("parse --print writes canonical text, also from stdin") {
  auto r = run_cli("parse --print -", kGood);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out ==
        "HloModule m\n\nENTRY %e (a: f32[4]) -> f32[4] {\n  %a = f32[4]{0} parameter(0)\n"
        "  %b = f32[4]{0} negate(%a)\n  ROOT %c = f32[4]{0} add(%a, %b)\n}\n");
}

TEST_CASE("parse --json gives one object per file, failures included, and exits 1") {
  TempFile good(kGood);
  TempFile bad("HloModule m\nENTRY e {\n  a = f32[4]{0} bogus(a)\n}\n");
  auto r = run_cli("parse --json " + good.path + " " + bad.path);
  CHECK(r.exit_code == 1);
  std::string first = r.out.substr(0, r.out.find('\n'));
  std::string second = r.out.substr(r.out.find('\n') + 1);
  auto ok = nlohmann::json::parse(first);
  CHECK(ok["file"] == good.path);
  CHECK(ok["ok"] == true);
  CHECK(ok["computations"] == 1);
  CHECK(ok["instructions"] == 3);
  CHECK(ok["opcodes"]["parameter"] == 1);
  CHECK(ok["opcodes"]["negate"] == 1);
  CHECK(ok["opcodes"]["add"] == 1);
  auto failed = nlohmann::json::parse(second);
  CHECK(failed["ok"] == false);
  CHECK(failed["error"]["line"] == 3);
  CHECK(failed["error"]["column"] == 17);
  CHECK(failed["error"]["message"] == "unknown opcode 'bogus'");
}

TEST_CASE("parse errors name the file, line and column on stderr") {
  TempFile bad("HloModule m\nENTRY e {\n  a = f32[4]{0} bogus(a)\n}\n");
  auto r = run_cli("parse " + bad.path);
  CHECK(r.exit_code == 1);
  CHECK(r.out.empty());
  CHECK(r.err.rfind(bad.path + ":3:17: error: unknown opcode 'bogus'\n", 0) == 0);
  CHECK(r.err.find("  a = f32[4]{0} bogus(a)\n                ^") != std::string::npos);
}

TEST_CASE("an error at the end of input shows no empty source line") {
  // It printed the empty line after the last newline and a lone '^' under it.
  TempFile cut("HloModule m\nENTRY e {\n  a = f32[4]{0} parameter(0)\n");
  auto r = run_cli("parse " + cut.path);
  CHECK(r.exit_code == 1);
  CHECK(r.err.rfind(cut.path + ":4:1: error: expected '}' to close computation e, got end of "
                               "input\nnote: the file ends inside a computation",
                    0) == 0);
  CHECK(r.err.find("\n^") == std::string::npos);
}

TEST_CASE("parse usage errors exit 2") {
  CHECK(run_cli("parse").exit_code == 2);
  CHECK(run_cli("parse --print --json x").exit_code == 2);
  CHECK(run_cli("parse --bogus x").exit_code == 2);
  CHECK(run_cli("parse /nonexistent/file.hlo").exit_code == 1);
}

TEST_CASE("parse refuses what is not a regular file, with a clear error and exit 1") {
  auto dir = run_cli("parse /");
  CHECK(dir.exit_code == 1);
  // A directory is read as an XLA dump directory; one without optimized modules is refused.
  // The message wraps at 100 columns, its later lines indented.
  CHECK(dir.err ==
        "error: cannot read '/': it is a directory with no *after_optimizations.txt or\n"
        "  *after_optimizations.hlo.pb file; give the directory XLA_FLAGS=--xla_dump_to=DIR wrote, "
        "or one HLO\n  file\n");
  auto missing = run_cli("parse /nonexistent/file.hlo");
  CHECK(missing.err == "error: cannot read '/nonexistent/file.hlo': no such file; check the path\n");
  // A device would be read forever: it is refused before any read.
  auto zero = run_cli("parse /dev/zero");
  CHECK(zero.exit_code == 1);
  CHECK(zero.err.rfind("error: cannot read '/dev/zero': it is a character device;", 0) == 0);
}

}  // namespace
