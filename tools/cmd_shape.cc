// `hloroof shape TEXT [--json]`: what a shape really occupies.
#include <iostream>
#include <optional>

#include "absl/strings/str_format.h"
#include "cli.h"
#include "commands.h"
#include "hloroof/shape_size.h"
#include "hloroof/shape_text.h"
#include "hloroof/summary_json.h"

namespace hloroof::cli {
namespace {

constexpr Flag kJson{.name = "--json",
                     .help = "one JSON object: shape, elements, logical_bytes, padded_bytes, "
                             "padding_factor, memory_space"};

// The flags the command takes, in the order its help lists them.
constexpr const Flag* kFlags[] = {&kJson};

int run(const std::vector<std::string>& words) {
  int exit_code = kExitOk;
  std::optional<Args> args = parse_command_args(words, kShapeCommand, exit_code);
  if (!args) return exit_code;
  if (args->positional.size() != 1) return usage_error("expected one shape", kShapeCommand.usage);
  absl::StatusOr<Shape> shape = parse_shape(args->positional[0]);
  if (!shape.ok()) return fail(shape.status());
  absl::StatusOr<ShapeSize> size = shape_size(*shape);
  if (!size.ok()) return fail(size.status());
  const int64_t space = common_memory_space(*shape);

  if (args->flag(kJson)) {
    absl::StatusOr<std::string> json = shape_to_json(*shape);
    if (!json.ok()) return fail(json.status());
    std::cout << *json;
    return kExitOk;
  }
  std::cout << absl::StrFormat(
      "shape           %s\n"
      "elements        %d\n"
      "logical bytes   %d B\n"
      "padded bytes    %d B\n"
      "padding factor  %.4gx\n"
      "memory space    %s\n",
      to_string(*shape), size->elements, size->logical_bytes, size->padded_bytes,
      size->padding_factor(),
      space < 0 ? std::string("mixed")
                : absl::StrFormat("S(%d) %s", space, memory_space_name(space)));
  return kExitOk;
}

}  // namespace

const Command kShapeCommand = {
    "shape",
    "how many bytes a shape really occupies (tiling, padding, memory space)",
    "Prints the canonical shape, its element count, logical bytes (dense, sub-byte types\n"
    "packed), padded bytes (the layout's tiles applied, docs/sources.md), the padding factor\n"
    "and the memory space (S(n)).\n",
    run,
    "hloroof shape TEXT [--json]",
    kFlags,
    {},
    "example:\n"
    "  hloroof shape 'bf16[3,5]{1,0:T(8,128)(2,1)}'\n",
};

}  // namespace hloroof::cli
