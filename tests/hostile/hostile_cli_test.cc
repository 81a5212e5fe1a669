// Hostile uses of the command's outputs and inputs, run through the binary: outputs that name no
// path, standard output that cannot be written, named pipes at output paths, profiles that
// hloroof wrote itself. Each run must end with exit 0, or 1 and an `error:` line.
#include <fcntl.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "../cli/cli_runner.h"
#include "../profile/profile_test_util.h"
#include "examples.h"
#include "nlohmann/json.hpp"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace hloroof {
namespace {

namespace fs = std::filesystem;
using testing::run_cli;
using testing::TempDir;
using testing::write_file;

// Runs a shell command line: its standard output, its standard error and its exit code (-1
// for a signal).
testing::CliResult shell(const std::string& command) {
  TempDir scratch;
  const std::string err = (scratch.path() / "err").string();
  testing::CliResult r;
  if (FILE* pipe = popen(absl::StrCat("(", command, ") 2>", err).c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) r.out.append(buf, n);
    const int status = pclose(pipe);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  r.err = testing::read_file(err);
  return r;
}

// Messages as one line each: the command wraps them at 100 columns, going on indented on the
// next line. A line break and the spaces after it read as one space.
std::string flat(const std::string& text) {
  std::string out;
  for (size_t k = 0; k < text.size(); ++k) {
    if (text[k] != '\n') {
      out += text[k];
      continue;
    }
    while (k + 1 < text.size() && text[k + 1] == ' ') ++k;
    out += ' ';
  }
  return out;
}

// A module and a profile of it in a log folder (LOG/plugins/profile/r1/host0.xplane.pb).
struct Files {
  TempDir dir;
  std::string hlo, profile;
  Files() {
    hlo = (dir.path() / "module.hlo").string();
    profile = (dir.path() / "log" / "plugins" / "profile" / "r1" / "host0.xplane.pb").string();
    write_file(hlo, std::string(testing::kStepModule));
    write_file(profile, testing::step_xspace());
  }
  // Runs `hloroof ARGS` in the scratch folder, so that a file written into the working folder
  // is seen there.
  testing::CliResult run(const std::string& args) const {
    return sh(absl::StrCat(HLOROOF_CLI, " ", args));
  }
  // A shell command line run in the scratch folder.
  testing::CliResult sh(const std::string& command) const {
    return shell(absl::StrCat("cd '", dir.path().string(), "' && ", command));
  }
  // What the scratch folder holds besides the module and the log folder.
  size_t strays() const {
    size_t n = 0;
    for (const fs::directory_entry& e : fs::directory_iterator(dir.path())) {
      n += e.path().filename() != "module.hlo" && e.path().filename() != "log";
    }
    return n;
  }
};

TEST_CASE("an empty output path is refused by every command that writes one") {
  Files f;
  const testing::CliResult predict = f.run(absl::StrCat("predict ", f.hlo, " --device h100 "
                                                        "--xspace ''"));
  INFO(predict.err);
  CHECK(predict.exit_code == 1);  // was SIGABRT (134): an unchecked StatusOr
  CHECK(absl::StrContains(flat(predict.err), "error: cannot write the XSpace: the log folder's path "
                                       "is empty"));
  const testing::CliResult profile =
      f.run(absl::StrCat("profile ", f.hlo, " ", f.profile, " --device h100 --xspace ''"));
  INFO(profile.err);
  CHECK(profile.exit_code == 1);  // was exit 0, the runs written into the working folder
  CHECK(absl::StrContains(flat(profile.err), "the log folder's path is empty"));
  const testing::CliResult calibrate =
      f.run(absl::StrCat("calibrate ", f.profile, " --hlo ", f.hlo, " --device h100 -o ''"));
  INFO(calibrate.err);
  CHECK(calibrate.exit_code == 1);  // was exit 0, nothing written
  CHECK(absl::StrContains(flat(calibrate.err), "cannot write the device to '': the path is empty"));
  CHECK(f.strays() == 0);
  CHECK(!fs::exists(f.dir.path() / "plugins"));
}

// Every command whose report goes to standard output, run with it on /dev/full (every write:
// ENOSPC) and closed (EBADF): exit 1 and the reason, never exit 0 with the report lost.
TEST_CASE("a report that cannot be written to standard output fails the run") {
  Files f;
  const std::string commands[] = {
      absl::StrCat("predict ", f.hlo, " --device h100 --json"),
      absl::StrCat("predict ", f.hlo, " --device h100"),
      absl::StrCat("cost ", f.hlo, " --csv"),
      absl::StrCat("memory ", f.hlo),
      absl::StrCat("parse ", f.hlo, " --print"),
      absl::StrCat("profile ", f.hlo, " ", f.profile, " --device h100"),
      "devices",
      "--version",
  };
  for (const std::string& command : commands) {
    INFO(command);
    const testing::CliResult full = f.run(command + " > /dev/full");
    INFO(full.err);
    CHECK(full.exit_code == 1);
    CHECK(absl::StrContains(flat(full.err), "error: cannot write standard output: No space left"));
    const testing::CliResult closed = f.run(command + " >&-");
    INFO(closed.err);
    CHECK(closed.exit_code == 1);
    CHECK(absl::StrContains(flat(closed.err), "error: cannot write standard output: Bad file "
                                        "descriptor (standard output is closed)"));
    CHECK(f.run(command + " > /dev/null").exit_code == 0);
  }
  // With standard output closed, a file the command opens does not take its number: the trace
  // holds the trace alone, not the report.
  const std::string trace = (f.dir.path() / "t.json").string();
  const testing::CliResult traced =
      f.run(absl::StrCat("predict ", f.hlo, " --device h100 --trace ", trace, " >&-"));
  CHECK(traced.exit_code == 1);
  CHECK(testing::read_file(trace).find("step time") == std::string::npos);
}

// A named pipe at an output path blocked the run forever (no program reads it). Inside a log
// folder only a regular file is written; elsewhere the pipe is opened without blocking.
TEST_CASE("a named pipe at an output path is refused, not waited on") {
  Files f;
  const fs::path run = f.dir.path() / "out" / "plugins" / "profile" / "predicted_h100";
  fs::create_directories(run);
  REQUIRE(::mkfifo((run / "hloroof-predicted.xplane.pb").c_str(), 0600) == 0);
  const testing::CliResult xspace = f.sh(absl::StrCat(
      "timeout 30 ", HLOROOF_CLI, " predict ", f.hlo, " --device h100 --xspace out"));
  INFO(xspace.err);
  CHECK(xspace.exit_code == 1);  // 124: timed out, blocked on the pipe
  CHECK(absl::StrContains(flat(xspace.err), "hloroof-predicted.xplane.pb': it is a named pipe, which "
                                      "no profiler writes into a log folder"));
  // profile --xspace copies the measured run into the log folder: a pipe there is refused too.
  const fs::path measured = f.dir.path() / "out" / "plugins" / "profile" / "measured_r1";
  fs::create_directories(measured);
  REQUIRE(::mkfifo((measured / "host0.xplane.pb").c_str(), 0600) == 0);
  const testing::CliResult profile = f.sh(absl::StrCat(
      "timeout 30 ", HLOROOF_CLI, " profile ", f.hlo, " ", f.profile, " --device h100 "
      "--xspace out"));
  INFO(profile.err);
  CHECK(profile.exit_code == 1);
  CHECK(absl::StrContains(flat(profile.err), "cannot write the measured XSpace to"));

  const fs::path pipe = f.dir.path() / "t.json";
  REQUIRE(::mkfifo(pipe.c_str(), 0600) == 0);
  const testing::CliResult trace = f.sh(absl::StrCat(
      "timeout 30 ", HLOROOF_CLI, " predict ", f.hlo, " --device h100 --trace t.json"));
  INFO(trace.err);
  CHECK(trace.exit_code == 1);
  CHECK(absl::StrContains(flat(trace.err), "cannot write the trace to 't.json': it is a named pipe "
                                     "that no program reads"));
  // With a reader, the pipe is written as a file: the reader gets the whole trace.
  const testing::CliResult read = f.sh(absl::StrCat(
      "(cat t.json > t.copy &) && sleep 0.3 && timeout 30 ", HLOROOF_CLI, " predict ", f.hlo,
      " --device h100 --trace t.json >/dev/null && sleep 0.2 && tail -c 3 t.copy"));
  INFO(read.err);
  CHECK(read.exit_code == 0);
  CHECK(absl::StrContains(read.out, "}"));
}

// A log folder holding a measured run and, beside it, the run `predict --xspace` wrote: the
// measured one was passed over for the prediction (28.9 us "measured" against 3 us) whenever
// its name sorted first, as runs named by their date do.
TEST_CASE("profile and calibrate never take hloroof's own prediction for a measurement") {
  Files f;
  const fs::path log = f.dir.path() / "dated";
  write_file(log / "plugins/profile/2026_01_01_00_00_00/host0.xplane.pb", testing::step_xspace());
  const testing::CliResult predicted =
      f.run(absl::StrCat("predict ", f.hlo, " --device h100 --xspace dated"));
  INFO(predicted.err);
  REQUIRE(predicted.exit_code == 0);
  const fs::path own = log / "plugins/profile/predicted_h100/hloroof-predicted.xplane.pb";
  REQUIRE(fs::is_regular_file(own));
  const testing::CliResult profile =
      f.run(absl::StrCat("profile ", f.hlo, " dated --device h100 --json"));
  INFO(profile.out << profile.err);
  REQUIRE(profile.exit_code == 0);
  // The measured steps of step_xspace(): 50, 60 and 55 us, the median 55 us.
  const nlohmann::json joined = nlohmann::json::parse(profile.out);
  CHECK(joined["step"]["measured_s"].get<double>() == Approx(55e-6));
  CHECK(joined["profile"] == "dated/plugins/profile/2026_01_01_00_00_00/host0.xplane.pb");
  // The prediction given as the measured profile: refused, by both commands.
  const testing::CliResult direct =
      f.run(absl::StrCat("profile ", f.hlo, " ", own.string(), " --device h100"));
  CHECK(direct.exit_code == 1);
  CHECK(absl::StrContains(flat(direct.err), "this XSpace was predicted by hloroof, not measured"));
  const testing::CliResult fitted =
      f.run(absl::StrCat("calibrate ", own.string(), " --hlo ", f.hlo, " --device h100"));
  CHECK(fitted.exit_code == 1);
  CHECK(absl::StrContains(flat(fitted.err), "this XSpace was predicted by hloroof, not measured"));
  // A log folder holding only the prediction: refused as well, not fitted with "0.0% error".
  const testing::CliResult alone = f.run(absl::StrCat("predict ", f.hlo, " --device h100 "
                                                      "--xspace only"));
  REQUIRE(alone.exit_code == 0);
  const testing::CliResult only =
      f.run(absl::StrCat("calibrate only --hlo ", f.hlo, " --device h100"));
  INFO(only.out << only.err);
  CHECK(only.exit_code == 1);
  CHECK(absl::StrContains(flat(only.err), "predicted by hloroof, not measured"));
}

// A GPU XSpace of three programs named jit_step: program 1 ran 3 times (50 us each), program 2
// 4 times (30 us), program 3 once (40 us); each execution one dot.1 kernel of 20 us, its
// hlo_module "jit_step" (GPU kernels carry the name only).
std::string three_programs_xspace() {
  xplane::XSpace space;
  space.add_hostnames("host0");
  testing::PlaneWriter gpu(space.add_planes(), "/device:GPU:0");
  xplane::XLine* modules = gpu.line("XLA Modules", 1000);
  xplane::XLine* stream = gpu.line("Stream #7(compute)", 1000);
  struct Run {
    const char* name;
    double start, length;
  };
  const Run runs[] = {{"jit_step(1)", 0, 50},   {"jit_step(1)", 100, 50}, {"jit_step(1)", 200, 50},
                      {"jit_step(2)", 300, 30}, {"jit_step(2)", 400, 30}, {"jit_step(2)", 500, 30},
                      {"jit_step(2)", 600, 30}, {"jit_step(3)", 700, 40}};
  for (const Run& r : runs) {
    gpu.event(modules, r.name, r.start, r.length);
    gpu.event(stream, "sm90_gemm_bf16", r.start + 1, 20, "dot.1", "jit_step");
  }
  std::string bytes;
  REQUIRE(space.SerializeToString(&bytes));
  return bytes;
}

TEST_CASE("several programs of one name: one is measured, said, and --module picks another") {
  Files f;
  const std::string xspace = (f.dir.path() / "three.xplane.pb").string();
  write_file(xspace, three_programs_xspace());
  const std::string head = absl::StrCat("profile ", f.hlo, " ", xspace, " --device h100");
  const testing::CliResult picked = f.run(head);
  INFO(picked.out << picked.err);
  REQUIRE(picked.exit_code == 0);
  // Program 2 ran most: its 4 executions of 30 us, not a median over all 8.
  CHECK(absl::StrContains(picked.out, "measured step 30 us (median of 4)"));
  CHECK(absl::StrContains(flat(picked.out + picked.err), "3 programs named 'jit_step' ran"));
  CHECK(absl::StrContains(flat(picked.out + picked.err), "jit_step(2) measured (4 executions"));
  CHECK(absl::StrContains(flat(picked.out + picked.err), "4 executions of jit_step(1), jit_step(3)"));
  // The documented forms of --module, each taken.
  const testing::CliResult first = f.run(head + " --module 'jit_step(1)'");
  INFO(first.err);
  REQUIRE(first.exit_code == 0);
  CHECK(absl::StrContains(first.out, "measured step 50 us (median of 3)"));
  const testing::CliResult third = f.run(head + " --module 3");
  INFO(third.err);
  REQUIRE(third.exit_code == 0);
  CHECK(absl::StrContains(third.out, "measured step 40 us (median of 1)"));
  const testing::CliResult none = f.run(head + " --module 9");
  CHECK(none.exit_code == 1);
  CHECK(absl::StrContains(flat(none.err), "module 'jit_step' (program 9) never runs"));
}

TEST_CASE("parse's ok line escapes the file's name") {
  Files f;
  // ESC [2J clears the screen, ESC ] 0 ; ... BEL sets the window's title.
  write_file(f.dir.path() / "x\x1b[2J\x1b]0;pwned\a.hlo", std::string(testing::kStepModule));
  const testing::CliResult r = f.run("parse x*.hlo");
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find('\x1b') == std::string::npos);
  CHECK(r.out.find('\a') == std::string::npos);
  CHECK(absl::StrContains(r.out, "x\\x1b[2J\\x1b]0;pwned\\x07.hlo: ok, module jit_step"));
}

TEST_CASE("model FLOPs past a double are refused; past the step's peak, warned of") {
  Files f;
  const testing::CliResult product =
      f.run(absl::StrCat("predict ", f.hlo, " --device h100 --params 1e300 --tokens 1e300"));
  CHECK(product.exit_code == 2);  // a usage error, not "model FLOPs inf"
  CHECK(absl::StrContains(flat(product.err), "the model FLOPs 6 x N x D pass what a double holds"));
  // 1e20 FLOPs in a step of microseconds on one H100 (about 1e15 FLOP/s): far past its peak,
  // which the warning says.
  const testing::CliResult over =
      f.run(absl::StrCat("predict ", f.hlo, " --device h100 --model-flops 1e20 --json"));
  INFO(over.err);
  REQUIRE(over.exit_code == 0);
  CHECK(absl::StrContains(over.out, "model FLOPs 1e+20 exceed the "));
  CHECK(absl::StrContains(over.out, "FLOPs 1 device at peak run in the predicted step: MFU "));
  // A figure within the peak: no such warning.
  const testing::CliResult fair =
      f.run(absl::StrCat("predict ", f.hlo, " --device h100 --model-flops 1e6 --json"));
  REQUIRE(fair.exit_code == 0);
  CHECK(!absl::StrContains(fair.out, "exceed what"));
}

TEST_CASE("messages say what the input is") {
  Files f;
  // A UTF-8 byte-order mark is no text: read past.
  write_file(f.dir.path() / "bom.hlo",
             "\xEF\xBB\xBF" + std::string(testing::kStepModule));
  const testing::CliResult bom = f.run("parse bom.hlo");
  CHECK(bom.exit_code == 0);
  CHECK(absl::StrContains(bom.out, "bom.hlo: ok, module jit_step"));
  // UTF-16, said as such (not as a binary file).
  write_file(f.dir.path() / "u16.hlo", std::string("\xFF\xFEH\0l\0o\0M\0", 10));
  const testing::CliResult utf16 = f.run("parse u16.hlo");
  CHECK(utf16.exit_code == 1);
  CHECK(absl::StrContains(flat(utf16.err), "'u16.hlo' is UTF-16 text; hloroof reads UTF-8"));
  // A count past what a topology holds: the limit named.
  const testing::CliResult count = f.run("predict module.hlo --device h100:99999999999x1");
  CHECK(count.exit_code == 1);
  CHECK(absl::StrContains(flat(count.err), "'99999999999' is more than the 1048576 devices"));
  // A header and nothing else: said so, not as a file cut inside a computation.
  write_file(f.dir.path() / "header.hlo", "HloModule\n");
  const testing::CliResult header = f.run("parse header.hlo");
  CHECK(header.exit_code == 1);
  CHECK(absl::StrContains(flat(header.err), "holds a module header and no computation"));
  CHECK(!absl::StrContains(flat(header.err), "inside a computation"));
  // StableHLO whose comment says ENTRY: told from HLO text.
  write_file(f.dir.path() / "f.mlir",
             "module @jit_f {\n  /* ENTRY */\n  func.func public @main() {\n  }\n}\n");
  const testing::CliResult mlir = f.run("parse f.mlir");
  CHECK(mlir.exit_code == 1);
  CHECK(absl::StrContains(flat(mlir.err), "is StableHLO/MLIR text"));
  // Standard input named twice: said so, not "standard input is empty".
  const testing::CliResult twice = f.run("diff - - < module.hlo");
  CHECK(twice.exit_code == 2);
  CHECK(absl::StrContains(flat(twice.err), "standard input ('-') can be read once"));
  // HLOROOF_THREADS that is no thread count: warned of, not ignored.
  for (const char* bad : {"0", "abc", "99999"}) {
    const testing::CliResult threads =
        f.sh(absl::StrCat("HLOROOF_THREADS=", bad, " ", HLOROOF_CLI,
                           " predict module.hlo --device h100 >/dev/null"));
    CHECK(threads.exit_code == 0);
    CHECK(absl::StrContains(flat(threads.err), absl::StrCat("warning: HLOROOF_THREADS='", bad,
                                                      "' is not a whole number from 1 to "
                                                      "1024")));
  }
}

}  // namespace
}  // namespace hloroof
