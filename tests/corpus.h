// Where the corpus tests find the shared corpus of real HLO text, and how they tell CTest it is
// absent: the test program ends with kCorpusSkipCode, which hloroof_add_corpus_test registers as
// the test's SKIP_RETURN_CODE, so CTest reports the test SKIPPED rather than passed. Test-only.
#ifndef HLOROOF_TESTS_CORPUS_H_
#define HLOROOF_TESTS_CORPUS_H_

#include <cstdlib>
#include <filesystem>
#include <iostream>

namespace hloroof::testing {

inline constexpr int kCorpusSkipCode = 77;

// $HLOROOF_CORPUS, else the default the build configured (../shared/corpus).
inline std::filesystem::path corpus_dir() {
  if (const char* env = std::getenv("HLOROOF_CORPUS"); env != nullptr && *env != '\0') {
    return env;
  }
  return HLOROOF_DEFAULT_CORPUS;
}

// The corpus directory; ends the program with kCorpusSkipCode when `required` (a file or folder
// under it) does not exist. Call it first in a corpus test, in a program of corpus tests only.
inline std::filesystem::path corpus_or_skip(const std::filesystem::path& required = "INDEX.tsv") {
  const std::filesystem::path dir = corpus_dir();
  if (!std::filesystem::exists(dir / required)) {
    std::cerr << "SKIPPED: no corpus at " << dir.string();
    if (required != ".") std::cerr << " (" << required.string() << " missing)";
    std::cerr << "; set HLOROOF_CORPUS\n";
    std::exit(kCorpusSkipCode);
  }
  return dir;
}

}  // namespace hloroof::testing

#endif  // HLOROOF_TESTS_CORPUS_H_
