// Runs the `hloroof` binary built by this tree (HLOROOF_CLI) through the shell and captures
// its stdout, stderr and exit code. Test-only.
#ifndef HLOROOF_TESTS_CLI_CLI_RUNNER_H_
#define HLOROOF_TESTS_CLI_CLI_RUNNER_H_

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace hloroof::testing {

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// `args` is appended to the binary's path as shell words (quote as in a shell).
inline CliResult run_cli(const std::string& args, const std::string& stdin_text = "") {
  char err_path[] = "/tmp/hloroof_cli_err_XXXXXX";
  int fd = mkstemp(err_path);
  if (fd >= 0) close(fd);
  std::string in_redirect;
  char in_path[] = "/tmp/hloroof_cli_in_XXXXXX";
  if (!stdin_text.empty()) {
    int in_fd = mkstemp(in_path);
    if (in_fd >= 0) close(in_fd);
    std::ofstream(in_path, std::ios::binary) << stdin_text;
    in_redirect = std::string(" <") + in_path;
  }
  std::string command =
      std::string(HLOROOF_CLI) + " " + args + in_redirect + " 2>" + err_path;
  CliResult r;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) r.out.append(buf, n);
    int status = pclose(pipe);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  std::ifstream err_file(err_path);
  std::stringstream ss;
  ss << err_file.rdbuf();
  r.err = ss.str();
  std::remove(err_path);
  if (!stdin_text.empty()) std::remove(in_path);
  return r;
}

// The records of a command's CSV output, each a list of cells: a comma or a line break inside
// quotes does not end one, and a doubled quote inside quotes is one quote. `well_formed`:
// every quote closed and the last record ended by a line break.
struct Csv {
  std::vector<std::vector<std::string>> records;
  bool well_formed = false;
};

inline Csv parse_csv(const std::string& text) {
  Csv csv;
  std::vector<std::string> record(1);
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (quoted && ch == '"' && i + 1 < text.size() && text[i + 1] == '"') {
      record.back() += '"';
      ++i;
    } else if (ch == '"') {
      quoted = !quoted;
    } else if (!quoted && ch == ',') {
      record.emplace_back();
    } else if (!quoted && ch == '\n') {
      csv.records.push_back(std::move(record));
      record.assign(1, "");
    } else {
      record.back() += ch;
    }
  }
  csv.well_formed = !quoted && (text.empty() || text.back() == '\n');
  return csv;
}

}  // namespace hloroof::testing

#endif  // HLOROOF_TESTS_CLI_CLI_RUNNER_H_
