// detect_input_kind: what an input holds, by its bytes.
#include <string>

#include "hloroof/hlo_proto.h"
#include "hloroof/absl_compat.h"
#include "proto/hlo.pb.h"

namespace hloroof {
namespace {

bool is_space(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }

bool looks_like_xspace(std::string_view bytes) {
  if (bytes.size() > static_cast<size_t>(INT32_MAX)) return false;
  xla_proto::XSpaceProbe probe;
  if (!probe.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) return false;
  for (const auto& plane : probe.planes()) {
    if (plane.name().rfind("/device:", 0) == 0 || plane.name().rfind("/host:", 0) == 0) {
      return true;
    }
  }
  return false;
}

// Text has no NUL or other control bytes than tab, newline, carriage return and form feed in
// its first 64 KiB (bytes that are not UTF-8 may sit in its strings: they are read as written).
bool looks_binary(std::string_view bytes) {
  for (char ch : bytes.substr(0, 64 * 1024)) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f') || c == 0x7f) return true;
  }
  return false;
}

// UTF-16 text: its byte-order mark (FF FE, FE FF), or, without one, ASCII characters of two
// bytes each, the high one NUL, through its first 64 bytes.
bool looks_utf16(std::string_view bytes) {
  if (bytes.size() >= 2 && ((bytes[0] == '\xff' && bytes[1] == '\xfe') ||
                            (bytes[0] == '\xfe' && bytes[1] == '\xff'))) {
    return true;
  }
  const std::string_view head = bytes.substr(0, 64);
  if (head.size() < 4 || head.size() % 2 != 0) return false;
  for (size_t zero : {size_t{0}, size_t{1}}) {  // big-endian, then little-endian
    bool all = true;
    for (size_t k = 0; k + 1 < head.size() && all; k += 2) {
      const unsigned char c = static_cast<unsigned char>(head[k + 1 - zero]);
      all = head[k + zero] == '\0' && c >= 0x09 && c < 0x7f;
    }
    if (all) return true;
  }
  return false;
}

bool is_lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// A line of an HLO computation: `[ROOT ]NAME = SHAPE OPCODE(...)`, the shape a primitive type
// with its dimensions (`f32[8]`, `pred[]`, `token[]`) or a tuple of them (`(f32[], s32[])`,
// `()`). In MLIR an op's name follows the `=` (`%0 = stablehlo.add`, `%1:2 = "mhlo.if"`),
// never a shape.
bool is_instruction_line(std::string_view line) {
  const size_t equals = line.find(" = ");
  if (equals == std::string_view::npos) return false;
  std::string_view shape = line.substr(equals + 3);
  while (!shape.empty() && shape.front() == ' ') shape.remove_prefix(1);
  if (!shape.empty() && shape.front() == '(') {
    shape.remove_prefix(1);
    while (!shape.empty() && shape.front() == ' ') shape.remove_prefix(1);
    if (!shape.empty() && (shape.front() == ')' || shape.front() == '(')) return true;
  }
  size_t type = 0;
  while (type < shape.size() && is_lower_alnum(shape[type])) ++type;
  return type > 0 && type < shape.size() && shape[type] == '[' && shape.front() >= 'a' &&
         shape.front() <= 'z';
}

}  // namespace

InputKind detect_input_kind(std::string_view bytes) { return detect_input_kind(bytes, nullptr); }

InputKind detect_input_kind(std::string_view bytes, ParsedHloProto* parsed) {
  ParsedHloProto here;
  if (parsed == nullptr) parsed = &here;
  size_t first = 0;
  while (first < bytes.size() && is_space(bytes[first])) ++first;
  if (first == bytes.size()) {
    // White space is never a proto with computations (the tag of one, 0x1a, is not white
    // space): nothing to parse.
    *parsed = ParsedHloProto();
    parsed->empty_input_ = bytes.empty();
    return InputKind::kEmpty;
  }
  *parsed = ParsedHloProto(bytes);  // failed, it holds no messages
  if (parsed->ok()) return InputKind::kHloProto;
  if (looks_like_xspace(bytes)) return InputKind::kXSpace;
  // A proto refused for its size: module() says why.
  if (!parsed->refused_.empty()) return InputKind::kHloProto;
  if (looks_utf16(bytes)) return InputKind::kUtf16;
  if (looks_binary(bytes)) return InputKind::kBinary;
  const char c = bytes[first];
  if (c == '{' || c == '[') {
    size_t next = first + 1;
    while (next < bytes.size() && is_space(bytes[next])) ++next;
    if (next == bytes.size() || bytes[next] == '"' || bytes[next] == '{' ||
        bytes[next] == '[' || bytes[next] == ']' || bytes[next] == '}') {
      return InputKind::kJson;
    }
  }
  // The head's lines outside `//` comments: XLA's own HLO test files hold FileCheck lines
  // ("// CHECK: func.func @main", "mhlo.constant") above and between computations, and many
  // have no HloModule header or ENTRY computation, which XLA's parser does not need. A line
  // that can only be an HLO instruction makes the text HLO whatever else it holds (an
  // attribute's "mhlo.sharding", a custom call's "stablehlo." target).
  std::string code;
  bool instruction = false;
  for (std::string_view head = bytes.substr(0, 64 * 1024); !head.empty();) {
    const size_t end = head.find('\n');
    std::string_view line = head.substr(0, end);
    head.remove_prefix(end == std::string_view::npos ? head.size() : end + 1);
    const size_t text = line.find_first_not_of(" \t\r");
    if (text != std::string_view::npos && line.substr(text, 2) == "//") continue;
    instruction = instruction || is_instruction_line(line);
    code.append(line);
    code.push_back('\n');
  }
  // Block comments say nothing of the kind either (`/* ENTRY */` in StableHLO).
  std::string uncommented;
  for (size_t at = 0; at < code.size();) {
    const size_t open = code.find("/*", at);
    uncommented.append(code, at, open == std::string::npos ? std::string::npos : open - at);
    if (open == std::string::npos) break;
    const size_t close = code.find("*/", open + 2);
    at = close == std::string::npos ? code.size() : close + 2;
  }
  code = std::move(uncommented);
  const bool hlo = instruction || code.find("HloModule") != std::string::npos ||
                   code.find("ENTRY") != std::string::npos;
  const size_t code_first = code.find_first_not_of(" \t\r\n\f");
  if (!hlo && (code.find("module @") != std::string::npos ||
               code.find("func.func") != std::string::npos ||
               code.find("stablehlo.") != std::string::npos ||
               code.find("mhlo.") != std::string::npos ||
               (code_first != std::string::npos && code.compare(code_first, 8, "module {") == 0))) {
    return InputKind::kMlir;
  }
  return InputKind::kHloText;
}

std::string_view input_kind_name(InputKind kind) {
  switch (kind) {
    case InputKind::kEmpty: return "an empty file";
    case InputKind::kHloText: return "HLO text";
    case InputKind::kHloProto: return "an HLO proto";
    case InputKind::kXSpace: return "an XSpace profile";
    case InputKind::kJson: return "JSON";
    case InputKind::kMlir: return "StableHLO/MLIR text";
    case InputKind::kBinary: return "a binary file";
    case InputKind::kUtf16: return "UTF-16 text";
  }
  return "";
}

std::string input_kind_advice(InputKind kind, std::string_view path) {
  std::string file = path == "-"   ? std::string("standard input")
                     : path.empty() ? std::string("the input")
                                    : str_cat("'", path, "'");
  switch (kind) {
    case InputKind::kEmpty:
      return str_cat(file, " is empty: give an HLO module (XLA's text dump, a *.hlo.pb proto) ",
                     "or a profile (*.xplane.pb)");
    case InputKind::kJson:
      return str_cat(file, " is JSON, not an HLO module: a trace goes to `hloroof profile HLO ",
                     "TRACE`, a device spec to --device; give the HLO text or proto XLA wrote ",
                     "(XLA_FLAGS=--xla_dump_to=DIR)");
    case InputKind::kMlir:
      return str_cat(file, " is StableHLO/MLIR text, which is what JAX lowers to before XLA ",
                     "compiles it; hloroof reads XLA's optimized HLO: ",
                     "jax.jit(f).lower(...).compile().as_text(), or the *after_optimizations.txt ",
                     "of XLA_FLAGS=--xla_dump_to=DIR");
    case InputKind::kBinary:
      return str_cat(file, " is a binary file but neither an HLO proto (xla.HloProto, ",
                     "xla.HloModuleProto) nor an XSpace profile; compressed? (uncompress it ",
                     "first: xz -d, gunzip)");
    case InputKind::kUtf16:
      return str_cat(file, " is UTF-16 text; hloroof reads UTF-8, as XLA writes it: convert it ",
                     "first (iconv -f UTF-16 -t UTF-8)");
    default:
      return {};
  }
}

}  // namespace hloroof
