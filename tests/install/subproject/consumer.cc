// Parses a module with the text layer alone and prints its instruction count.
#include <iostream>

#include "hloroof/hlo_text.h"

int main() {
  absl::StatusOr<hloroof::Module> m = hloroof::parse_module(std::string_view(R"(HloModule m
ENTRY e {
  p = f32[8] parameter(0)
  ROOT n = f32[8] negate(p)
})"));
  if (!m.ok()) {
    std::cerr << m.status() << "\n";
    return 1;
  }
  size_t count = 0;
  for (const hloroof::Computation* c : m->computations()) count += c->instruction_count();
  std::cout << "parsed " << count << " instructions\n";
  return count == 2 ? 0 : 1;
}
