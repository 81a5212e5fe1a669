// Writes the large hostile inputs of the hostile-input corpus (tests/hostile/README.md): texts
// too big, or too regular, to keep in the repository. Each would hurt a command that did not
// refuse or handle it (a crash, a hang, unbounded memory).
//   make_hostile_inputs SOURCE_DIR OUT_DIR
#include <sys/stat.h>
#include <zlib.h>

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

// A parameter whose shape is a tuple of `n` scalars: one buffer and allocation per leaf, which
// must cost time and memory linear in `n`.
std::string wide_parameter(int n) {
  std::string t = "HloModule wide, is_scheduled=true\nENTRY e {\n  p = (";
  for (int i = 0; i < n; ++i) t += i == 0 ? "f32[]" : ", f32[]";
  t += ") parameter(0)\n  g = f32[] get-tuple-element(p), index=0\n  ROOT r = f32[] add(g, g)\n}\n";
  return t;
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

// `text` gzipped: one member.
std::string gzip(const std::string& text) {
  z_stream z{};
  // 15 + 16: a gzip header and trailer.
  if (deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK) std::exit(2);
  std::string out(deflateBound(&z, text.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  if (deflate(&z, Z_FINISH) != Z_STREAM_END) std::exit(2);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

// A gzip bomb: `head`, then `chunk` `copies` times, as gzip members one after the other (`cat
// a.gz b.gz`, which zcat reads whole): a small file that inflates to head + copies x chunk.
std::string gzip_bomb(const std::string& head, const std::string& chunk, int copies) {
  std::string out = gzip(head);
  const std::string member = gzip(chunk);
  out.reserve(out.size() + member.size() * static_cast<size_t>(copies));
  for (int i = 0; i < copies; ++i) out += member;
  return out;
}

// Protobuf wire format: a length-delimited field (type 2) and a varint field (type 0).
std::string varint(uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7F) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
  return out;
}
std::string field(int number, const std::string& payload) {
  return varint(static_cast<uint64_t>(number) << 3 | 2) + varint(payload.size()) + payload;
}
std::string varint_field(int number, uint64_t value) {
  return varint(static_cast<uint64_t>(number) << 3) + varint(value);
}

// `n` parameters sharded over 2^20 devices in iota form, and `n` all-reduces over a mesh of
// 2^20 devices: each is 2^20 ids (8 MiB) expanded, and a few dozen bytes as written.
std::string iota_shardings(int n) {
  std::string out = "HloModule iota_shardings\n\nENTRY main {\n";
  for (int k = 0; k < n; ++k) {
    out += "  p" + std::to_string(k) + " = f32[1024,1024]{1,0} parameter(" + std::to_string(k) +
           "), sharding={devices=[1024,1024]<=[1048576]}\n";
  }
  return out + "  ROOT t = () tuple()\n}\n";
}

std::string mesh_groups(int n) {
  std::string out =
      "HloModule mesh_groups\n\nsum {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
      "  ROOT s = f32[] add(a, b)\n}\n\nENTRY main {\n  p = f32[1024]{0} parameter(0)\n";
  std::string previous = "p";
  for (int k = 0; k < n; ++k) {
    const std::string name = "r" + std::to_string(k);
    out += "  " + name + " = f32[1024]{0} all-reduce(" + previous +
           "), replica_groups=mesh['x'=1024,'y'=1024] {'y'}, to_apply=sum\n";
    previous = name;
  }
  return out + "  ROOT out = f32[1024]{0} copy(" + previous + ")\n}\n";
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
  // Call nesting: 20k levels, and a chain just inside the bound.
  ok &= write(out, "fusion_chain_20000.hlo", fusion_chain(20000));
  ok &= write(out, "fusion_chain_120.hlo", fusion_chain(120));
  ok &= write(out, "wide_parameter_200000.hlo", wide_parameter(200000));
  ok &= write(out, "iota_shardings_400.hlo", iota_shardings(400));
  ok &= write(out, "mesh_groups_100.hlo", mesh_groups(100));
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
  // Names that would drive the terminal (clear the screen, set its title): printed escaped.
  ok &= write(out, "device_name_escapes.json",
              replaced(replaced(spec, "\"name\": \"tpu_v5e\"",
                                "\"name\": \"v5e\\u001b[2J\\u001b]0;pwn\\u0007\""),
                       "\"display_name\": \"", "\"display_name\": \"\\u001b[31mred\\u009b "));
  // Efficiency figures: the smallest double above 0.
  ok &= write(out, "device_efficiency_5e-324.json",
              replaced(spec, first_key, first_key + " \"matmul_efficiency\": 5e-324,"));
  // Standard input: text, then a NUL byte at byte 11 ("HloModule m" is 11 bytes), then more.
  ok &= write(out, "nul_bytes.hlo", std::string("HloModule m\0\nENTRY e {}\n", 24));
  // A named pipe where a profile should be (nothing ever writes it).
  const std::string fifo = out + "/profile.fifo.trace.json";
  std::filesystem::remove(fifo, made);
  ok &= ::mkfifo(fifo.c_str(), 0600) == 0;
  // A dump directory whose module's file name holds an escape sequence and a newline: they
  // reached the terminal in the note that names the module read.
  std::filesystem::create_directories(out + "/dump_escapes", made);
  ok &= write(out + "/dump_escapes",
              "module_0001.jit_\x1b[2J\x1b]0;pwn\x07\nstep.tpu_after_optimizations.txt",
              module_with_root("ROOT %n = f32[8] negate(%a)"));
  // A module that an output path names too.
  std::ifstream small_file(source_dir + "/tests/hostile/inputs/small.hlo", std::ios::binary);
  std::ostringstream small;
  small << small_file.rdbuf();
  ok &= write(out, "output_is_input.hlo", small.str());
  // Trace JSON. Events: 8,388,608 are read at most (about 344 MB of this text, from a file of
  // about 400 KB); the file holds 25,575 x 330 = 8.44 million.
  const std::string event = R"({"ph":"X","ts":0,"dur":0,"pid":0,"tid":0},)";
  ok &= write(out, "events_bomb.trace.json.gz",
              gzip_bomb("{\"traceEvents\": [", repeat(event, 25575), 330));
  // Whitespace: 1 GiB of text is read at most; this inflates to 1.1 GiB of spaces.
  ok &= write(out, "whitespace_bomb.trace.json.gz",
              gzip_bomb("[", std::string(size_t{1} << 20, ' '), 1100));
  // Structure without values: [[]],[[]],... a million brackets in a row and more.
  ok &= write(out, "brackets_bomb.trace.json.gz", gzip_bomb("[", repeat("[],", 1 << 18), 8));
  // A string of 17 MiB, one more than a token may be.
  ok &= write(out, "long_string.trace.json.gz",
              gzip_bomb("[{\"name\": \"", std::string(size_t{1} << 20, 'a'), 17));
  // Two members: the trace's first half and its second (`cat a.gz b.gz`). The op named with an
  // escape sequence that clears the screen and sets the title, and one with a newline.
  const std::string trace =
      R"({"traceEvents": [)"
      R"({"ph": "M", "pid": 1, "name": "process_name", "args": {"name": "/device:GPU:0"}},)"
      R"({"ph": "X", "pid": 1, "tid": 1, "name": "jit_step", "ts": 0, "dur": 100,)"
      R"( "args": {"hlo_module": "jit_step"}},)"
      R"({"ph": "X", "pid": 1, "tid": 2, "name": "k\u001b[2J\u001b]0;pwn\u0007", "ts": 1,)"
      R"( "dur": 10, "args": {"hlo_op": "\u001b[2J\u001b]0;pwn\u0007",)"
      R"( "hlo_module": "jit_step"}},)"
      R"({"ph": "X", "pid": 1, "tid": 2, "name": "k2", "ts": 20, "dur": 10,)"
      R"( "args": {"hlo_op": "line\nbreak", "hlo_module": "jit_step"}}]})";
  ok &= write(out, "jit_step.hlo",
              "HloModule jit_step\n\nENTRY %main (a: f32[1024]) -> f32[1024] {\n"
              "  %a = f32[1024] parameter(0)\n  ROOT %k2 = f32[1024] exponential(%a)\n}\n");
  const size_t half = trace.size() / 2;
  ok &= write(out, "two_members.trace.json.gz",
              gzip(trace.substr(0, half)) + gzip(trace.substr(half)));
  // XSpace: 10,000 empty planes (4096 are read at most).
  ok &= write(out, "planes_bomb.xplane.pb", repeat(field(1, ""), 10000));
  // 100 planes named p0..p99: an error lists 16 of them.
  std::string planes;
  for (int i = 0; i < 100; ++i) planes += field(1, field(2, "p" + std::to_string(i)));
  ok &= write(out, "planes_100.xplane.pb", planes);
  // One line of 8,388,609 empty events (16.8 MB): one more than are read.
  ok &= write(out, "events_bomb.xplane.pb",
              field(1, field(3, repeat(field(4, ""), (1 << 23) + 1))));
  // Names that are not UTF-8: a plane "/device:GPU:0" and bytes 0xFF 0xFE in a line's name and
  // an event's metadata name. Protobuf refused the whole file.
  const std::string metadata = field(4, varint_field(1, 7) + field(2, varint_field(1, 7) +
                                                                       field(2, "k\xff\xfe")));
  const std::string line = field(3, field(2, "stream\xff") + field(4, varint_field(1, 7) +
                                                                         varint_field(2, 1000) +
                                                                         varint_field(3, 5000)));
  ok &= write(out, "invalid_utf8.xplane.pb",
              field(1, field(2, "/device:GPU:0\xfe") + line + metadata));
  // A chain of 1.5 million negates (53 MB): more memory than a 400 MB address space holds.
  {
    std::string text = "HloModule chain\n\nENTRY e {\n  x0 = f32[8] parameter(0)\n";
    for (int k = 1; k < 1500000; ++k) {
      text += "  x" + std::to_string(k) + " = f32[8] negate(x" + std::to_string(k - 1) + ")\n";
    }
    text += "  ROOT r = f32[8] negate(x1499999)\n}\n";
    ok &= write(out, "negate_chain_1500000.hlo", text);
  }
  // 24 nested while loops of 10^18 trips each (known_trip_count), innermost first.
  {
    const std::string trips = "backend_config={\"known_trip_count\":{\"n\":\"1000000000000000000\"}}";
    std::string text = "HloModule loops\n\n";
    for (int k = 23; k >= 0; --k) {
      const std::string n = std::to_string(k), next = std::to_string(k + 1);
      text += "cond" + n + " {\n  p = (s32[], f32[8]) parameter(0)\n" +
              "  i = s32[] get-tuple-element(p), index=0\n  c = s32[] constant(1000)\n" +
              "  ROOT lt = pred[] compare(i, c), direction=LT\n}\n\n";
      text += "body" + n + " {\n  p = (s32[], f32[8]) parameter(0)\n" +
              "  i = s32[] get-tuple-element(p), index=0\n" +
              "  x = f32[8] get-tuple-element(p), index=1\n  one = s32[] constant(1)\n" +
              "  j = s32[] add(i, one)\n";
      text += k == 23 ? "  y = f32[8] exponential(x)\n"
                      : "  w = (s32[], f32[8]) while(p), condition=cond" + next + ", body=body" +
                            next + ", " + trips + "\n  y = f32[8] get-tuple-element(w), index=1\n";
      text += "  ROOT t = (s32[], f32[8]) tuple(j, y)\n}\n\n";
    }
    text += "ENTRY e {\n  x = f32[8] parameter(0)\n  z = s32[] constant(0)\n" +
            std::string("  t = (s32[], f32[8]) tuple(z, x)\n") +
            "  w = (s32[], f32[8]) while(t), condition=cond0, body=body0, " + trips + "\n" +
            "  ROOT y = f32[8] get-tuple-element(w), index=1\n}\n";
    ok &= write(out, "nested_loops_1e18.hlo", text);
  }
  // HloModuleProtos (name 1, computations 3, entry id 6; a computation: name 1, instructions
  // 2, id 5, root id 6; an instruction: name 1, opcode 2, shape 3 (f32[4]), id 35, operand ids
  // 36). An async-update whose operand is itself: the reader walked updates forever.
  const std::string f32_4 = varint_field(2, 11) + varint_field(3, 4);
  const auto instruction = [&](const std::string& name, const std::string& opcode, int id,
                               const std::string& rest) {
    return field(2, field(1, name) + field(2, opcode) + field(3, f32_4) + varint_field(35, id) +
                        rest);
  };
  const auto module = [&](const std::string& instructions, int root) {
    return field(1, "m") +
           field(3, field(1, "main") + instructions + varint_field(5, 1) +
                        varint_field(6, root)) +
           varint_field(6, 1);
  };
  ok &= write(out, "async_update_cycle.hlo.pb",
              module(instruction("u", "async-update", 1, varint_field(36, 1)), 1));
  // A parameter with a 64 KiB name that a tuple takes 32,768 times (165 KB): 2 GiB of text
  // were every reference written out.
  const std::string long_name(65536, 'p');
  ok &= write(out, "operand_name_amplification.hlo.pb",
              module(instruction(long_name, "parameter", 1, "") +
                         instruction("t", "tuple", 2, repeat(varint_field(36, 1), 32768)),
                     2));
  // An HloProto (module 1, buffer assignment 3) whose one logical buffer (id 1, defined at 3:
  // instruction name 2) has a 1 MiB name and is assigned 4,096 times in one allocation (index
  // 1, size 2, assigned 9: buffer id 1, size 3); then 160,000 buffers of distinct names in
  // another: a reader that copies the name at each assignment holds 4 GiB, one that looks each
  // name up in a list takes time quadratic in the buffers.
  const std::string add_module =
      module(instruction("x", "parameter", 1, "") +
                 instruction("n", "negate", 2, varint_field(36, 1)),
             2);
  std::string assignment =
      field(1, varint_field(1, 1) + varint_field(2, 16) +
                   field(3, field(2, std::string(size_t{1} << 20, 'n'))));
  assignment += field(3, varint_field(1, 0) + varint_field(2, 16) +
                             repeat(field(9, varint_field(1, 1) + varint_field(3, 16)), 4096));
  std::string many;
  for (int i = 0; i < 160000; ++i) {
    assignment += field(1, varint_field(1, 10 + i) + varint_field(2, 4) +
                               field(3, field(2, "b" + std::to_string(i))));
    many += field(9, varint_field(1, 10 + i) + varint_field(3, 4));
  }
  assignment += field(3, varint_field(1, 1) + varint_field(2, 640000) + many);
  ok &= write(out, "buffer_assignment_copies.hlo.pb",
              field(1, add_module) + field(3, assignment));
  // 8 MiB of empty FileLocation messages in the module's stack frame index (17, locations 3):
  // 2 bytes each, over 100 bytes each decoded.
  ok &= write(out, "tiny_messages.hlo.pb",
              add_module + field(17, repeat(field(3, ""), 1 << 22)));
  // A parameter of 16M f32[] leaves (tuple_shapes 4, each `10 0b`: 4 bytes a leaf, 64 MiB):
  // decoded, a message per leaf took 2.2 GB. And 4M instructions of 4 bytes (an instruction
  // holding only parameter_number 1), some 700 bytes each decoded: 2.9 GB for 16 MiB.
  std::string leaves = varint_field(2, 13);
  leaves += repeat(field(4, varint_field(2, 11)), 1 << 24);
  ok &= write(out, "tuple_leaves_16m.hlo.pb",
              field(1, "m") +
                  field(3, field(1, "main") +
                               field(2, field(1, "p") + field(2, "parameter") +
                                            field(3, leaves) + varint_field(35, 1)) +
                               varint_field(5, 1) + varint_field(6, 1)) +
                  varint_field(6, 1));
  std::string().swap(leaves);
  ok &= write(out, "tiny_instructions.hlo.pb",
              module(instruction("x", "parameter", 1, "") +
                         repeat(field(2, varint_field(9, 1)), 1 << 22),
                     1));
  if (!ok) {
    std::cerr << "make_hostile_inputs: cannot write to " << out << "\n";
    return 1;
  }
  return 0;
}
