#include "hloroof/load.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <system_error>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/cord.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hloroof/hlo_text.h"
#include "hloroof/input_file.h"
#include "hloroof/no_entry.h"
#include "hloroof/units.h"
#include "hloroof/xspace_modules.h"
#include "hloroof/absl_compat.h"
#include "hloroof/text_safety.h"

namespace hloroof {
namespace {

namespace fs = std::filesystem;

// The optimized modules of a dump: text (--xla_dump_hlo_as_text, the default) and HloProtos
// (--xla_dump_hlo_as_proto), both named module_<id>.<module name>.<platform>_<suffix>.
constexpr std::string_view kOptimizedSuffix = "after_optimizations.txt";
constexpr std::string_view kOptimizedProtoSuffix = "after_optimizations.hlo.pb";
constexpr size_t kModulesListed = 8;

// "module_0004.jit_train_step.tpu_after_optimizations.txt" -> "0004": XLA names dump files
// module_<id>.<module name>.<suffix>.
std::string module_id_of(std::string_view file_name) {
  if (!absl::StartsWith(sv(file_name), "module_")) return "";
  const size_t first = file_name.find('.');
  if (first == std::string_view::npos) return "";
  return std::string(file_name.substr(7, first - 7));
}

// "module_0004.jit_train_step.tpu_after_optimizations.txt" -> "jit_train_step".
std::string module_name_of(std::string_view file_name) {
  if (absl::StartsWith(sv(file_name), "module_")) {
    const size_t first = file_name.find('.');
    if (first != std::string_view::npos) {
      const size_t second = file_name.find('.', first + 1);
      if (second != std::string_view::npos) {
        return std::string(file_name.substr(first + 1, second - first - 1));
      }
    }
  }
  const size_t suffix = absl::EndsWith(sv(file_name), sv(kOptimizedProtoSuffix))
                            ? kOptimizedProtoSuffix.size()
                            : kOptimizedSuffix.size();
  return std::string(file_name.substr(0, file_name.size() - suffix));
}

std::string module_list(const std::vector<DumpModule>& modules) {
  std::vector<std::string> names;
  for (const DumpModule& m : modules) {
    if (names.size() == kModulesListed) break;
    names.push_back(absl::StrCat(printable(m.name), " (",
                                 m.id.empty() ? "" : absl::StrCat(printable(m.id), ", "),
                                 format_bytes(static_cast<double>(m.bytes)), ")"));
  }
  std::string list = absl::StrJoin(names, ", ");
  if (modules.size() > names.size()) {
    absl::StrAppend(&list, " and ", modules.size() - names.size(), " more");
  }
  return list;
}

// An elementwise op fed by another elementwise op outside any fusion: XLA's fusion passes
// would have merged the two.
bool has_unfused_elementwise_chain(const Module& module) {
  for (const Computation* c : module.computations()) {
    for (const Instruction* i : c->instructions()) {
      if (!is_elementwise(i->opcode())) continue;
      for (const Instruction* operand : i->operands()) {
        if (is_elementwise(operand->opcode())) return true;
      }
    }
  }
  return false;
}

bool has_fusion(const Module& module) {
  for (const Computation* c : module.computations()) {
    for (const Instruction* i : c->instructions()) {
      if (i->opcode() == Opcode::kFusion) return true;
    }
  }
  return false;
}

// The module of bytes that are not HLO text: an HloProto or HloModuleProto, or an XSpace
// (options.module_name picks one of its modules); for bytes that hold no HLO (empty, JSON,
// StableHLO, other binary), an error that says what they are. nullopt for HLO text.
std::optional<absl::StatusOr<LoadedModule>> load_non_text(std::string_view bytes,
                                                          const std::string& file,
                                                          const LoadOptions& options) {
  // What the file is, by its content: a proto or a profile whatever its name, and a clear
  // word for files that hold no HLO at all (their bytes are never echoed).
  ParsedHloProto proto;
  const InputKind kind = detect_input_kind(bytes, &proto);
  if (kind == InputKind::kHloText) return std::nullopt;
  if (kind != InputKind::kHloProto && kind != InputKind::kXSpace) {
    return absl::StatusOr<LoadedModule>(
        absl::InvalidArgumentError(input_kind_advice(kind, file)));
  }
  LoadedModule loaded;
  loaded.file = file;
  std::string module_file = file == "-" ? "<stdin>" : file.empty() ? "<bytes>" : file;
  if (kind == InputKind::kXSpace) {
    absl::StatusOr<XSpaceModules> carried =
        read_xspace_modules(bytes, file.empty() ? "<bytes>" : file);
    if (!carried.ok()) return absl::StatusOr<LoadedModule>(carried.status());
    std::string note;
    absl::StatusOr<const ProfileModuleProto*> picked =
        pick_carried_module(*carried, options.module_name, &note, options.module_option);
    if (!picked.ok()) return absl::StatusOr<LoadedModule>(picked.status());
    loaded.diagnostics.notes.push_back(note);
    loaded.profile_device_kind = carried->device_type;
    proto = ParsedHloProto((*picked)->hlo_proto);
    module_file = absl::StrCat(module_file, ":", (*picked)->name);
    loaded.profile_module = (*picked)->name;
  } else if (!options.module_name.empty()) {
    return absl::StatusOr<LoadedModule>(absl::InvalidArgumentError(
        absl::StrCat(options.module_option,
                     " picks a module of a dump directory or a profile; '", file,
                     "' is an HLO proto, which holds one")));
  }
  // The module and XLA's buffer assignment from the one parse of the bytes.
  absl::StatusOr<Module> module = proto.module(ParseOptions{.file_name = module_file});
  if (!module.ok()) return absl::StatusOr<LoadedModule>(module.status());
  loaded.module = *std::move(module);
  loaded.xla_assignment = proto.xla_buffer_assignment();
  proto = ParsedHloProto();  // the messages are read: their memory goes back
  loaded.diagnostics.warnings = input_warnings(loaded.module, file, options.entry_naming);
  return absl::StatusOr<LoadedModule>(std::move(loaded));
}

// Takes the entry option's computation as the step, and says what the figures are of when
// they are not the input's whole step; then the input's other warnings.
absl::Status finish_loading(LoadedModule& loaded, const LoadOptions& options) {
  Module& module = loaded.module;
  const std::string marked = module.entry_marked() ? std::string(module.entry()->name()) : "";
  const std::string& option = options.entry_option;
  if (!options.entry.empty()) {
    absl::Status s = module.set_entry(options.entry);
    if (!s.ok()) return absl::Status(s.code(), absl::StrCat(option, ": ", s.message()));
  }
  const std::string taken(module.entry()->name());
  loaded.entry_marked = !marked.empty() && marked == taken;
  if (!module.entry_marked()) {
    loaded.banner = no_entry_warning(module, options.entry_naming);
  } else if (marked.empty()) {
    loaded.banner = absl::StrCat(sv(kNoEntryMarked), "; ", option, " takes ", taken,
                                 " as the step, so the figures are those of ", taken,
                                 " alone, not of a whole program");
  } else if (!loaded.entry_marked) {
    loaded.banner = absl::StrCat(option, " takes ", taken, " as the step, not the module's ENTRY ",
                                 marked, ": the figures are those of ", taken, " alone");
  }
  std::vector<std::string> warnings = input_warnings(module, loaded.file, options.entry_naming);
  // The banner says it already.
  if (!warnings.empty() && !module.entry_marked()) warnings.erase(warnings.begin());
  // Warnings of the reading itself (a computation cut off) first; the input's once.
  std::vector<std::string> kept;
  for (std::string& w : loaded.diagnostics.warnings) {
    if (std::find(warnings.begin(), warnings.end(), w) == warnings.end()) {
      kept.push_back(std::move(w));
    }
  }
  kept.insert(kept.end(), std::make_move_iterator(warnings.begin()),
              std::make_move_iterator(warnings.end()));
  loaded.diagnostics.warnings = std::move(kept);
  return absl::OkStatus();
}

// The module of `text` without its last computation, which the text cuts off: the text up to
// the last line that opens a computation (no indent, ending in '{'), parsed. Nothing when no
// such line leaves a text that parses.
std::optional<LoadedModule> load_complete_part(std::string_view text, const LoadedModule& loaded,
                                               const std::string& file_name) {
  size_t end = text.size();
  while (end > 0) {
    const size_t begin = text.rfind('\n', end - 1);
    const size_t start = begin == std::string_view::npos ? 0 : begin + 1;
    std::string_view line = text.substr(start, end - start);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    const bool opens = !line.empty() && line.front() != ' ' && line.front() != '\t' &&
                       line.back() == '{' && line.rfind("HloModule", 0) != 0;
    if (opens) {
      absl::StatusOr<Module> part =
          parse_module(std::string(text.substr(0, start)), ParseOptions{.file_name = file_name});
      if (!part.ok()) return std::nullopt;
      LoadedModule out;
      out.file = loaded.file;
      out.diagnostics.notes = loaded.diagnostics.notes;
      out.module = *std::move(part);
      const size_t line_number =
          1 + static_cast<size_t>(std::count(text.begin(), text.begin() + start, '\n'));
      std::string_view name = line.substr(0, line.find_first_of(" ({"));
      if (name == "ENTRY") name = line.substr(6, line.substr(6).find_first_of(" ({"));
      if (!name.empty() && name.front() == '%') name.remove_prefix(1);
      const size_t whole = out.module.computations().size();
      out.diagnostics.warnings.push_back(absl::StrCat(
          "the file ends inside computation ", sv(name), " (from line ", line_number,
          "): a cut dump; it is dropped, and the ", whole,
          whole == 1 ? " whole computation before it is read" : " whole computations before it "
                                                                  "are read"));
      return out;
    }
    if (begin == std::string_view::npos) break;
    end = begin;
  }
  return std::nullopt;
}

// The module of the input read from `loaded.file` (`loaded` holds what was said of the input
// so far: which module of a dump directory): the bytes of `file` when it is set (the parse
// takes it over), else `given`. `file_name` names the text in parse errors.
absl::StatusOr<LoadedModule> load_bytes(std::optional<InputFile> file, std::string_view given,
                                        LoadedModule loaded, const std::string& file_name,
                                        const LoadOptions& options) {
  const bool from_file = file.has_value() && loaded.file != "-";
  const std::string_view bytes = file ? file->text() : given;
  if (std::optional<absl::StatusOr<LoadedModule>> other =
          load_non_text(bytes, loaded.file, options)) {
    if (!other->ok()) return other->status();
    std::vector<std::string>& notes = (*other)->diagnostics.notes;
    notes.insert(notes.begin(), loaded.diagnostics.notes.begin(), loaded.diagnostics.notes.end());
    if (absl::Status s = finish_loading(**other, options); !s.ok()) return s;
    return *std::move(*other);
  }
  if (!options.module_name.empty() && options.module_name_everywhere &&
      loaded.diagnostics.notes.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        options.module_option, " picks a module of a dump directory or a profile; '",
        loaded.file, "' is neither"));
  }
  absl::StatusOr<Module> module =
      file ? parse_module(*std::move(file), ParseOptions{.file_name = file_name})
           : parse_module(bytes, ParseOptions{.file_name = file_name});
  if (!module.ok() && options.read_cut_dump && from_file &&
      absl::StrContains(module.status().message(), "got end of input")) {
    // A cut dump (MaxText's reference programs stop at 2,000 lines): the computations before
    // the cut one are whole; they are read, and the cut one is dropped, saying so.
    absl::StatusOr<InputFile> again = read_input_file(loaded.file);
    std::optional<LoadedModule> whole;
    if (again.ok()) whole = load_complete_part(again->text(), loaded, file_name);
    if (whole) {
      if (absl::Status s = finish_loading(*whole, options); !s.ok()) return s;
      return *std::move(whole);
    }
  }
  if (!module.ok()) return explain_parse_error(module.status());
  loaded.module = *std::move(module);
  if (absl::Status s = finish_loading(loaded, options); !s.ok()) return s;
  return loaded;
}

}  // namespace

absl::StatusOr<std::vector<DumpModule>> dump_modules(const std::string& directory) {
  std::error_code error;
  fs::directory_iterator it(directory, error);
  if (error) {
    return absl::NotFoundError(
        absl::StrCat("cannot list the directory '", directory, "': ", error.message()));
  }
  std::vector<DumpModule> modules;
  std::vector<DumpModule> protos;
  absl::flat_hash_set<std::string> text_stems;  // the text modules' files, without the suffix
  for (const fs::directory_entry& entry : it) {
    const std::string file_name = entry.path().filename().string();
    const bool text = absl::EndsWith(file_name, sv(kOptimizedSuffix));
    const bool proto = absl::EndsWith(file_name, sv(kOptimizedProtoSuffix));
    if ((!text && !proto) || !entry.is_regular_file(error)) continue;
    const uintmax_t size = entry.file_size(error);
    DumpModule m{module_name_of(file_name), module_id_of(file_name), entry.path().string(),
                 error ? 0 : static_cast<int64_t>(size)};
    if (text) {
      text_stems.insert(m.file.substr(0, m.file.size() - kOptimizedSuffix.size()));
      modules.push_back(std::move(m));
    } else {
      protos.push_back(std::move(m));
    }
  }
  // A module dumped both ways is read from its text, as before the proto was dumped too.
  for (DumpModule& m : protos) {
    if (!text_stems.contains(m.file.substr(0, m.file.size() - kOptimizedProtoSuffix.size()))) {
      modules.push_back(std::move(m));
    }
  }
  if (modules.empty()) {
    return absl::NotFoundError(absl::StrCat(
        "cannot read '", directory, "': it is a directory with no *", sv(kOptimizedSuffix),
        " or *", sv(kOptimizedProtoSuffix), " file; give the directory "
        "XLA_FLAGS=--xla_dump_to=DIR wrote, or one HLO file"));
  }
  std::sort(modules.begin(), modules.end(), [](const DumpModule& a, const DumpModule& b) {
    return a.bytes != b.bytes ? a.bytes > b.bytes : a.file < b.file;
  });
  return modules;
}

absl::StatusOr<DumpModule> pick_dump_module(const std::vector<DumpModule>& modules,
                                            std::string_view module_name,
                                            std::string_view module_option) {
  if (modules.empty()) return absl::NotFoundError("no optimized module to pick from");
  // The latest compilation of `name`: ids are zero-padded, and the longer is the later.
  auto latest = [&](std::string_view name) {
    const DumpModule* best = nullptr;
    for (const DumpModule& m : modules) {
      if (m.name != name) continue;
      if (best == nullptr || m.id.size() > best->id.size() ||
          (m.id.size() == best->id.size() && m.id > best->id)) {
        best = &m;
      }
    }
    return best;
  };
  if (!module_name.empty()) {
    std::string_view id = module_name;
    if (absl::StartsWith(sv(id), "module_")) id.remove_prefix(7);
    for (const DumpModule& m : modules) {
      if (!m.id.empty() && m.id == id) return m;
    }
    if (const DumpModule* m = latest(module_name)) return *m;
    return absl::NotFoundError(absl::StrCat(sv(module_option), ": no module named '",
                                            sv(module_name), "' or numbered so; the dump holds ",
                                            module_list(modules)));
  }
  for (const DumpModule& m : modules) {  // largest first
    if (absl::StartsWith(m.name, "jit_")) return *latest(m.name);
  }
  return *latest(modules.front().name);
}

std::string no_entry_warning(const Module& module, std::string_view entry_naming) {
  if (module.entry_marked()) return "";
  return absl::StrCat(sv(kNoEntryMarked), ": as XLA does, the last one, ",
                      sv(module.entry()->name()), ", is taken as the entry, so the figures are "
                      "those of ", sv(module.entry()->name()),
                      " alone, not of a whole step, and there is no step time; ", sv(entry_naming),
                      " takes a computation as the step");
}

std::vector<std::string> input_warnings(const Module& module, std::string_view file,
                                        std::string_view entry_naming) {
  std::vector<std::string> warnings;
  if (std::string w = no_entry_warning(module, entry_naming); !w.empty()) {
    warnings.push_back(std::move(w));
  }
  // The dump's file name says which it is; otherwise the module's shape tells.
  const bool named_before = absl::StrContains(sv(file), "before_optimizations");
  const bool named_after = absl::StrContains(sv(file), "after_optimizations");
  if (named_before ||
      (!named_after && !module.attributes().is_scheduled && !has_fusion(module) &&
       has_unfused_elementwise_chain(module))) {
    warnings.push_back(absl::StrCat(
        named_before ? "the file is named as XLA's dump before optimization"
                     : "the module looks like HLO before optimization (no fusion, not scheduled, "
                       "chains of elementwise ops)",
        ": its ops are not fused, so memory traffic is overstated, and collectives run in "
        "printed order without overlap; give the *after_optimizations.txt file of the same "
        "dump (or its directory) instead"));
  }
  return warnings;
}

absl::Status explain_parse_error(const absl::Status& status) {
  if (!absl::StrContains(status.message(), "got end of input")) return status;
  // A file that ends before any computation begins (`HloModule` alone) holds no module; one
  // that ends inside a computation was cut.
  const bool header_only = absl::StrContains(status.message(), "expected the module name") ||
                           absl::StrContains(status.message(), "expected a computation");
  const std::string_view kNote =
      header_only ? "\nnote: the file holds a module header and no computation, so no module "
                    "(an empty dump, or the first line of one?)"
                  : "\nnote: the file ends inside a computation: truncated? (a dump cut off, a "
                    "partial copy)";
  absl::Status explained(status.code(), absl::StrCat(status.message(), sv(kNote)));
  // The error's location (parse_error_location: line, column, reason) goes with it, the note
  // after its reason.
  status.ForEachPayload([&](absl::string_view url, const absl::Cord& payload) {
    explained.SetPayload(url, absl::Cord(absl::StrCat(std::string(payload), sv(kNote))));
  });
  return explained;
}

absl::StatusOr<LoadedModule> load_module(const std::string& path, const LoadOptions& options) {
  LoadedModule loaded;
  loaded.file = path;
  std::error_code error;
  if (path != "-" && fs::is_directory(path, error)) {
    absl::StatusOr<std::vector<DumpModule>> modules = dump_modules(path);
    if (!modules.ok()) return modules.status();
    absl::StatusOr<DumpModule> picked =
        pick_dump_module(*modules, options.module_name, options.module_option);
    if (!picked.ok()) return picked.status();
    loaded.file = picked->file;
    loaded.diagnostics.notes.push_back(
        absl::StrCat("read module ", picked->name, " (", loaded.file, ") of the ", modules->size(),
                     " optimized module(s) in ", path, ": ", module_list(*modules),
                     options.module_name.empty()
                         ? absl::StrCat("; ", options.module_option, " NAME reads another")
                         : ""));
  }
  absl::StatusOr<InputFile> text = read_input_file(loaded.file);
  if (!text.ok()) return text.status();
  const std::string file_name = loaded.file == "-" ? options.stdin_name : loaded.file;
  return load_bytes(*std::move(text), {}, std::move(loaded), file_name, options);
}

absl::StatusOr<LoadedModule> load_module(const ModuleBytes& input, const LoadOptions& options) {
  LoadedModule loaded;
  loaded.file = input.name;
  const std::string file_name = input.name == "-" ? options.stdin_name : input.name;
  return load_bytes(std::nullopt, input.bytes, std::move(loaded), file_name, options);
}

InputForm input_form(std::string_view s) {
  constexpr size_t kMaxPath = 4096;
  if (s.empty() || s.size() >= kMaxPath || s.find_first_of(std::string_view("\n\0", 2)) !=
                                               std::string_view::npos) {
    return InputForm::kText;
  }
  std::error_code error;
  const fs::path path{std::string(s)};
  if (fs::is_regular_file(path, error) || fs::is_directory(path, error)) return InputForm::kPath;
  // One line without braces, with a folder separator or a file extension of 1 to 8 letters or
  // digits at its end: only a path.
  if (s.find('{') != std::string_view::npos) return InputForm::kText;
  if (s.find_first_of("/\\") != std::string_view::npos) return InputForm::kMissingPath;
  const size_t dot = s.rfind('.');
  if (dot == std::string_view::npos) return InputForm::kText;
  const std::string_view extension = s.substr(dot + 1);
  const bool word = !extension.empty() && extension.size() <= 8 &&
                    std::all_of(extension.begin(), extension.end(),
                                [](char c) { return absl::ascii_isalnum(c); });
  return word ? InputForm::kMissingPath : InputForm::kText;
}

absl::StatusOr<LoadedModule> load_path_or_text(std::string_view path_or_text,
                                               const LoadOptions& options,
                                               std::string_view text_name) {
  switch (input_form(path_or_text)) {
    case InputForm::kPath:
      // A file named "-" is that file, not standard input.
      return load_module(path_or_text == "-" ? std::string("./-") : std::string(path_or_text),
                         options);
    case InputForm::kMissingPath:
      return absl::NotFoundError(str_cat(
          "cannot read '", path_or_text,
          "': no such file; check the path (a string of HLO text holds a computation in braces)"));
    case InputForm::kText:
      break;
  }
  return load_module(ModuleBytes{.bytes = path_or_text, .name = std::string(text_name)}, options);
}

}  // namespace hloroof
