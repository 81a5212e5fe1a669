// A program that reads modules and nothing else: it links hloroof::load alone, which brings the
// proto, text, ir and util layers and no other (tests/layers/tests.cmake). It prints the entry
// computation's name and the notes loading said, one a line.
#include <iostream>

#include "hloroof/load.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: load_alone FILE_OR_DUMP_DIRECTORY\n";
    return 2;
  }
  absl::StatusOr<hloroof::LoadedModule> loaded = hloroof::load_module(argv[1]);
  if (!loaded.ok()) {
    std::cerr << loaded.status().message() << "\n";
    return 1;
  }
  std::cout << "entry " << loaded->module.entry()->name() << "\n";
  for (const std::string& note : loaded->diagnostics.notes) std::cout << note << "\n";
  return 0;
}
