#include "input.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <optional>
#include <system_error>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli.h"
#include "absl/strings/ascii.h"
#include "hloroof/hlo_proto.h"
#include "hloroof/hlo_text.h"
#include "hloroof/platform.h"
#include "hloroof/profile.h"
#include "nlohmann/json.hpp"
#include "hloroof/units.h"
#include "report/csv_text.h"
#include "report/wrap.h"
#include "util/absl_compat.h"
#include "util/text_safety.h"
#include "util/threads.h"

namespace hloroof::cli {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kOptimizedSuffix = "after_optimizations.txt";
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
  return std::string(file_name.substr(0, file_name.size() - kOptimizedSuffix.size()));
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

}  // namespace

absl::StatusOr<std::vector<DumpModule>> dump_modules(const std::string& directory) {
  std::error_code error;
  fs::directory_iterator it(directory, error);
  if (error) {
    return absl::NotFoundError(
        absl::StrCat("cannot list the directory '", directory, "': ", error.message()));
  }
  std::vector<DumpModule> modules;
  for (const fs::directory_entry& entry : it) {
    const std::string file_name = entry.path().filename().string();
    if (!absl::EndsWith(file_name, sv(kOptimizedSuffix)) || !entry.is_regular_file(error)) continue;
    const uintmax_t size = entry.file_size(error);
    modules.push_back({module_name_of(file_name), module_id_of(file_name), entry.path().string(),
                       error ? 0 : static_cast<int64_t>(size)});
  }
  if (modules.empty()) {
    return absl::NotFoundError(absl::StrCat(
        "cannot read '", directory, "': it is a directory with no *", sv(kOptimizedSuffix),
        " file; give the directory XLA_FLAGS=--xla_dump_to=DIR wrote (with"
        " --xla_dump_hlo_as_text, the default), or one HLO file"));
  }
  std::sort(modules.begin(), modules.end(), [](const DumpModule& a, const DumpModule& b) {
    return a.bytes != b.bytes ? a.bytes > b.bytes : a.file < b.file;
  });
  return modules;
}

absl::StatusOr<DumpModule> pick_dump_module(const std::vector<DumpModule>& modules,
                                            std::string_view module_name) {
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
    return absl::NotFoundError(absl::StrCat("--module: no module named '", sv(module_name),
                                            "' or numbered so; the dump holds ",
                                            module_list(modules)));
  }
  for (const DumpModule& m : modules) {  // largest first
    if (absl::StartsWith(m.name, "jit_")) return *latest(m.name);
  }
  return *latest(modules.front().name);
}

std::string no_entry_warning(const Module& module) {
  if (module.entry_marked()) return "";
  return absl::StrCat(
      "no computation is marked ENTRY (a dump cut off before its end?): as XLA does, the last "
      "one, ",
      sv(module.entry()->name()), ", is taken as the entry, so the figures are those of ",
      sv(module.entry()->name()),
      " alone, not of a whole step, and there is no step time; --entry NAME takes a "
      "computation as the step");
}

std::vector<std::string> input_warnings(const Module& module, std::string_view file) {
  std::vector<std::string> warnings;
  if (std::string w = no_entry_warning(module); !w.empty()) warnings.push_back(std::move(w));
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

std::optional<absl::StatusOr<LoadedModule>> load_non_text(std::string_view bytes,
                                                          const std::string& file,
                                                          std::string_view module_name) {
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
  std::string module_file = file == "-" ? "<stdin>" : file;
  if (kind == InputKind::kXSpace) {
    absl::StatusOr<Profile> profile = parse_xspace(bytes, file);
    if (!profile.ok()) return absl::StatusOr<LoadedModule>(profile.status());
    std::string note;
    absl::StatusOr<const ProfileModuleProto*> picked =
        pick_profile_module(*profile, module_name, &note);
    if (!picked.ok()) return absl::StatusOr<LoadedModule>(picked.status());
    loaded.notes.push_back(note);
    loaded.profile_device_kind = profile_device_type(*profile);
    if (!loaded.profile_device_kind.empty()) {
      loaded.profile_device = device_for_kind(loaded.profile_device_kind).device;
    }
    proto = ParsedHloProto((*picked)->hlo_proto);
    module_file = absl::StrCat(module_file, ":", (*picked)->name);
    loaded.profile_module = (*picked)->name;
  } else {
    if (!module_name.empty()) {
      return absl::StatusOr<LoadedModule>(absl::InvalidArgumentError(absl::StrCat(
          "--module picks a module of a dump directory or a profile; '", file,
          "' is an HLO proto, which holds one")));
    }
  }
  // The module and XLA's buffer assignment from the one parse of the bytes.
  absl::StatusOr<Module> module = proto.module(ParseOptions{.file_name = module_file});
  if (!module.ok()) return absl::StatusOr<LoadedModule>(module.status());
  loaded.module = *std::move(module);
  loaded.xla_assignment = proto.xla_buffer_assignment();
  proto = ParsedHloProto();  // the messages are read: their memory goes back
  loaded.warnings = input_warnings(loaded.module, file);
  return absl::StatusOr<LoadedModule>(std::move(loaded));
}

namespace {

// Takes --entry's computation as the step, and says what the figures are of when they are not
// the input's whole step; then the input's other warnings.
absl::Status finish_loading(LoadedModule& loaded, std::string_view entry) {
  Module& module = loaded.module;
  const std::string marked = module.entry_marked() ? std::string(module.entry()->name()) : "";
  if (!entry.empty()) {
    absl::Status s = module.set_entry(entry);
    if (!s.ok()) return absl::Status(s.code(), absl::StrCat("--entry: ", s.message()));
  }
  const std::string taken(module.entry()->name());
  loaded.entry_marked = !marked.empty() && marked == taken;
  if (!module.entry_marked()) {
    loaded.banner = no_entry_warning(module);
  } else if (marked.empty()) {
    loaded.banner = absl::StrCat(
        "no computation is marked ENTRY (a dump cut off before its end?); --entry takes ", taken,
        " as the step, so the figures are those of ", taken, " alone, not of a whole program");
  } else if (!loaded.entry_marked) {
    loaded.banner = absl::StrCat("--entry takes ", taken, " as the step, not the module's ENTRY ",
                                 marked, ": the figures are those of ", taken, " alone");
  }
  std::vector<std::string> warnings = input_warnings(module, loaded.file);
  // The banner says it already.
  if (!warnings.empty() && !module.entry_marked()) warnings.erase(warnings.begin());
  // Warnings of the reading itself (a computation cut off) first; the input's once.
  std::vector<std::string> kept;
  for (std::string& w : loaded.warnings) {
    if (std::find(warnings.begin(), warnings.end(), w) == warnings.end()) {
      kept.push_back(std::move(w));
    }
  }
  kept.insert(kept.end(), std::make_move_iterator(warnings.begin()),
              std::make_move_iterator(warnings.end()));
  loaded.warnings = std::move(kept);
  return absl::OkStatus();
}

}  // namespace

namespace {

// The module of `loaded.file` without its last computation, which the file cuts off: the text
// up to the last line that opens a computation (no indent, ending in '{'), parsed. Nothing when
// no such line leaves a text that parses.
std::optional<LoadedModule> load_complete_part(const LoadedModule& loaded,
                                               const std::string& file_name) {
  absl::StatusOr<InputFile> again = read_input(loaded.file);
  if (!again.ok()) return std::nullopt;
  const std::string_view text = again->text();
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
      out.notes = loaded.notes;
      out.module = *std::move(part);
      const size_t line_number =
          1 + static_cast<size_t>(std::count(text.begin(), text.begin() + start, '\n'));
      std::string_view name = line.substr(0, line.find_first_of(" ({"));
      if (name == "ENTRY") name = line.substr(6, line.substr(6).find_first_of(" ({"));
      if (!name.empty() && name.front() == '%') name.remove_prefix(1);
      const size_t whole = out.module.computations().size();
      out.warnings.push_back(absl::StrCat(
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

}  // namespace

absl::Status explain_parse_error(const absl::Status& status) {
  if (!absl::StrContains(status.message(), "got end of input")) return status;
  return absl::Status(status.code(),
                      absl::StrCat(status.message(),
                                   "\nnote: the file ends inside a computation: truncated? (a "
                                   "dump cut off, a partial copy)"));
}

absl::StatusOr<LoadedModule> load_module(const std::string& path, std::string_view module_name,
                                         std::string_view entry) {
  LoadedModule loaded;
  loaded.file = path;
  std::error_code error;
  if (path != "-" && fs::is_directory(path, error)) {
    absl::StatusOr<std::vector<DumpModule>> modules = dump_modules(path);
    if (!modules.ok()) return modules.status();
    absl::StatusOr<DumpModule> picked = pick_dump_module(*modules, module_name);
    if (!picked.ok()) return picked.status();
    loaded.file = picked->file;
    loaded.notes.push_back(absl::StrCat(
        "read module ", picked->name, " (", loaded.file, ") of the ", modules->size(),
        " optimized module(s) in ", path, ": ", module_list(*modules),
        module_name.empty() ? "; --module NAME reads another" : ""));
  }
  absl::StatusOr<InputFile> text = read_input(loaded.file);
  if (!text.ok()) return text.status();
  const std::string file_name = loaded.file == "-" ? "" : loaded.file;
  if (std::optional<absl::StatusOr<LoadedModule>> other =
          load_non_text(text->text(), loaded.file, module_name)) {
    if (!other->ok()) return other->status();
    (*other)->notes.insert((*other)->notes.begin(), loaded.notes.begin(), loaded.notes.end());
    if (absl::Status s = finish_loading(**other, entry); !s.ok()) return s;
    return *std::move(*other);
  }
  if (!module_name.empty() && loaded.notes.empty()) {
    return absl::InvalidArgumentError("--module picks a module of a dump directory or a "
                                      "profile; '" + path + "' is neither");
  }
  absl::StatusOr<Module> module =
      parse_module(*std::move(text), ParseOptions{.file_name = file_name});
  if (!module.ok() && loaded.file != "-" &&
      absl::StrContains(module.status().message(), "got end of input")) {
    // A cut dump (MaxText's reference programs stop at 2,000 lines): the computations before
    // the cut one are whole; they are read, and the cut one is dropped, saying so.
    if (std::optional<LoadedModule> whole = load_complete_part(loaded, file_name)) {
      if (absl::Status s = finish_loading(*whole, entry); !s.ok()) return s;
      return *std::move(whole);
    }
  }
  if (!module.ok()) return explain_parse_error(module.status());
  loaded.module = *std::move(module);
  if (absl::Status s = finish_loading(loaded, entry); !s.ok()) return s;
  return loaded;
}

void print_input_messages(const LoadedModule& loaded, bool with_banner) {
  // File and module names print with their control characters escaped.
  // Wrapped to 100 columns.
  for (const std::string& n : loaded.notes) {
    std::cerr << report_internal::wrap(printable(n), "note: ", "  ");
  }
  if (with_banner && !loaded.banner.empty()) {
    std::cerr << report_internal::wrap(printable(loaded.banner), "warning: ", "  ");
  }
  for (const std::string& w : loaded.warnings) {
    std::cerr << report_internal::wrap(printable(w), "warning: ", "  ");
  }
}

std::string banner_text(const LoadedModule& loaded) {
  if (loaded.banner.empty()) return "";
  return absl::StrCat(report_internal::wrap(printable(loaded.banner), "NOT A WHOLE STEP: ", "  "),
                      "\n");
}

std::string settings_note(const Args& args) {
  const std::vector<std::string> settings = args.all("--set");
  if (settings.empty()) return "";
  return absl::StrCat("device figures set: ", absl::StrJoin(settings, ", "));
}

void prepend_input_notes(const LoadedModule& loaded, const DeviceTarget& choice,
                         Prediction& prediction) {
  std::vector<std::string> said = loaded.warnings;
  said.insert(said.end(), choice.notes.begin(), choice.notes.end());
  prediction.assumptions.insert(prediction.assumptions.begin(), said.begin(), said.end());
  if (!loaded.banner.empty()) {
    prediction.warnings.insert(prediction.warnings.begin(), loaded.banner);
  }
  prediction.warnings.insert(prediction.warnings.end(), choice.warnings.begin(),
                             choice.warnings.end());
}

std::string device_or_profile(const std::string& given, const LoadedModule& loaded) {
  if (!given.empty() || loaded.profile_device.empty()) return given;
  print_message("note: ", absl::StrCat("device ", loaded.profile_device,
                                       " from the profile, which ran on '",
                                       loaded.profile_device_kind,
                                       "' (the profile's device plane); --device overrides it"));
  return loaded.profile_device;
}

absl::StatusOr<MeasuredDevice> measured_device(const Profile& profile,
                                               const std::string& profile_path) {
  MeasuredDevice out;
  out.kind = profile_device_type(profile);
  if (!out.kind.empty()) {
    out.source = "the profile's device plane";
  } else {
    // Only the capture's own meta.json: in the folder given, beside the file, or, for a file
    // at LOGDIR/plugins/profile/RUN/, in LOGDIR or the folder holding it (a capture keeps its
    // profile in a log folder of its own). A meta.json further up belongs to something else.
    std::error_code error;
    std::vector<fs::path> places;
    const fs::path given(profile_path);
    if (fs::is_directory(given, error)) {
      places.push_back(given);
      // A log folder given: the capture folder holding it too.
      if (fs::is_directory(given / "plugins" / "profile", error)) {
        places.push_back(given.parent_path());
      }
    } else {
      const fs::path run = given.parent_path();
      places.push_back(run);
      const fs::path profile_dir = run.parent_path();
      const fs::path plugins = profile_dir.parent_path();
      if (profile_dir.filename() == "profile" && plugins.filename() == "plugins") {
        places.push_back(plugins.parent_path());
        places.push_back(plugins.parent_path().parent_path());
      }
    }
    for (const fs::path& dir : places) {
      const fs::path meta = (dir.empty() ? fs::path(".") : dir) / "meta.json";
      if (!fs::is_regular_file(meta, error)) continue;
      absl::StatusOr<InputFile> text = read_input(meta.string());
      if (!text.ok()) return text.status();
      const nlohmann::json doc =
          nlohmann::json::parse(text->text().begin(), text->text().end(), nullptr, false);
      if (doc.is_object() && doc.contains("device_kind") && doc["device_kind"].is_string()) {
        out.kind = doc["device_kind"].get<std::string>();
        out.source = meta.string();
      }
      break;
    }
  }
  if (out.kind.empty()) return out;
  const KindDevice d = device_for_kind(out.kind);
  out.device = d.device;
  out.platform = d.platform;
  return out;
}

absl::Status check_same_platform(const MeasuredDevice& measured, const DeviceSpec& spec) {
  if (measured.platform.empty()) return absl::OkStatus();
  const std::string_view predicted = device_kind_name(spec.kind);
  if (predicted == measured.platform) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "the profile was measured on '", measured.kind, "' (a ",
      absl::AsciiStrToUpper(measured.platform), ", read from ", measured.source,
      ") and the prediction is for ", spec.name, " (a ",
      absl::AsciiStrToUpper(std::string(predicted)),
      "): a profile is joined with a prediction for its own device; give --device ",
      measured.device.empty() ? "for that device" : measured.device));
}

namespace {

// Rows made into one piece of text before it is written (about 300 KiB): few enough that each
// thread holds one at a time, many enough that threads seldom wait for each other's turn.
constexpr size_t kRowsPerPiece = 256;

// The CSV rows of ops[begin, end) appended to `out`, cell by cell; an explanation (a text of
// the prediction's pool, shared by the ops it explains) quoted once (`quoted` keeps them).
void append_op_rows(std::string& out, const std::vector<OpPrediction>& ops, size_t begin,
                    size_t end, std::string_view device,
                    absl::flat_hash_map<std::pair<const char*, size_t>, std::string>& quoted) {
  using report_internal::append_csv_cell;
  using report_internal::append_csv_number;
  // Cells each followed by a comma (every row ends with its explanation).
  const auto texts = [&](std::initializer_list<std::string_view> cells) {
    for (std::string_view cell : cells) {
      append_csv_cell(out, cell);
      out += ',';
    }
  };
  const auto numbers = [&](std::initializer_list<double> cells) {
    for (double x : cells) {
      append_csv_number(out, x);
      out += ',';
    }
  };
  for (size_t i = begin; i < end; ++i) {
    const OpPrediction& op = ops[i];
    const CollectivePrediction* c = op.collective.get();
    const AsyncPrediction* a = op.async.get();
    if (!device.empty()) texts({device});
    texts({op.name(), op.opcode(), op.computation(), op.category(), op.op_name()});
    numbers({op.multiplier, op.time_s, op.total_time_s(), op.roofline_time_s,
             op.total_roofline_time_s(), op.efficiency});
    texts({op.model(), op_bound_name(op), resource_name(op)});
    numbers({op.flops, op.matrix_flops, op.transcendentals, op.hbm_bytes, op.on_chip_bytes,
             op.host_bytes});
    if (c != nullptr) {
      texts({c->kind});
      append_csv_number(out, c->payload_bytes);
      absl::StrAppend(&out, ",", c->group_size, ",");
      numbers({c->time_s, c->exposed_s, c->hidden_s});
    } else {
      out += ",,,,,,";
    }
    if (a != nullptr) {
      texts({a->stream, a->start, a->done});
      numbers({a->latency_s, a->hidden_s, a->exposed_s});
    } else {
      out += ",,,,,,";
    }
    const std::string_view e = op.explanation();
    auto [it, added] = quoted.try_emplace(std::pair(e.data(), e.size()));
    if (added) append_csv_cell(it->second, e);
    out += it->second;
    out += '\n';
  }
}

}  // namespace

void write_ops_csv(std::ostream& out_stream, const Prediction& prediction, bool device_column,
                   bool header, int threads) {
  std::vector<std::string> names = {
      "name", "opcode", "computation", "category", "op_name", "multiplier", "time_s",
      "total_time_s", "roofline_time_s", "total_roofline_time_s", "efficiency", "model",
      "bound", "resource", "flops", "matrix_flops", "transcendentals", "hbm_bytes",
      "on_chip_bytes", "host_bytes", "collective.kind", "collective.payload_bytes",
      "collective.group_size", "collective.time_s", "collective.exposed_s",
      "collective.hidden_s", "async.stream", "async.start", "async.done", "async.latency_s",
      "async.hidden_s", "async.exposed_s", "explanation"};
  if (device_column) names.insert(names.begin(), "device");
  if (header) out_stream << csv_line(names);
  const std::string device =
      device_column ? absl::StrCat(prediction.device, ":", prediction.topology) : "";
  const std::vector<OpPrediction>& ops = prediction.ops;
  // Pieces of rows, made by `threads` threads at once (each takes the next piece not taken)
  // and written in order.
  struct Maker {
    std::string out;
    absl::flat_hash_map<std::pair<const char*, size_t>, std::string> quoted;
  };
  detail::make_pieces_in_order(
      (ops.size() + kRowsPerPiece - 1) / kRowsPerPiece, threads, [] { return Maker(); },
      [&](Maker& m, size_t k) {
        const size_t begin = k * kRowsPerPiece;
        m.out.clear();
        append_op_rows(m.out, ops, begin, std::min(ops.size(), begin + kRowsPerPiece), device,
                       m.quoted);
      },
      [&](Maker& m) { out_stream << m.out; });
}

}  // namespace hloroof::cli
