// Reading a program from its proto against parsing its text: `proto_read_bench FILE.pb...`
// (HloModuleProto or HloProto files; bench/jax_mlp_protos.py writes JAX MLPs of several sizes).
//
// For each FILE: the text is print(parse_hlo_proto(FILE)), the same program as text. Prints the
// median thread CPU milliseconds over several runs of
//   - protobuf: is_hlo_proto(bytes), protobuf's parse of the bytes on an arena and little else,
//     the floor of any reader that starts from protobuf's messages;
//   - proto: parse_hlo_proto(bytes), the module from the bytes (what `hloroof parse FILE.pb`
//     does to read it: the parse that tells the file's kind is the one the module is read from);
//   - text: parse_module(text), the module from its text;
// and proto / text. Each call includes freeing what it built.
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "hloroof/hlo_proto.h"
#include "hloroof/hlo_text.h"
#include "hloroof/module.h"

namespace {

std::string read_file(const char* path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// CPU time of this thread: on a shared machine, wall time also counts other programs' turns.
double thread_ms() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) * 1e-6;
}

// The median milliseconds of `call` over enough runs to fill about a second (3 to 51 runs).
double median_ms(const std::function<bool()>& call, bool* ok) {
  std::vector<double> ms;
  double total = 0;
  while (ms.size() < 3 || (total < 1000 && ms.size() < 51)) {
    const double start = thread_ms();
    *ok = call() && *ok;
    ms.push_back(thread_ms() - start);
    total += ms.back();
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: proto_read_bench FILE.pb...\n");
    return 2;
  }
  std::printf("%-28s %8s %8s %11s %8s %8s %7s\n", "file", "proto MB", "text MB",
              "protobuf ms", "proto ms", "text ms", "x text");
  for (int k = 1; k < argc; ++k) {
    const std::string bytes = read_file(argv[k]);
    absl::StatusOr<hloroof::Module> module = hloroof::parse_hlo_proto(bytes);
    if (!module.ok()) {
      std::fprintf(stderr, "%s: %s\n", argv[k], std::string(module.status().message()).c_str());
      return 1;
    }
    const std::string text = hloroof::print(*module);
    bool ok = true;
    const double floor_ms = median_ms([&] { return hloroof::is_hlo_proto(bytes); }, &ok);
    const double proto_ms =
        median_ms([&] { return hloroof::parse_hlo_proto(bytes).ok(); }, &ok);
    const double text_ms = median_ms([&] { return hloroof::parse_module(text).ok(); }, &ok);
    if (!ok) {
      std::fprintf(stderr, "%s: a read failed\n", argv[k]);
      return 1;
    }
    std::string name = argv[k];
    name = name.substr(name.find_last_of('/') + 1);
    if (name.size() > 28) name = name.substr(name.size() - 28);
    std::printf("%-28s %8.2f %8.2f %11.2f %8.2f %8.2f %7.2f\n", name.c_str(),
                static_cast<double>(bytes.size()) / 1e6, static_cast<double>(text.size()) / 1e6,
                floor_ms, proto_ms, text_ms, proto_ms / text_ms);
  }
  return 0;
}
