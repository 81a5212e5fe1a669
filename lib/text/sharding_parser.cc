// Shardings (docs/hlo-text.md, "Attributes"): classic, tuple and named (mesh) forms.
#include <algorithm>

#include "absl/strings/str_join.h"
#include "hloroof/shape_text.h"
#include "hloroof/absl_compat.h"
#include "text/module_parser.h"

namespace hloroof::text {
namespace {

// Tuple shardings nest only one level in practice; the bound stops hostile input.
constexpr int kMaxTupleEntries = 1 << 20;

bool subgroup_type(TokenKind kind, Sharding::Type* out) {
  switch (kind) {
    case TokenKind::kw_manual:
      *out = Sharding::Type::kManual;
      return true;
    case TokenKind::kw_replicated:
      *out = Sharding::Type::kReplicated;
      return true;
    case TokenKind::kw_maximal:
      *out = Sharding::Type::kMaximal;
      return true;
    case TokenKind::kw_unreduced:
      *out = Sharding::Type::kUnreduced;
      return true;
    default:
      return false;
  }
}

}  // namespace

// sharding ::= '{' single_body '}' | '{' (single (',' single)*)? '}'
bool ModuleParser::parse_sharding(Sharding* out) {
  if (!expect(TokenKind::kLBrace, "to open the sharding")) return false;
  if (at(TokenKind::kLBrace) || at(TokenKind::kRBrace)) {
    out->type = Sharding::Type::kTuple;
    if (consume_if(TokenKind::kRBrace)) return true;
    do {
      if (out->elements.size() >= kMaxTupleEntries) return error_here("tuple sharding too long");
      Sharding& element = out->elements.emplace_back();
      if (!expect(TokenKind::kLBrace, "to open a tuple sharding element")) return false;
      if (!parse_single_sharding_body(&element)) return false;
      if (!expect(TokenKind::kRBrace, "to close a tuple sharding element")) return false;
    } while (consume_if(TokenKind::kComma));
    return expect(TokenKind::kRBrace, "to close the tuple sharding");
  }
  if (!parse_single_sharding_body(out)) return false;
  return expect(TokenKind::kRBrace, "to close the sharding");
}

// classic_body: parts separated by spaces, any order; or a named body (mesh[...]).
bool ModuleParser::parse_single_sharding_body(Sharding* out) {
  if (at(TokenKind::kIdent) && (tok_.text == "mesh" || tok_.text == "maximal_mesh")) {
    return parse_named_sharding_body(out);
  }
  Token start = tok_;
  bool has_type = false;
  bool has_devices = false;
  bool has_last_tile_dims = false;
  bool iota = false;
  auto set_type = [&](Sharding::Type type) {
    if (has_type)
      return error_here(
          "a sharding has only one of replicated, manual, unknown, "
          "unreduced, maximal and devices=");
    has_type = true;
    out->type = type;
    return true;
  };
  while (!at(TokenKind::kRBrace)) {
    if (at(TokenKind::kComma)) {
      return error_here("the parts of a sharding are separated by spaces, not commas");
    }
    Token part = tok_;
    switch (tok_.kind) {
      case TokenKind::kw_replicated:
      case TokenKind::kw_manual:
      case TokenKind::kw_unknown:
      case TokenKind::kw_unreduced: {
        Sharding::Type type = tok_.is(TokenKind::kw_replicated) ? Sharding::Type::kReplicated
                              : tok_.is(TokenKind::kw_manual)   ? Sharding::Type::kManual
                              : tok_.is(TokenKind::kw_unknown)  ? Sharding::Type::kUnknown
                                                                : Sharding::Type::kUnreduced;
        if (!set_type(type)) return false;
        advance();
        continue;
      }
      case TokenKind::kw_maximal:
        if (!set_type(Sharding::Type::kMaximal)) return false;
        advance();
        if (!at(TokenKind::kAttr) || tok_.name() != "device") return expected("device=N");
        advance();
        if (!parse_int(&out->device, "the device of a maximal sharding")) return false;
        continue;
      case TokenKind::kw_last_tile_dim_replicate:
        out->last_tile_dim_replicate = true;
        advance();
        continue;
      case TokenKind::kw_shard_as:
      case TokenKind::kw_shard_like:
        out->shard_as = tok_.is(TokenKind::kw_shard_as);
        advance();
        if (!parse_int(&out->shard_group_id, "the sharding group id")) return false;
        continue;
      case TokenKind::kAttr:
        break;
      default:
        return expected("a sharding part (replicated, devices=..., metadata=..., ...) or '}'");
    }
    std::string_view key = tok_.name();
    advance();
    if (key == "devices") {
      if (!set_type(Sharding::Type::kTiled)) return false;
      has_devices = true;
      if (!expect(TokenKind::kLBracket, "to open the tile assignment shape")) return false;
      do {
        int64_t d;
        if (!parse_int(&d, "a tile assignment dimension")) return false;
        if (d < 1) return error(part, "tile assignment dimensions must be positive");
        if (out->tile_count() > kMaxDevices / d) {
          return error(part, str_cat("tile assignment has more than ", kMaxDevices, " tiles"));
        }
        out->tile_shape.push_back(d);
      } while (consume_if(TokenKind::kComma));
      if (!expect(TokenKind::kRBracket, "to close the tile assignment shape")) return false;
      if (consume_if(TokenKind::kLeq)) {
        iota = true;
        Token list = tok_;
        // Kept in iota form: the device of a tile is computed on demand.
        DeviceIds& ids = out->devices;
        if (!parse_iota_list(&ids.iota_dims, &ids.iota_transpose)) return false;
        if (iota_size(ids.iota_dims, kMaxDevices) < 0) {
          return error(list,
                       str_cat("iota device list has more than ", kMaxDevices, " devices"));
        }
      } else {
        do {
          int64_t id;
          if (!parse_int(&id, "a device id")) return false;
          out->devices.listed.push_back(id);
        } while (consume_if(TokenKind::kComma));
      }
      int64_t tiles = out->tile_count();
      if (out->devices.size() != tiles) {
        return error(part, str_cat(iota ? "iota device list" : "sharding device list", " has ",
                                   out->devices.size(), " devices but the tile assignment [",
                                   absl::StrJoin(out->tile_shape, ","), "] needs ", tiles));
      }
      if (!iota && out->devices.size() < 2) {
        return error(part, "an explicit device list needs more than one device (use maximal)");
      }
    } else if (key == "last_tile_dims") {
      has_last_tile_dims = true;
      if (!expect(TokenKind::kLBrace, "to open last_tile_dims")) return false;
      if (!at(TokenKind::kRBrace)) {
        do {
          Sharding::Type type;
          if (!subgroup_type(tok_.kind, &type)) {
            return expected("manual, replicated, maximal or unreduced");
          }
          out->last_tile_dims.push_back(type);
          advance();
        } while (consume_if(TokenKind::kComma));
      }
      if (!expect(TokenKind::kRBrace, "to close last_tile_dims")) return false;
    } else if (key == "metadata") {
      if (!parse_sharding_metadata()) return false;
    } else if (key == "unreduced") {
      // The printer's shortcut for a fully unreduced named sharding: {unreduced=max}.
      if (!set_type(Sharding::Type::kUnreduced)) return false;
      if (!at(TokenKind::kIdent)) return expected("sum, max or min");
      out->unreduced_op = tok_.text;
      advance();
    } else {
      return error(part, str_cat("unknown sharding attribute '", key, "'"));
    }
  }
  if (!has_type && (out->last_tile_dim_replicate || has_last_tile_dims)) {
    return error(start, "last_tile_dim_replicate and last_tile_dims need devices=[...]");
  }
  if (!has_type) {
    return error(start, "expected replicated, manual, unknown, unreduced, maximal or devices=");
  }
  if (out->last_tile_dim_replicate && has_last_tile_dims) {
    return error(start, "last_tile_dim_replicate and last_tile_dims cannot be combined");
  }
  if (!has_devices && (out->last_tile_dim_replicate || has_last_tile_dims)) {
    return error(start, "last_tile_dim_replicate and last_tile_dims need devices=[...]");
  }
  if (has_devices && out->last_tile_dims.size() + (out->last_tile_dim_replicate ? 1 : 0) >
                         out->tile_shape.size()) {
    return error(start, "more subgroup dimensions than tile assignment dimensions");
  }
  return true;
}

// metadata=op_metadata | metadata={op_metadata, ...}; validated and kept in the text only.
bool ModuleParser::parse_sharding_metadata() {
  if (!at(TokenKind::kLBrace)) return expected("'{' to open sharding metadata");
  if (peek().is(TokenKind::kLBrace)) {
    advance();
    do {
      OpMetadata ignored;
      if (!parse_metadata(&ignored)) return false;
    } while (consume_if(TokenKind::kComma));
    return expect(TokenKind::kRBrace, "to close the sharding metadata list");
  }
  OpMetadata ignored;
  return parse_metadata(&ignored);
}

// named_body ::= 'maximal_mesh' '[' ATTR(device_id) INT ']' named_md?
//              | mesh ','? ('replicated' | 'manual' | unreduced_all | dim_list (',' part)*)
bool ModuleParser::parse_named_sharding_body(Sharding* out) {
  Token start = tok_;
  if (tok_.text == "maximal_mesh") {
    advance();
    out->type = Sharding::Type::kMaximal;
    if (!expect(TokenKind::kLBracket, "after maximal_mesh")) return false;
    if (!at(TokenKind::kAttr) || tok_.name() != "device_id") return expected("device_id=N");
    advance();
    if (!parse_int(&out->device, "the device id")) return false;
    if (!expect(TokenKind::kRBracket, "to close maximal_mesh[...]")) return false;
    if (consume_if(TokenKind::kComma)) {
      if (!at(TokenKind::kAttr) || tok_.name() != "metadata") return expected("metadata=");
      advance();
      return parse_sharding_metadata();
    }
    return true;
  }
  Mesh mesh;
  if (!parse_mesh(&mesh)) return false;
  out->mesh = mesh.axes;
  out->mesh_device_ids = mesh.device_ids;
  out->type = Sharding::Type::kNamed;
  consume_if(TokenKind::kComma);

  auto to_names = [](const std::vector<AxisRef>& refs) {
    std::vector<std::string_view> names;
    for (const AxisRef& r : refs) names.push_back(r.text);
    return names;
  };
  // Every axis (or sub-axis) may be used once over the whole sharding.
  std::vector<AxisRef> used;
  auto take = [&](const std::vector<AxisRef>& refs, const Token& at_token) {
    for (const AxisRef& r : refs) {
      for (const AxisRef& u : used) {
        bool overlap = u.axis == r.axis && u.pre < r.pre * r.size && r.pre < u.pre * u.size;
        if (overlap) {
          return error(at_token, str_cat("mesh axis '", mesh.axes[r.axis].name,
                                         "' is used more than once in the sharding"));
        }
      }
      used.push_back(r);
    }
    return true;
  };

  if (at(TokenKind::kw_replicated) || at(TokenKind::kw_manual)) {
    out->type =
        at(TokenKind::kw_replicated) ? Sharding::Type::kReplicated : Sharding::Type::kManual;
    advance();
  } else if (at(TokenKind::kw_unreduced) || (at(TokenKind::kAttr) && tok_.name() == "unreduced")) {
    out->type = Sharding::Type::kUnreduced;
    bool keyword = at(TokenKind::kw_unreduced);
    advance();
    out->unreduced_op = "sum";
    if (!keyword) {
      if (!at(TokenKind::kIdent)) return expected("sum, max or min after unreduced=");
      out->unreduced_op = tok_.text;
      advance();
    }
    if (at(TokenKind::kLBrace)) {
      Token list = tok_;
      std::vector<AxisRef> refs;
      if (!parse_axis_list(mesh, &refs, false, nullptr) || !take(refs, list)) return false;
      out->unreduced_axes = to_names(refs);
    }
  } else {
    if (!expect(TokenKind::kLBracket, "to open the per-dimension mesh axes")) return false;
    if (!at(TokenKind::kRBracket)) {
      do {
        Token list = tok_;
        std::vector<AxisRef> refs;
        Sharding::DimAxes& dim = out->dim_axes.emplace_back();
        if (!parse_axis_list(mesh, &refs, /*allow_open=*/true, &dim.open)) return false;
        if (!take(refs, list)) return false;
        dim.axes = to_names(refs);
      } while (consume_if(TokenKind::kComma));
    }
    if (!expect(TokenKind::kRBracket, "to close the per-dimension mesh axes")) return false;
    while (consume_if(TokenKind::kComma)) {
      if (!at(TokenKind::kAttr)) return expected("replicated=, unreduced=, manual= or metadata=");
      std::string_view key = tok_.name();
      Token part = tok_;
      advance();
      if (key == "metadata") {
        if (!parse_sharding_metadata()) return false;
        continue;
      }
      if (key == "unreduced" && at(TokenKind::kIdent)) {
        out->unreduced_op = tok_.text;
        advance();
      } else if (key == "unreduced") {
        out->unreduced_op = "sum";
      }
      std::vector<AxisRef> refs;
      if (!parse_axis_list(mesh, &refs, false, nullptr) || !take(refs, part)) return false;
      if (key == "replicated") {
        out->replicated_axes = to_names(refs);
      } else if (key == "unreduced") {
        out->unreduced_axes = to_names(refs);
      } else if (key == "manual") {
        out->manual_axes = to_names(refs);
      } else {
        return error(part, str_cat("unknown named sharding part '", key, "'"));
      }
    }
    return true;
  }
  if (consume_if(TokenKind::kComma)) {
    if (!at(TokenKind::kAttr) || tok_.name() != "metadata") return expected("metadata=");
    advance();
    return parse_sharding_metadata();
  }
  (void)start;
  return true;
}

}  // namespace hloroof::text
