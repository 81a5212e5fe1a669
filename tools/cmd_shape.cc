// `hloroof shape TEXT [--json]`: what a shape really occupies.
#include <iostream>

#include "absl/strings/str_format.h"
#include "cli.h"
#include "commands.h"
#include "hloroof/shape_size.h"
#include "hloroof/shape_text.h"
#include "hloroof/summary_json.h"

namespace hloroof::cli {
namespace {

// The flags and options the command takes (`hloroof completion` offers them).
ArgSpec arg_spec() {
  return {.flags = {"--json"}};
}

int run(const std::vector<std::string>& words) {
  absl::StatusOr<Args> args = parse_args(words, arg_spec());
  if (!args.ok()) return usage_error(args.status().message(), kShapeCommand.usage);
  if (args->flag("--help")) {
    print_help(kShapeCommand);
    return kExitOk;
  }
  if (args->positional.size() != 1) return usage_error("expected one shape", kShapeCommand.usage);
  absl::StatusOr<Shape> shape = parse_shape(args->positional[0]);
  if (!shape.ok()) return fail(shape.status());
  absl::StatusOr<ShapeSize> size = shape_size(*shape);
  if (!size.ok()) return fail(size.status());
  const int64_t space = common_memory_space(*shape);

  if (args->flag("--json")) {
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
    "and the memory space (S(n)).\n\n"
    "options:\n"
    "  --json   one JSON object: shape, elements, logical_bytes, padded_bytes,\n"
    "           padding_factor, memory_space\n\n"
    "example:\n"
    "  hloroof shape 'bf16[3,5]{1,0:T(8,128)(2,1)}'\n",
    run,
    "hloroof shape TEXT [--json]",
    arg_spec,
};

}  // namespace hloroof::cli
