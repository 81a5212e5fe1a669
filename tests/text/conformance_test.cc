// Conformance over the shared corpus of real HLO text (../shared/corpus, or $HLOROOF_CORPUS):
// every module marked valid parses and round-trips (print is idempotent and the reparsed graph
// is structurally equal); every parser negative test is rejected with an error. Exceptions are
// listed, with a reason, in known_failures.txt.
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "hloroof/edit.h"
#include "hloroof/hlo_text.h"
#include "corpus.h"

namespace hloroof {
namespace {

namespace fs = std::filesystem;

struct Entry {
  std::string file;
  bool likely_invalid = false;
  bool expects_parse_failure = false;
};

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// INDEX.tsv columns: file, source_repo, source_path, source_commit, likely_invalid, has_checks,
// bytes, kind, line, has_header, context, notes.
std::vector<Entry> read_index(const fs::path& index) {
  std::vector<Entry> entries;
  std::istringstream lines(read_file(index));
  std::string line;
  std::getline(lines, line);  // header
  while (std::getline(lines, line)) {
    std::vector<std::string> cols = absl::StrSplit(line, '\t');
    if (cols.size() < 12) continue;
    Entry e;
    e.file = cols[0];
    e.likely_invalid = cols[4] == "1";
    e.expects_parse_failure = cols[11].find("expects_parse_failure") != std::string::npos;
    entries.push_back(e);
  }
  return entries;
}

std::map<std::string, std::string> read_known_failures(
    const char* list = "known_failures.txt") {
  std::map<std::string, std::string> known;
  std::istringstream lines(read_file(fs::path(HLOROOF_SOURCE_DIR) / "tests" / "text" / list));
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#') continue;
    size_t tab = line.find('\t');
    known[line.substr(0, tab)] = tab == std::string::npos ? "" : line.substr(tab + 1);
  }
  return known;
}

// Empty when the module parses and round-trips; otherwise what went wrong.
std::string check_valid(const std::string& text) {
  absl::StatusOr<Module> module = parse_module(text);
  if (!module.ok()) return std::string(module.status().message());
  std::string printed = print(*module);
  absl::StatusOr<Module> again = parse_module(printed);
  if (!again.ok()) {
    return "the printed text does not parse: " + std::string(again.status().message());
  }
  if (print(*again) != printed) return "printing is not idempotent";
  std::string difference;
  if (!structurally_equal(*module, *again, &difference)) {
    return "the reparsed module differs: " + difference;
  }
  return "";
}

TEST_CASE("the corpus parses, round-trips, and its negative tests are rejected") {
  const fs::path dir = testing::corpus_or_skip("INDEX.tsv");
  const std::vector<Entry> entries = read_index(dir / "INDEX.tsv");
  std::map<std::string, std::string> known = read_known_failures();
  REQUIRE(!entries.empty());

  int valid = 0, valid_ok = 0, negative = 0, negative_rejected = 0, known_hit = 0;
  int64_t bytes = 0;
  std::vector<std::string> failures;
  auto start = std::chrono::steady_clock::now();
  for (const Entry& e : entries) {
    if (e.likely_invalid && !e.expects_parse_failure) {
      // Templates and fragments: they may fail, but must not crash; those that parse must
      // still print back to text that parses to the same module.
      std::string text = read_file(dir / e.file);
      if (parse_module(text).ok()) {
        if (std::string problem = check_valid(text); !problem.empty()) {
          failures.push_back(e.file + " (parses, though marked likely invalid): " +
                             problem.substr(0, problem.find('\n')));
        }
      }
      continue;
    }
    std::string text = read_file(dir / e.file);
    bytes += static_cast<int64_t>(text.size());
    std::string problem;
    if (e.expects_parse_failure) {
      ++negative;
      if (parse_module(text).ok()) {
        problem = "parsed, but it is a parser negative test";
      } else {
        ++negative_rejected;
      }
    } else {
      ++valid;
      problem = check_valid(text);
      if (problem.empty()) ++valid_ok;
    }
    auto listed = known.find(e.file);
    if (listed != known.end()) {
      if (problem.empty()) {
        failures.push_back(e.file + ": listed in known_failures.txt but now passes");
      } else {
        ++known_hit;
      }
      known.erase(listed);
    } else if (!problem.empty()) {
      failures.push_back(e.file + ": " + problem.substr(0, problem.find('\n')));
    }
  }
  for (const auto& [file, reason] : known) {
    failures.push_back(file + ": listed in known_failures.txt but not in the corpus");
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "conformance: " << valid_ok << "/" << valid
            << " valid modules parse and round-trip; " << negative_rejected << "/" << negative
            << " parser negative tests rejected; " << known_hit << " known failures; "
            << bytes / 1000000.0 << " MB in " << seconds << " s\n";
  for (const std::string& f : failures) UNSCOPED_INFO(f);
  CHECK(failures.empty());
}

// verify() runs the parser's checks, and checks each shape against shape inference: a module
// the parser accepts must pass it, or the two disagree on a rule (or inference is wrong), except
// the modules of known_verify_failures.txt, which XLA's verifier rejects too.
TEST_CASE("every corpus module that parses passes verify") {
  const fs::path dir = testing::corpus_or_skip("INDEX.tsv");
  std::map<std::string, std::string> known = read_known_failures("known_verify_failures.txt");
  int verified = 0;
  std::vector<std::string> failures;
  for (const Entry& e : read_index(dir / "INDEX.tsv")) {
    if (e.expects_parse_failure) continue;
    absl::StatusOr<Module> module = parse_module(read_file(dir / e.file));
    if (!module.ok()) continue;
    absl::Status status = verify(*module);
    const bool listed = known.erase(e.file) > 0;
    if (status.ok()) {
      ++verified;
      if (listed) failures.push_back(e.file + ": listed as failing verify, but passes");
    } else if (!listed) {
      failures.push_back(e.file + ": " + std::string(status.message()));
    }
  }
  for (const auto& [file, reason] : known) {
    failures.push_back(file + ": listed in known_verify_failures.txt but does not parse");
  }
  std::cout << "verify: " << verified << " parsed modules pass\n";
  for (const std::string& f : failures) UNSCOPED_INFO(f);
  CHECK(failures.empty());
}

}  // namespace
}  // namespace hloroof
