// Reading XLA's serialized HLO: `HloModuleProto` (the `*.hlo.pb` files of
// `--xla_dump_hlo_as_proto`) and `HloProto` (the module with XLA's buffer assignment, as profiles
// carry it); hloroof/hlo_proto_writer.h writes them. The schema is lib/proto/hlo.proto, a
// subset of XLA's with its field numbers; docs/profiles.md says which fields map to which
// attribute.
#ifndef HLOROOF_HLO_PROTO_H_
#define HLOROOF_HLO_PROTO_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "hloroof/hlo_text.h"
#include "hloroof/module.h"

namespace hloroof {

// Parses a serialized `HloProto` or `HloModuleProto` (told apart by their contents) into the
// module the text parser builds from the text XLA prints for it: the same names, shapes and
// layouts, attributes, called computations, schedule order, metadata and stack frames, so that
// print(module) is that text. Every instruction goes through the text parser's checks.
// Malformed bytes, dangling ids and values the text cannot hold are errors that name the
// computation and instruction; nothing in the bytes can crash the reader.
// As XLA's dumps do, constants of more than 10 elements print as `{...}`. Header attributes
// that live in XLA's module config rather than in the proto
// (`allow_spmd_sharding_propagation_*`) are absent; `replica_count` and `num_partitions` come
// from the proto's device assignment.
absl::StatusOr<Module> parse_hlo_proto(std::string_view bytes, const ParseOptions& options = {});

// True when `bytes` parse as an `HloProto` or `HloModuleProto` with at least one computation
// (how inputs are recognized by content).
bool is_hlo_proto(std::string_view bytes);

// What an input file holds, told by its content (not its name).
enum class InputKind {
  kEmpty,     // nothing, or only white space
  kHloText,   // anything else that is text: read as HLO text
  kHloProto,  // an HloProto or HloModuleProto (is_hlo_proto)
  kXSpace,    // a profile's XSpace (planes named "/device:...", "/host:...")
  kJson,      // JSON: a trace, a device spec, a report
  kMlir,      // StableHLO / MHLO / MLIR text (`module @...`, `func.func`)
  kBinary,    // other bytes that are not text
  kUtf16,     // text in UTF-16 (a byte-order mark, or every other byte NUL), not UTF-8
};
InputKind detect_input_kind(std::string_view bytes);
// "HLO text", "an HloProto", "an XSpace profile", "JSON", "StableHLO/MLIR text", ...
std::string_view input_kind_name(InputKind kind);
// For kinds that are not an HLO module: what the file is and what to give instead, one
// sentence that names `path` ("-": standard input; "": the input); the bytes themselves are
// never quoted. Empty for the others.
std::string input_kind_advice(InputKind kind, std::string_view path);

// XLA's own buffer assignment (`HloProto.buffer_assignment`), summarized per allocation.
struct XlaAllocation {
  int64_t index = 0;
  int64_t size_bytes = 0;
  int64_t color = 0;  // the memory space: 0 device memory, 5 pinned host on TPU
  bool is_entry_parameter = false;
  int64_t parameter_number = -1;  // when is_entry_parameter
  bool maybe_live_out = false;    // holds (part of) the output
  bool is_constant = false;
  bool is_thread_local = false;
  bool is_tuple = false;
  // What kind of allocation this is: "parameter", "output", "constant", "thread-local", "temp".
  std::string_view kind() const;
  // The instructions whose buffers it holds (names, each once, largest buffer first): the
  // first kMaxListedBuffers, within kMaxListedNameBytes of names (and, over all allocations,
  // the message's size plus 1 MiB); buffers_not_listed counts the rest.
  std::vector<std::string> buffers;
  int64_t buffers_not_listed = 0;
  static constexpr size_t kMaxListedBuffers = 256;
  static constexpr size_t kMaxListedNameBytes = size_t{1} << 16;
};
struct XlaBufferAssignment {
  std::vector<XlaAllocation> allocations;  // in XLA's index order
  // Sums over allocations of each kind, in bytes; an allocation that is both a parameter and
  // live out counts as a parameter.
  int64_t parameter_bytes = 0;
  int64_t output_bytes = 0;
  int64_t constant_bytes = 0;
  int64_t temp_bytes = 0;
  int64_t thread_local_bytes = 0;
  int64_t total_bytes() const {
    return parameter_bytes + output_bytes + constant_bytes + temp_bytes;
  }
};
// The buffer assignment of a serialized `HloProto`; nullopt-like empty allocations when it has
// none (an `HloModuleProto`, or an `HloProto` without field 3). Errors on malformed bytes.
absl::StatusOr<XlaBufferAssignment> read_xla_buffer_assignment(std::string_view bytes);

// The messages of a serialized `HloProto` or `HloModuleProto`, parsed once and kept, so that
// telling the bytes apart (detect_input_kind), reading the module and reading XLA's buffer
// assignment do not each parse the bytes again. It does not refer to the bytes once made.
class ParsedHloProto {
 public:
  // Nothing parsed: ok() is false, and module() says the input is empty.
  ParsedHloProto();
  // Parses `bytes` as parse_hlo_proto and is_hlo_proto do.
  explicit ParsedHloProto(std::string_view bytes);
  ParsedHloProto(ParsedHloProto&&) noexcept;
  ParsedHloProto& operator=(ParsedHloProto&&) noexcept;
  ~ParsedHloProto();

  // is_hlo_proto(bytes) of the bytes it was made from.
  bool ok() const;
  // parse_hlo_proto(bytes, options): the module, or the same error.
  absl::StatusOr<Module> module(const ParseOptions& options = {}) const;
  // read_xla_buffer_assignment(bytes): the same allocations, or the same error.
  absl::StatusOr<XlaBufferAssignment> xla_buffer_assignment() const;

 private:
  friend InputKind detect_input_kind(std::string_view bytes, ParsedHloProto* parsed);
  struct Messages;
  std::unique_ptr<Messages> messages_;  // null when the bytes are no HLO proto
  bool empty_input_ = true;
  // Why the bytes were refused before decoding (their messages would take many times their
  // size); empty when they were not.
  std::string refused_;
};

// detect_input_kind(bytes), and in `parsed` the bytes as ParsedHloProto(bytes) reads them:
// when the kind is kHloProto, the messages it was told by (their module and buffer assignment,
// without a second parse); for other kinds, nothing (ok() false; module() and
// xla_buffer_assignment() give the errors parse_hlo_proto and read_xla_buffer_assignment give
// for the bytes).
InputKind detect_input_kind(std::string_view bytes, ParsedHloProto* parsed);

}  // namespace hloroof

#endif  // HLOROOF_HLO_PROTO_H_
