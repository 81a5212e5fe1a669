#include "device/spec_units.h"

#include <span>

#include "absl/strings/str_join.h"

namespace hloroof::internal {
namespace {

struct Unit {
  std::string_view name;
  double factor;
};

constexpr Unit kBytes[] = {
    {"B", 1},           {"KB", 1e3},           {"MB", 1e6},
    {"GB", 1e9},        {"TB", 1e12},          {"KiB", 1024.0},
    {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {"TiB", 1099511627776.0},
};
constexpr Unit kBandwidth[] = {
    {"B/s", 1},     {"KB/s", 1e3},           {"MB/s", 1e6},    {"GB/s", 1e9},
    {"TB/s", 1e12}, {"GiB/s", 1073741824.0}, {"Gb/s", 1.25e8}, {"Gbps", 1.25e8},
};
constexpr Unit kFlopRate[] = {
    {"FLOP/s", 1}, {"GFLOP/s", 1e9}, {"TFLOP/s", 1e12}, {"PFLOP/s", 1e15},
    {"OP/s", 1},   {"GOP/s", 1e9},   {"TOP/s", 1e12},   {"POP/s", 1e15},
};
constexpr Unit kOpRate[] = {{"op/s", 1}, {"Gop/s", 1e9}, {"Top/s", 1e12}};
constexpr Unit kTime[] = {{"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}};

std::span<const Unit> units_of(Quantity q) {
  switch (q) {
    case Quantity::kBytes:
      return kBytes;
    case Quantity::kBandwidth:
      return kBandwidth;
    case Quantity::kFlopRate:
      return kFlopRate;
    case Quantity::kOpRate:
      return kOpRate;
    case Quantity::kTime:
      return kTime;
  }
  return {};
}

}  // namespace

std::optional<double> unit_factor(Quantity q, std::string_view unit) {
  for (const Unit& u : units_of(q)) {
    if (u.name == unit) return u.factor;
  }
  return std::nullopt;
}

std::string_view base_unit(Quantity q) { return units_of(q).front().name; }

SanityRange sanity_range(Quantity q) {
  switch (q) {
    case Quantity::kBytes:
      return {1e3, 1e15};  // 1 KB to 1 PB
    case Quantity::kBandwidth:
      return {1e6, 1e16};  // 1 MB/s to 10 PB/s
    case Quantity::kFlopRate:
    case Quantity::kOpRate:
      return {1e6, 1e19};  // 1 MFLOP/s to 10 EFLOP/s
    case Quantity::kTime:
      return {0, 1};  // 0 to 1 s
  }
  return {0, 0};
}

std::string accepted_units(Quantity q) {
  return absl::StrJoin(units_of(q), ", ",
                       [](std::string* out, const Unit& u) { out->append(u.name); });
}

}  // namespace hloroof::internal
