// Replica groups, iota device lists and device meshes (docs/hlo-text.md, "Attributes").
#include <algorithm>
#include <cstring>
#include <numeric>

#include "absl/strings/str_join.h"
#include "hloroof/shape_text.h"
#include "hloroof/absl_compat.h"
#include "text/module_parser.h"

namespace hloroof::text {
namespace {

// The product of `dims`; -1 when one is negative or the product exceeds `limit`.
int64_t product(const std::vector<int64_t>& dims, int64_t limit) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0 || (d > 0 && n > limit / d)) return -1;
    n *= d;
  }
  return n;
}

std::string bracketed(const std::vector<int64_t>& dims) {
  return str_cat("[", absl::StrJoin(dims, ","), "]");
}

// Mesh replica groups in the compact form of iota groups: every axis split into factors at the
// boundaries of the sub-axes referenced on it, the positions of the mesh (row-major over the
// factors) transposed so that the factors not listed come first (one group per combination of
// them) and the listed ones follow in the order given (the members of a group).
template <typename AxisRef>
void mesh_groups(const std::vector<int64_t>& axis_sizes, const std::vector<AxisRef>& refs,
                 ReplicaGroups* out) {
  struct Factor {
    size_t axis;
    int64_t prefix;  // product of the more major factors of the same axis
    int64_t size;
    int group_position = -1;  // order among the listed factors, -1 when not listed
  };
  std::vector<Factor> factors;
  for (size_t a = 0; a < axis_sizes.size(); ++a) {
    std::vector<int64_t> cuts = {1, axis_sizes[a]};
    for (const AxisRef& r : refs) {
      if (r.axis == a) {
        cuts.push_back(r.pre);
        cuts.push_back(r.pre * r.size);
      }
    }
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    for (size_t i = 0; i + 1 < cuts.size(); ++i) {
      factors.push_back({a, cuts[i], cuts[i + 1] / cuts[i]});
    }
  }
  int position = 0;
  for (const AxisRef& r : refs) {
    for (Factor& f : factors) {
      if (f.axis == r.axis && f.prefix >= r.pre && f.prefix < r.pre * r.size) {
        f.group_position = position++;
      }
    }
  }
  std::vector<int64_t> grouped(static_cast<size_t>(position));
  out->num_groups = 1;
  out->group_size = 1;
  out->iota_dims.clear();
  out->iota_transpose.clear();
  for (size_t i = 0; i < factors.size(); ++i) {
    out->iota_dims.push_back(factors[i].size);
    if (factors[i].group_position >= 0) {
      grouped[static_cast<size_t>(factors[i].group_position)] = static_cast<int64_t>(i);
      out->group_size *= factors[i].size;  // the mesh's size bounds these products
    } else {
      out->iota_transpose.push_back(static_cast<int64_t>(i));
      out->num_groups *= factors[i].size;
    }
  }
  out->iota_transpose.insert(out->iota_transpose.end(), grouped.begin(), grouped.end());
}

}  // namespace

// replica_groups ::= int_list_list | '[' INT ',' INT ']' '<=' iota_array | mesh axis_list
bool ModuleParser::parse_replica_groups(ReplicaGroups* out) {
  if (at(TokenKind::kLBrace)) {
    out->form = ReplicaGroups::Form::kList;
    IntListList groups;
    if (!parse_int_list_list(&groups, "replica_groups")) return false;
    out->groups = std::move(groups);
    return true;
  }
  if (consume_if(TokenKind::kLBracket)) {
    out->form = ReplicaGroups::Form::kIota;
    if (!parse_int(&out->num_groups, "the number of replica groups")) return false;
    if (!expect(TokenKind::kComma, "between the group count and the group size")) return false;
    if (!parse_int(&out->group_size, "the replica group size")) return false;
    if (!expect(TokenKind::kRBracket, "after [groups,size]")) return false;
    if (!expect(TokenKind::kLeq, "before the iota device list")) return false;
    Token list = tok_;
    if (!parse_iota_list(&out->iota_dims, &out->iota_transpose)) return false;
    int64_t ids = product(out->iota_dims, kMaxIotaDevices);
    if (ids < 0) {
      return error(list, str_cat("iota device list has more than ", kMaxIotaDevices, " ids"));
    }
    int64_t needed = 0;
    if (out->num_groups < 0 || out->group_size < 0 ||
        __builtin_mul_overflow(out->num_groups, out->group_size, &needed) || ids != needed) {
      return error(list, str_cat("iota device list has ", ids, " ids but [", out->num_groups, ",",
                                 out->group_size, "] needs ",
                                 needed > 0 ? str_cat(needed) : std::string("more")));
    }
    // Kept in iota form: members are computed on demand (ReplicaGroups::id_at).
    return true;
  }
  if (at(TokenKind::kIdent) && tok_.text == "mesh") {
    out->form = ReplicaGroups::Form::kMesh;
    Mesh mesh;
    if (!parse_mesh(&mesh)) return false;
    std::vector<AxisRef> refs;
    if (!parse_axis_list(mesh, &refs, /*allow_open=*/false, nullptr)) return false;
    std::vector<int64_t> sizes;
    for (const Sharding::MeshAxis& a : mesh.axes) sizes.push_back(a.size);
    // Kept compact: members are computed on demand (ReplicaGroups::id_at).
    mesh_groups(sizes, refs, out);
    out->mesh_devices = std::move(mesh.device_ids);
    return true;
  }
  return expected("replica groups ({{0,1},...}, [G,S]<=[N], or mesh[...] {...})");
}

namespace {

// [0-9]{1,18} at `p` into *out (no overflow possible), or null; the NUL after the source stops
// it.
const char* scan_count(const char* p, int64_t* out) {
  int64_t value = 0;
  const char* start = p;
  for (; static_cast<unsigned char>(*p - '0') < 10; ++p) {
    if (p - start == 18) return nullptr;
    value = value * 10 + (*p - '0');
  }
  if (p == start) return nullptr;
  *out = value;
  return p;
}

// INT (',' INT)* up to `close`, appended to *out; the byte after `close`, or null.
const char* scan_counts(const char* p, char close, std::vector<int64_t>* out) {
  for (;;) {
    int64_t v;
    p = scan_count(p, &v);
    if (p == nullptr) return nullptr;
    out->push_back(v);
    if (*p == close) return p + 1;
    if (*p != ',') return nullptr;
    ++p;
  }
}

}  // namespace

const char* scan_iota_list(const char* p, std::vector<int64_t>* dims, std::vector<int64_t>* perm) {
  if (*p != '[') return nullptr;
  p = scan_counts(p + 1, ']', dims);
  if (p == nullptr || dims->size() == 1) return p;
  if (p[0] != 'T' || p[1] != '(') return nullptr;
  p = scan_counts(p + 2, ')', perm);
  const int64_t rank = static_cast<int64_t>(dims->size());
  if (p == nullptr || perm->size() != dims->size() || rank > 64) return nullptr;
  uint64_t seen = 0;
  for (int64_t k : *perm) {
    if (k >= rank || (seen >> k & 1) != 0) return nullptr;
    seen |= uint64_t{1} << k;
  }
  return p;
}

const char* scan_iota_replica_groups(const char* p, ReplicaGroups* out) {
  if (*p != '[') return nullptr;
  p = scan_count(p + 1, &out->num_groups);
  if (p == nullptr || *p != ',') return nullptr;
  p = scan_count(p + 1, &out->group_size);
  if (p == nullptr || p[0] != ']' || p[1] != '<' || p[2] != '=') return nullptr;
  p = scan_iota_list(p + 3, &out->iota_dims, &out->iota_transpose);
  if (p == nullptr || (*p != ',' && *p != '\n')) return nullptr;
  int64_t ids = product(out->iota_dims, kMaxIotaDevices);
  int64_t needed = 0;
  if (ids < 0 || __builtin_mul_overflow(out->num_groups, out->group_size, &needed) ||
      ids != needed) {
    return nullptr;
  }
  out->form = ReplicaGroups::Form::kIota;
  return p;
}

const char* scan_sharding(const char* p, Sharding* out) {
  if (*p != '{') return nullptr;
  ++p;
  if (std::strncmp(p, "replicated}", 11) == 0) {
    out->type = Sharding::Type::kReplicated;
    p += 11;
  } else if (std::strncmp(p, "maximal device=", 15) == 0) {
    out->type = Sharding::Type::kMaximal;
    p = scan_count(p + 15, &out->device);
    if (p == nullptr || *p != '}') return nullptr;
    ++p;
  } else if (std::strncmp(p, "devices=[", 9) == 0) {
    out->type = Sharding::Type::kTiled;
    p = scan_counts(p + 9, ']', &out->tile_shape);
    if (p == nullptr) return nullptr;
    int64_t tiles = 1;
    for (int64_t d : out->tile_shape) {
      if (d < 1 || tiles > kMaxDevices / d) return nullptr;
      tiles *= d;
    }
    if (p[0] == '<' && p[1] == '=') {
      DeviceIds& ids = out->devices;
      p = scan_iota_list(p + 2, &ids.iota_dims, &ids.iota_transpose);
      if (p == nullptr || iota_size(ids.iota_dims, kMaxDevices) < 0) return nullptr;
      // Kept in iota form: the device of a tile is computed on demand.
    } else {
      for (;;) {
        int64_t id;
        p = scan_count(p, &id);
        if (p == nullptr) return nullptr;
        out->devices.listed.push_back(id);
        if (*p != ',') break;
        ++p;
      }
      if (out->devices.listed.size() < 2) return nullptr;
    }
    if (out->devices.size() != tiles) return nullptr;
    if (std::strncmp(p, " last_tile_dim_replicate", 24) == 0) {
      out->last_tile_dim_replicate = true;
      p += 24;
    }
    if (*p != '}') return nullptr;
    ++p;
  } else {
    return nullptr;
  }
  return *p == ',' || *p == '\n' ? p : nullptr;
}

// iota_array ::= '[' INT (',' INT)* ']' ('T' '(' INT (',' INT)* ')')?
bool ModuleParser::parse_iota_list(std::vector<int64_t>* dims, std::vector<int64_t>* perm) {
  Token start = tok_;
  if (!expect(TokenKind::kLBracket, "to open the iota reshape dims")) return false;
  do {
    int64_t d;
    if (!parse_int(&d, "an iota reshape dimension")) return false;
    if (d < 0) return error(start, "iota reshape dimensions cannot be negative");
    dims->push_back(d);
  } while (consume_if(TokenKind::kComma));
  if (!expect(TokenKind::kRBracket, "to close the iota reshape dims")) return false;
  bool has_transpose = at(TokenKind::kIdent) && tok_.text == "T" && peek().is(TokenKind::kLParen);
  if (dims->size() == 1) {
    // `[8]T(0)` is not accepted upstream: the T is left over (syntax 5.12).
    return true;
  }
  if (!has_transpose) {
    return error(start, str_cat("a multi-dimensional iota reshape ", bracketed(*dims),
                                " needs a T(...) permutation"));
  }
  advance();
  Token list = tok_;
  advance();
  do {
    int64_t p;
    if (!parse_int(&p, "a transpose entry")) return false;
    perm->push_back(p);
  } while (consume_if(TokenKind::kComma));
  if (!expect(TokenKind::kRParen, "to close T(...)")) return false;
  std::vector<int64_t> sorted = *perm;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (sorted.size() != dims->size() || sorted[i] != static_cast<int64_t>(i)) {
      return error(list,
                   str_cat("T(", absl::StrJoin(*perm, ","),
                           ") is not a permutation of the iota reshape dims ", bracketed(*dims)));
    }
  }
  return true;
}

// mesh ::= 'mesh' '[' (axis '=' INT (',' axis '=' INT)*)? (',' device_ids)? ']'
//          (',' ATTR(device_ids) '(' (INT (',' INT)* | iota_array) ')')?
// Axis names are quoted ('x'=2) since [2026-03], plain (x=2) before.
bool ModuleParser::parse_mesh(Mesh* out) {
  Token start = tok_;
  advance();
  if (!expect(TokenKind::kLBracket, "after mesh")) return false;
  auto parse_device_ids = [&]() {
    advance();  // device_ids=
    Token list = tok_;
    if (!expect(TokenKind::kLParen, "to open device_ids")) return false;
    if (at(TokenKind::kLBracket)) {
      // Kept in iota form: the device of a position is computed on demand.
      DeviceIds& ids = out->device_ids;
      if (!parse_iota_list(&ids.iota_dims, &ids.iota_transpose)) return false;
      if (iota_size(ids.iota_dims, kMaxDevices) < 0) {
        return error(list, str_cat("iota device list has more than ", kMaxDevices, " devices"));
      }
    } else {
      do {
        int64_t id;
        if (!parse_int(&id, "a device id")) return false;
        out->device_ids.listed.push_back(id);
      } while (consume_if(TokenKind::kComma));
    }
    return expect(TokenKind::kRParen, "to close device_ids");
  };
  if (!at(TokenKind::kRBracket)) {
    do {
      if (at(TokenKind::kAttr) && tok_.name() == "device_ids") {
        if (!parse_device_ids()) return false;
        break;
      }
      Sharding::MeshAxis& axis = out->axes.emplace_back();
      if (at(TokenKind::kString)) {
        axis.name = tok_.string_body();
        advance();
        if (!expect(TokenKind::kEqual, "after a mesh axis name")) return false;
      } else if (at(TokenKind::kAttr)) {
        axis.name = tok_.name();
        advance();
      } else {
        return expected("a mesh axis like 'x'=2");
      }
      for (size_t a = 0; a + 1 < out->axes.size(); ++a) {
        if (out->axes[a].name == axis.name) {
          return error(start, str_cat("mesh axis '", axis.name, "' is declared twice"));
        }
      }
      if (!parse_int(&axis.size, "a mesh axis size")) return false;
      if (axis.size < 1)
        return error(start, str_cat("mesh axis '", axis.name, "' has size ", axis.size,
                                    "; sizes must be positive"));
    } while (consume_if(TokenKind::kComma));
  }
  if (!expect(TokenKind::kRBracket, "to close the mesh axes")) return false;
  if (at(TokenKind::kComma)) {
    Token next = peek();
    if (next.is(TokenKind::kAttr) && next.name() == "device_ids") {
      advance();
      if (!parse_device_ids()) return false;
    }
  }
  int64_t devices = 1;
  for (const Sharding::MeshAxis& a : out->axes) {
    if (devices > kMaxDevices / a.size) {
      return error(start, str_cat("mesh has more than ", kMaxDevices, " devices"));
    }
    devices *= a.size;
  }
  if ((out->device_ids.is_iota() || !out->device_ids.empty()) &&
      out->device_ids.size() != devices) {
    return error(start, str_cat("mesh device_ids has ", out->device_ids.size(),
                                " ids but the mesh has ", devices, " devices"));
  }
  return true;
}

// axis_list ::= '{' (axis_ref (',' axis_ref)*)? '}'    axis_ref ::= STRING (':' '(' INT ')' INT)?
bool ModuleParser::parse_axis_list(const Mesh& mesh, std::vector<AxisRef>* out, bool allow_open,
                                   bool* open) {
  if (!expect(TokenKind::kLBrace, "to open a list of mesh axes")) return false;
  if (consume_if(TokenKind::kRBrace)) return true;
  do {
    if (allow_open && at(TokenKind::kQuestion)) {
      advance();
      *open = true;
      break;
    }
    Token ref_token = tok_;
    AxisRef ref;
    std::string_view name;
    if (at(TokenKind::kString)) {
      name = tok_.string_body();
    } else if (at(TokenKind::kIdent)) {
      name = tok_.text;
    } else {
      return expected("a mesh axis name like 'x'");
    }
    advance();
    bool found = false;
    for (size_t a = 0; a < mesh.axes.size() && !found; ++a) {
      if (mesh.axes[a].name == name) {
        ref.axis = a;
        found = true;
      }
    }
    if (!found && !name.empty() && std::all_of(name.begin(), name.end(), ::isdigit)) {
      size_t index = std::stoul(std::string(name.substr(0, 9)));
      if (index >= mesh.axes.size()) {
        return error(ref_token, str_cat("mesh axis index ", name, " is out of range: the mesh has ",
                                        mesh.axes.size(), " axes"));
      }
      ref.axis = index;
      found = true;
    }
    if (!found) return error(ref_token, str_cat("'", name, "' is not an axis of the mesh"));
    ref.size = mesh.axes[ref.axis].size;
    if (consume_if(TokenKind::kColon)) {
      if (!expect(TokenKind::kLParen, "to open a sub-axis (pre)size")) return false;
      if (!parse_int(&ref.pre, "the sub-axis prefix size")) return false;
      if (!expect(TokenKind::kRParen, "after the sub-axis prefix size")) return false;
      if (!parse_int(&ref.size, "the sub-axis size")) return false;
      int64_t axis_size = mesh.axes[ref.axis].size;
      if (ref.pre < 1 || ref.size < 1 || axis_size % ref.pre != 0 ||
          (axis_size / ref.pre) % ref.size != 0) {
        return error(ref_token, str_cat("sub-axis ", name, ":(", ref.pre, ")", ref.size,
                                        " does not divide axis '", name, "' of size ", axis_size));
      }
    }
    ref.text = text_since(ref_token.begin());
    if (ref.text.size() >= 2 && (ref.text[0] == '\'' || ref.text[0] == '"')) {
      ref.text = name;  // sub-axis text keeps its quotes; the plain name does not
    }
    out->push_back(ref);
  } while (consume_if(TokenKind::kComma));
  return expect(TokenKind::kRBrace, "to close the list of mesh axes");
}

}  // namespace hloroof::text
