// Shardings (docs/hlo-text.md, "Attributes"): classic tile assignments and named (mesh) shardings,
// decoded; the text as written is kept for printing.
#ifndef HLOROOF_SHARDING_H_
#define HLOROOF_SHARDING_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "hloroof/replica_groups.h"

namespace hloroof {

struct Sharding {
  enum class Type : uint8_t {
    kReplicated,
    kManual,
    kUnknown,
    kUnreduced,
    kMaximal,  // on one device
    kTiled,    // devices=[...] tile assignment
    kTuple,    // one sharding per leaf array
    kNamed,    // mesh[...] with per-dimension axes
  };
  Type type = Type::kReplicated;

  // kMaximal.
  int64_t device = -1;

  // kTiled: the tile assignment shape (array dims, then subgroup dims) and the device of each
  // tile in row-major order (an iota list kept in its form: `devices.at(tile)`).
  std::vector<int64_t> tile_shape;
  DeviceIds devices;
  bool last_tile_dim_replicate = false;
  std::vector<Type> last_tile_dims;  // types of trailing subgroup dims (last_tile_dims={...})

  // `shard_as N` / `shard_like N`; group_id -1 when absent.
  bool shard_as = false;
  int64_t shard_group_id = -1;

  // kTuple.
  std::vector<Sharding> elements;

  // kNamed: the mesh, its device order, and how each array dimension is split.
  struct MeshAxis {
    std::string_view name;
    int64_t size = 0;
    friend bool operator==(const MeshAxis&, const MeshAxis&) = default;
  };
  struct DimAxes {
    std::vector<std::string_view> axes;  // axis references as written, quotes removed
    bool open = false;                   // ends with `?`
    friend bool operator==(const DimAxes&, const DimAxes&) = default;
  };
  std::vector<MeshAxis> mesh;
  DeviceIds mesh_device_ids;  // empty: 0..N-1 in mesh order
  std::vector<DimAxes> dim_axes;
  std::vector<std::string_view> replicated_axes;
  std::vector<std::string_view> unreduced_axes;
  std::string_view unreduced_op;  // sum, max, min
  std::vector<std::string_view> manual_axes;

  // Number of tiles (product of tile_shape); 1 when not tiled.
  int64_t tile_count() const;
  friend bool operator==(const Sharding&, const Sharding&) = default;
};

}  // namespace hloroof

#endif  // HLOROOF_SHARDING_H_
