// load_module: kinds told apart by content (XLA's own test files are HLO, never MLIR), the
// module of a dump directory, the entry option, and the input's warnings said once.
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <system_error>

#include <catch2/catch.hpp>

#include "absl/strings/string_view.h"
#include "examples.h"
#include "hloroof/hlo_proto.h"
#include "hloroof/hlo_proto_writer.h"
#include "hloroof/hlo_text.h"
#include "hloroof/load.h"
#include "require_ok.h"

namespace fs = std::filesystem;
using namespace hloroof;

namespace {

using hloroof::testing::read_file;

const fs::path kXlaTestFiles = fs::path(HLOROOF_SOURCE_DIR) / "tests/data/xla_test_files";

void write_file(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

// absl::string_view: a status's message is one (Debian's Abseil has its own string_view).
bool contains(absl::string_view text, absl::string_view part) {
  return text.find(part) != absl::string_view::npos;
}

// A folder of its own under the system's temporary folder, removed at the end of the test.
struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& name) {
    path = fs::temp_directory_path() / ("hloroof_load_test_" + name);
    std::error_code error;
    fs::remove_all(path, error);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code error;
    fs::remove_all(path, error);
  }
};

constexpr std::string_view kTwoComputations = R"(HloModule m

%helper {
  %p = f32[4] parameter(0)
  ROOT %n = f32[4] negate(%p)
}

ENTRY %main {
  %x = f32[4] parameter(0)
  ROOT %c = f32[4] call(%x), to_apply=%helper
}
)";

// Unscheduled, unfused, a chain of elementwise ops, and no computation marked ENTRY.
constexpr std::string_view kUnfusedNoEntry = R"(HloModule raw

%step {
  %x = f32[8] parameter(0)
  %a = f32[8] add(%x, %x)
  ROOT %m = f32[8] multiply(%a, %a)
}
)";

}  // namespace

TEST_CASE("XLA's own HLO test files are HLO text, whatever their comments name") {
  for (const char* name : {"if_conditional.hlo", "while.hlo", "case_conditional.hlo",
                           "concat_1d.hlo", "scatter_add.hlo", "custom_call_fragment.hlo"}) {
    INFO(name);
    const fs::path path = kXlaTestFiles / name;
    const std::string bytes = read_file(path);
    REQUIRE(!bytes.empty());
    CHECK(detect_input_kind(bytes) == InputKind::kHloText);
    // Read, the file is a module or a parse error that points into it; never "MLIR".
    absl::StatusOr<LoadedModule> loaded = load_module(path.string());
    if (!loaded.ok()) {
      CHECK(!contains(loaded.status().message(), "MLIR"));
      CHECK(contains(loaded.status().message(), name));
    }
    CHECK(loaded.ok());
  }
}

TEST_CASE("an emitter test's fused computation without ENTRY is read, with the banner") {
  absl::StatusOr<LoadedModule> loaded = load_module((kXlaTestFiles / "concat_1d.hlo").string());
  REQUIRE_OK(loaded);
  CHECK(loaded->module.entry()->name() == "fusion");
  CHECK(!loaded->entry_marked);
  CHECK(contains(loaded->banner, "no computation is marked ENTRY"));
  CHECK(contains(loaded->banner, "LoadOptions::entry = NAME takes a computation as the step"));
}

TEST_CASE("MLIR, JSON, empty and binary inputs are refused with what they are") {
  struct Case {
    std::string bytes;
    const char* says;
  };
  const Case cases[] = {
      {"module @jit_f {\n  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n"
       "    %0 = stablehlo.add %arg0, %arg0 : tensor<4xf32>\n    return %0 : tensor<4xf32>\n"
       "  }\n}\n",
       "StableHLO/MLIR"},
      {"// a comment\nfunc.func @main(%a: tensor<f32>) -> tensor<f32> {\n"
       "  %1:2 = \"mhlo.if\"(%a) : (tensor<f32>) -> (tensor<f32>, tensor<f32>)\n}\n",
       "StableHLO/MLIR"},
      {"{\"traceEvents\": []}", "is JSON"},
      {"", "is empty"},
      {std::string("\x01\x02\x03\x04", 4), "binary file"},
  };
  for (const Case& c : cases) {
    INFO(c.says);
    absl::StatusOr<LoadedModule> named = load_module(ModuleBytes{c.bytes, "in.txt"});
    REQUIRE(!named.ok());
    CHECK(contains(named.status().message(), c.says));
    CHECK(contains(named.status().message(), "'in.txt'"));
    absl::StatusOr<LoadedModule> unnamed = load_module(ModuleBytes{c.bytes, ""});
    REQUIRE(!unnamed.ok());
    CHECK(contains(unnamed.status().message(), "the input"));
  }
}

TEST_CASE("the entry option takes a computation as the step, and the banner says so") {
  LoadOptions options;
  options.entry = "helper";
  absl::StatusOr<LoadedModule> loaded = load_module(ModuleBytes{kTwoComputations, "m.hlo"},
                                                    options);
  REQUIRE_OK(loaded);
  CHECK(loaded->module.entry()->name() == "helper");
  CHECK(!loaded->entry_marked);
  CHECK(loaded->banner ==
        "LoadOptions::entry takes helper as the step, not the module's ENTRY main: the figures "
        "are those of helper alone");

  options.entry = "nope";
  options.entry_option = "entry=";
  absl::StatusOr<LoadedModule> unknown =
      load_module(ModuleBytes{kTwoComputations, "m.hlo"}, options);
  REQUIRE(!unknown.ok());
  CHECK(contains(unknown.status().message(), "entry=: "));
  CHECK(contains(unknown.status().message(), "nope"));

  // The module's own ENTRY named: nothing to say.
  options.entry = "main";
  absl::StatusOr<LoadedModule> same = load_module(ModuleBytes{kTwoComputations, "m.hlo"},
                                                  options);
  REQUIRE_OK(same);
  CHECK(same->entry_marked);
  CHECK(same->banner.empty());
}

TEST_CASE("no ENTRY and HLO before optimization: each said once") {
  absl::StatusOr<LoadedModule> loaded =
      load_module(ModuleBytes{kUnfusedNoEntry, "module_0001.raw.before_optimizations.txt"});
  REQUIRE_OK(loaded);
  CHECK(contains(loaded->banner, "no computation is marked ENTRY"));
  REQUIRE(loaded->diagnostics.warnings.size() == 1);
  CHECK(contains(loaded->diagnostics.warnings[0], "named as XLA's dump before optimization"));
  for (const std::string& w : loaded->diagnostics.warnings) {
    CHECK(!contains(w, "ENTRY"));
  }
  // Python's words for naming the entry.
  LoadOptions options;
  options.entry_naming = "Module.set_entry(NAME)";
  absl::StatusOr<LoadedModule> python = load_module(ModuleBytes{kUnfusedNoEntry, ""}, options);
  REQUIRE_OK(python);
  CHECK(contains(python->banner, "Module.set_entry(NAME) takes a computation as the step"));
  // Not named either way: the module's shape tells.
  REQUIRE(python->diagnostics.warnings.size() == 1);
  CHECK(contains(python->diagnostics.warnings[0], "looks like HLO before optimization"));
}

TEST_CASE("a dump directory: its largest jit_ module by default, or the one named") {
  TempDir dir("dump");
  const std::string small = "HloModule jit_small\n\nENTRY %e {\n  ROOT %p = f32[4] parameter(0)\n}\n";
  const std::string large = "HloModule jit_large\n\n// padding to make it the larger file\n"
                            "ENTRY %e {\n  %p = f32[4] parameter(0)\n  ROOT %n = f32[4] negate(%p)\n}\n";
  write_file(dir.path / "module_0001.jit_small.cpu_after_optimizations.txt", small);
  write_file(dir.path / "module_0002.jit_large.cpu_after_optimizations.txt", large);
  write_file(dir.path / "module_0002.jit_large.before_optimizations.txt", large);

  absl::StatusOr<LoadedModule> picked = load_module(dir.path.string());
  REQUIRE_OK(picked);
  CHECK(picked->module.name() == "jit_large");
  REQUIRE(picked->diagnostics.notes.size() == 1);
  CHECK(contains(picked->diagnostics.notes[0], "read module jit_large"));
  CHECK(contains(picked->diagnostics.notes[0], "of the 2 optimized module(s)"));
  CHECK(contains(picked->diagnostics.notes[0], "LoadOptions::module_name NAME reads another"));
  CHECK(picked->diagnostics.warnings.empty());

  LoadOptions by_number;
  by_number.module_name = "0001";
  absl::StatusOr<LoadedModule> first = load_module(dir.path.string(), by_number);
  REQUIRE_OK(first);
  CHECK(first->module.name() == "jit_small");

  LoadOptions unknown;
  unknown.module_name = "jit_nope";
  unknown.module_option = "module_name";
  absl::StatusOr<LoadedModule> none = load_module(dir.path.string(), unknown);
  REQUIRE(!none.ok());
  CHECK(contains(none.status().message(), "module_name: no module named 'jit_nope'"));
  CHECK(contains(none.status().message(), "jit_large"));

  TempDir empty("empty");
  absl::StatusOr<LoadedModule> nothing = load_module(empty.path.string());
  REQUIRE(!nothing.ok());
  CHECK(contains(nothing.status().message(), "after_optimizations.txt"));
}

TEST_CASE("a dump directory of HloProtos (--xla_dump_hlo_as_proto) is read, text first") {
  const std::string text =
      "HloModule jit_p\n\nENTRY %e {\n  %p = f32[4] parameter(0)\n  ROOT %n = f32[4] negate(%p)\n}\n";
  absl::StatusOr<Module> parsed = parse_module(text);
  REQUIRE_OK(parsed);
  TempDir dir("proto_dump");
  write_file(dir.path / "module_0003.jit_p.gpu_after_optimizations.hlo.pb", write_hlo_proto(*parsed));
  write_file(dir.path / "module_0003.jit_p.before_optimizations.hlo.pb", write_hlo_proto(*parsed));
  absl::StatusOr<std::vector<DumpModule>> modules = dump_modules(dir.path.string());
  REQUIRE_OK(modules);
  REQUIRE(modules->size() == 1);
  CHECK((*modules)[0].name == "jit_p");
  CHECK((*modules)[0].id == "0003");
  absl::StatusOr<LoadedModule> loaded = load_module(dir.path.string());
  REQUIRE_OK(loaded);
  CHECK(loaded->module.name() == "jit_p");
  CHECK(loaded->xla_assignment.has_value());  // read as a proto
  CHECK(contains(loaded->diagnostics.notes[0], "gpu_after_optimizations.hlo.pb"));
  CHECK(loaded->diagnostics.warnings.empty());
  // Dumped both ways: the text is read, the module listed once.
  write_file(dir.path / "module_0003.jit_p.gpu_after_optimizations.txt", text);
  absl::StatusOr<std::vector<DumpModule>> both = dump_modules(dir.path.string());
  REQUIRE_OK(both);
  REQUIRE(both->size() == 1);
  CHECK(std::string_view((*both)[0].file).ends_with("after_optimizations.txt"));
}

TEST_CASE("a module name for a single-module input") {
  LoadOptions options;
  options.module_name = "jit_f";
  absl::StatusOr<LoadedModule> refused = load_module(ModuleBytes{kTwoComputations, "m.hlo"},
                                                     options);
  REQUIRE(!refused.ok());
  CHECK(contains(refused.status().message(), "LoadOptions::module_name picks a module"));
  options.module_name_everywhere = false;
  CHECK(load_module(ModuleBytes{kTwoComputations, "m.hlo"}, options).ok());
}

TEST_CASE("a file cut inside a computation: the whole ones are read, or the parse error") {
  TempDir dir("cut");
  const fs::path file = dir.path / "cut.hlo";
  write_file(file, std::string(kTwoComputations.substr(0, kTwoComputations.find("ROOT %c"))));
  absl::StatusOr<LoadedModule> part = load_module(file.string());
  REQUIRE_OK(part);
  CHECK(part->module.entry()->name() == "helper");
  REQUIRE(!part->diagnostics.warnings.empty());
  CHECK(contains(part->diagnostics.warnings[0], "the file ends inside computation main"));

  LoadOptions whole_only;
  whole_only.read_cut_dump = false;
  absl::StatusOr<LoadedModule> refused = load_module(file.string(), whole_only);
  REQUIRE(!refused.ok());
  CHECK(contains(refused.status().message(), "truncated?"));
}

TEST_CASE("detect_input_kind: an HLO instruction line makes text HLO, an MLIR op line does not") {
  struct Case {
    std::string_view text;
    InputKind kind;
  };
  const Case cases[] = {
      {"c {\n  %x = f32[] parameter(0), frontend_attributes={k=\"mhlo.sharding\"}\n}\n",
       InputKind::kHloText},
      {"c {\n  ROOT t = (f32[], s32[4]{0}) custom-call(), custom_call_target=\"stablehlo.x\"\n}\n",
       InputKind::kHloText},
      {"c {\n  ROOT t = () tuple(), backend_config=\"mhlo.y\"\n}\n", InputKind::kHloText},
      {"func.func @f() {\n  %0 = stablehlo.constant dense<1.0> : tensor<f32>\n}\n",
       InputKind::kMlir},
      {"func.func @f() {\n  %1:2 = \"mhlo.if\"(%0) ({\n  })\n}\n", InputKind::kMlir},
      {"#map = affine_map<(d0)[s0] -> (d0)>\nfunc.func @f() {\n}\n", InputKind::kMlir},
      // Neither: the parser says what is wrong.
      {"hello\n", InputKind::kHloText},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    CHECK(detect_input_kind(c.text) == c.kind);
  }
}

TEST_CASE("a parse error explained as a cut file keeps its location") {
  absl::StatusOr<LoadedModule> loaded = load_module(ModuleBytes{"HloModule m\n\nc {\n", "m.hlo"});
  REQUIRE(!loaded.ok());
  CHECK(contains(loaded.status().message(), "truncated?"));
  std::optional<ParseErrorLocation> where = parse_error_location(loaded.status());
  REQUIRE(where.has_value());
  CHECK(where->line >= 3);
  CHECK(contains(where->message, "got end of input\nnote: the file ends inside a computation"));
}

TEST_CASE("one argument that is a path or text: the file when it names one, else the text") {
  TempDir dir("path_or_text");
  const fs::path file = dir.path / "step.hlo";
  write_file(file, std::string(kTwoComputations));
  CHECK(input_form(file.string()) == InputForm::kPath);
  CHECK(input_form(dir.path.string()) == InputForm::kPath);
  // One line without braces that holds a folder separator or ends in an extension can only be
  // a path: naming nothing, it is said to be missing rather than parsed as HLO.
  for (const char* missing : {"missing.hlo", "runs/step", "runs\\step", "step.hlo.txt"}) {
    INFO(missing);
    CHECK(input_form(missing) == InputForm::kMissingPath);
    absl::StatusOr<LoadedModule> loaded = load_path_or_text(missing);
    REQUIRE(!loaded.ok());
    CHECK(absl::IsNotFound(loaded.status()));
    CHECK(contains(loaded.status().message(), "no such file"));
  }
  // Text: a line break, braces, no extension, or an extension that is no word.
  for (const char* text : {"HloModule m\nENTRY e { ROOT p = f32[] parameter(0) }",
                           "ENTRY e { ROOT p = f32[] parameter(0) }", "garbage", "x.a-b"}) {
    INFO(text);
    CHECK(input_form(text) == InputForm::kText);
  }
  absl::StatusOr<LoadedModule> read = load_path_or_text(file.string());
  REQUIRE_OK(read);
  CHECK(read->file == file.string());
  CHECK(read->module.computations().size() == 2);
  absl::StatusOr<LoadedModule> parsed = load_path_or_text(kTwoComputations, {}, "mine.hlo");
  REQUIRE_OK(parsed);
  CHECK(parsed->file == "mine.hlo");
  CHECK(parsed->module.computations().size() == 2);
}
