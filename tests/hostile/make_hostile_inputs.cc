// Writes the large hostile inputs of the hostile-input corpus (tests/hostile/README.md): texts
// too big, or too regular, to keep in the repository. Each is what a bug report showed hurting
// a command (a crash, a hang, unbounded memory) before the command learned to refuse or handle
// it.
//   make_hostile_inputs SOURCE_DIR OUT_DIR
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>

namespace {

bool write(const std::string& dir, const std::string& name, const std::string& text) {
  std::ofstream out(dir + "/" + name, std::ios::binary);
  out << text;
  return static_cast<bool>(out);
}

std::string repeat(std::string_view s, int n) {
  std::string out;
  out.reserve(s.size() * static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

// A chain of `levels` fusions, each calling the next.
std::string fusion_chain(int levels) {
  std::ostringstream t;
  t << "HloModule fusion_chain\n\n"
       "%f0 (p: f32[8]) -> f32[8] {\n  %p = f32[8] parameter(0)\n"
       "  ROOT %n = f32[8] negate(%p)\n}\n\n";
  for (int i = 1; i <= levels; ++i) {
    t << "%f" << i << " (p: f32[8]) -> f32[8] {\n  %p = f32[8] parameter(0)\n"
      << "  ROOT %f = f32[8] fusion(%p), kind=kLoop, calls=%f" << i - 1 << "\n}\n\n";
  }
  t << "ENTRY %e (a: f32[8]) -> f32[8] {\n  %a = f32[8] parameter(0)\n"
    << "  ROOT %f = f32[8] fusion(%a), kind=kLoop, calls=%f" << levels << "\n}\n";
  return t.str();
}

// `levels` computations, each running the next twice: through two calls, or through both
// branches of a conditional. Walking every path visits 2^levels leaves.
std::string fan_out(int levels, bool conditional) {
  std::ostringstream t;
  t << "HloModule fan_out\n\n"
       "%sum (x: f32[], y: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n"
       "  %y = f32[] parameter(1)\n  ROOT %s = f32[] add(%x, %y)\n}\n\n"
       "%c0 (p: f32[1024]) -> f32[1024] {\n  %p = f32[1024] parameter(0)\n"
       "  %e = f32[1024] exponential(%p)\n"
       "  ROOT %a = f32[1024] all-reduce(%e), replica_groups={}, to_apply=%sum\n}\n\n";
  for (int i = 1; i <= levels; ++i) {
    t << "%c" << i << " (p: f32[1024]) -> f32[1024] {\n  %p = f32[1024] parameter(0)\n";
    if (conditional) {
      t << "  %k = pred[] constant(true)\n"
        << "  %x = f32[1024] conditional(%k, %p, %p), true_computation=%c" << i - 1
        << ", false_computation=%c" << i - 1 << "\n"
        << "  %y = f32[1024] conditional(%k, %x, %x), true_computation=%c" << i - 1
        << ", false_computation=%c" << i - 1 << "\n";
    } else {
      t << "  %x = f32[1024] call(%p), to_apply=%c" << i - 1 << "\n"
        << "  %y = f32[1024] call(%x), to_apply=%c" << i - 1 << "\n";
    }
    t << "  ROOT %r = f32[1024] add(%x, %y)\n}\n\n";
  }
  t << "ENTRY %e (a: f32[1024]) -> f32[1024] {\n  %a = f32[1024] parameter(0)\n"
    << "  ROOT %r = f32[1024] call(%a), to_apply=%c" << levels << "\n}\n";
  return t.str();
}

std::string module_with_root(const std::string& root_line) {
  return "HloModule hostile\n\nENTRY %e (a: f32[8]) -> f32[8] {\n  %a = f32[8] parameter(0)\n  " +
         root_line + "\n}\n";
}

// The device spec `source` with the first occurrence of `from` replaced by `to`.
std::string replaced(const std::string& source, const std::string& from, const std::string& to) {
  std::string out = source;
  const size_t at = out.find(from);
  if (at == std::string::npos) {
    std::cerr << "make_hostile_inputs: '" << from << "' not in the device spec\n";
    std::exit(2);
  }
  out.replace(at, from.size(), to);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: make_hostile_inputs SOURCE_DIR OUT_DIR\n";
    return 2;
  }
  const std::string source_dir = argv[1], out = argv[2];
  std::error_code made;
  std::filesystem::create_directories(out, made);
  std::ifstream spec_file(source_dir + "/data/hardware/tpu_v5e.json", std::ios::binary);
  std::ostringstream spec_text;
  spec_text << spec_file.rdbuf();
  const std::string spec = spec_text.str();
  if (spec.empty()) {
    std::cerr << "make_hostile_inputs: cannot read data/hardware/tpu_v5e.json\n";
    return 2;
  }
  const std::string bf16 = "\"value\": 1.97e14";
  const std::string hbm_bw = "\"value\": 8.19e11";
  const std::string first_key = "\"schema_version\": 1,";
  bool ok = true;
  // Call nesting: 20k levels (was 3.3 s in cost), and a chain just inside the bound.
  ok &= write(out, "fusion_chain_20000.hlo", fusion_chain(20000));
  ok &= write(out, "fusion_chain_120.hlo", fusion_chain(120));
  // Fan-out: 2^30 paths through 31 computations.
  ok &= write(out, "call_fan_out_30.hlo", fan_out(30, false));
  ok &= write(out, "conditional_fan_out_30.hlo", fan_out(30, true));
  // Nesting in the text.
  const int kDeep = 100000;
  ok &= write(out, "tuple_deep.hlo",
              module_with_root("ROOT %t = " + repeat("(", kDeep) + "f32[8]" + repeat(")", kDeep) +
                               " parameter(1)"));
  ok &= write(out, "physical_shape_deep.hlo",
              module_with_root("ROOT %t = f32[8]{0:" + repeat("P(f32[8]{0:", kDeep) + "T(8)" +
                               repeat("})", kDeep) + "} negate(%a)"));
  ok &= write(out, "brackets_deep.hlo",
              module_with_root("ROOT %t = f32[8] negate(%a), backend_config=" + repeat("{", kDeep) +
                               repeat("}", kDeep)));
  ok &= write(out, "json_deep.hlo",
              module_with_root("ROOT %t = f32[8] negate(%a), backend_config={\"x\":" +
                               repeat("[", kDeep) + repeat("]", kDeep) + "}"));
  ok &= write(out, "literal_deep.hlo",
              module_with_root("ROOT %t = f32[8] constant(" + repeat("{", kDeep) + "1" +
                               repeat("}", kDeep) + ")"));
  ok &= write(out, "operands_deep.hlo",
              module_with_root("ROOT %t = f32[8] " + repeat("negate(f32[8] ", kDeep) + "%a" +
                               repeat(")", kDeep)));
  // Device specs: extreme figures, numbers beyond double, deep nesting under an unknown key.
  ok &= write(out, "device_peak_1e308.json", replaced(spec, bf16, "\"value\": 1e308"));
  ok &= write(out, "device_hbm_1e-300.json", replaced(spec, hbm_bw, "\"value\": 1e-300"));
  ok &= write(out, "device_number_1e999.json",
              replaced(spec, first_key, first_key + " \"x\": 1e999,"));
  ok &= write(out, "device_number_400_digits.json",
              replaced(spec, first_key, first_key + " \"x\": " + repeat("9", 400) + ","));
  ok &= write(out, "device_array_deep.json",
              replaced(spec, first_key,
                       first_key + " \"x\": " + repeat("[", kDeep) + repeat("]", kDeep) + ","));
  // Efficiency figures: the smallest double above 0.
  ok &= write(out, "device_efficiency_5e-324.json",
              replaced(spec, first_key, first_key + " \"matmul_efficiency\": 5e-324,"));
  // Standard input: text, then a NUL byte at byte 11 ("HloModule m" is 11 bytes), then more.
  ok &= write(out, "nul_bytes.hlo", std::string("HloModule m\0\nENTRY e {}\n", 24));
  // A named pipe where a profile should be (nothing ever writes it).
  const std::string fifo = out + "/profile.fifo.trace.json";
  std::filesystem::remove(fifo, made);
  ok &= ::mkfifo(fifo.c_str(), 0600) == 0;
  // A module that an output path names too.
  std::ifstream small_file(source_dir + "/tests/hostile/inputs/small.hlo", std::ios::binary);
  std::ostringstream small;
  small << small_file.rdbuf();
  ok &= write(out, "output_is_input.hlo", small.str());
  if (!ok) {
    std::cerr << "make_hostile_inputs: cannot write to " << out << "\n";
    return 1;
  }
  return 0;
}
