// Reading profiles: the XSpace protobuf through our xplane.proto, trace-event JSON through
// nlohmann_json, gzip through zlib; and finding the file in the folders JAX writes.
#include <zlib.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "hloroof/input_file.h"
#include "hloroof/profile.h"
#include "nlohmann/json.hpp"
#include "profile/xplane.pb.h"
#include "util/absl_compat.h"

namespace hloroof {
namespace {

namespace fs = std::filesystem;

// A gzip stream inflates to at most this much: a hostile file cannot exhaust memory.
constexpr size_t kMaxInflated = size_t{1} << 32;

bool is_gzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

absl::StatusOr<std::string> gunzip(std::string_view bytes, std::string_view origin) {
  z_stream z{};
  // 15 + 16: a gzip header and trailer around the deflate stream.
  if (inflateInit2(&z, 15 + 16) != Z_OK) {
    return absl::InternalError(absl::StrCat(sv(origin), ": zlib failed to start"));
  }
  std::string out;
  char buffer[1 << 16];
  size_t offset = 0;
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    if (z.avail_in == 0 && offset < bytes.size()) {
      const size_t n = std::min<size_t>(bytes.size() - offset, UINT_MAX);
      z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data() + offset));
      z.avail_in = static_cast<uInt>(n);
      offset += n;
    }
    z.next_out = reinterpret_cast<Bytef*>(buffer);
    z.avail_out = sizeof buffer;
    rc = inflate(&z, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      inflateEnd(&z);
      return absl::InvalidArgumentError(absl::StrCat(sv(origin), ": not a valid gzip stream (",
                                                     z.msg ? z.msg : "truncated", ")"));
    }
    out.append(buffer, sizeof buffer - z.avail_out);
    if (out.size() > kMaxInflated) {
      inflateEnd(&z);
      return absl::InvalidArgumentError(
          absl::StrCat(sv(origin), ": inflates to more than 4 GiB; not read"));
    }
    if (rc == Z_OK && z.avail_in == 0 && offset >= bytes.size() && z.avail_out != 0) {
      inflateEnd(&z);
      return absl::InvalidArgumentError(absl::StrCat(sv(origin), ": gzip stream is truncated"));
    }
  }
  inflateEnd(&z);
  return out;
}

// ---- XSpace ------------------------------------------------------------------------------

// A stat's value as text: strings as they are, references through the stat metadata.
std::string stat_text(const xplane::XStat& stat, const xplane::XPlane& plane) {
  switch (stat.value_case()) {
    case xplane::XStat::kStrValue:
      return stat.str_value();
    case xplane::XStat::kRefValue: {
      auto it = plane.stat_metadata().find(static_cast<int64_t>(stat.ref_value()));
      return it == plane.stat_metadata().end() ? std::string() : it->second.name();
    }
    case xplane::XStat::kInt64Value:
      return absl::StrCat(stat.int64_value());
    case xplane::XStat::kUint64Value:
      return absl::StrCat(stat.uint64_value());
    default:
      return {};
  }
}

// A stat's value as an unsigned number; 0 when it holds none.
uint64_t stat_number(const xplane::XStat& stat, const xplane::XPlane& plane) {
  switch (stat.value_case()) {
    case xplane::XStat::kUint64Value:
      return stat.uint64_value();
    case xplane::XStat::kInt64Value:
      return stat.int64_value() > 0 ? static_cast<uint64_t>(stat.int64_value()) : 0;
    default: {
      uint64_t n = 0;
      return absl::SimpleAtoi(stat_text(stat, plane), &n) ? n : 0;
    }
  }
}

// Fills hlo_op, hlo_module and correlation_id from the stats that carry them.
template <typename Stats>
void read_stats(const Stats& stats, const xplane::XPlane& plane,
                const absl::flat_hash_map<int64_t, std::string_view>& stat_names,
                ProfileEvent& event) {
  for (const xplane::XStat& stat : stats) {
    auto name = stat_names.find(stat.metadata_id());
    if (name == stat_names.end()) continue;
    if (name->second == "hlo_op") {
      event.hlo_op = stat_text(stat, plane);
    } else if (name->second == "hlo_module") {
      event.hlo_module = stat_text(stat, plane);
    } else if (name->second == "correlation_id") {
      event.correlation_id = stat_number(stat, plane);
    }
  }
}

ProfilePlane convert_plane(const xplane::XPlane& plane) {
  ProfilePlane out;
  out.name = plane.name();
  absl::flat_hash_map<int64_t, std::string_view> stat_names;
  for (const auto& [id, m] : plane.stat_metadata()) stat_names[id] = m.name();
  for (const xplane::XLine& line : plane.lines()) {
    ProfileLine& l = out.lines.emplace_back();
    l.name = line.display_name().empty() ? line.name() : line.display_name();
    const double origin_s = static_cast<double>(line.timestamp_ns()) * 1e-9;
    l.events.reserve(static_cast<size_t>(line.events_size()));
    for (const xplane::XEvent& e : line.events()) {
      // Aggregated events (num_occurrences) have no place on the timeline.
      if (e.data_case() != xplane::XEvent::kOffsetPs || e.duration_ps() < 0) continue;
      ProfileEvent event;
      event.start_s = origin_s + static_cast<double>(e.offset_ps()) * 1e-12;
      event.duration_s = static_cast<double>(e.duration_ps()) * 1e-12;
      auto meta = plane.event_metadata().find(e.metadata_id());
      if (meta != plane.event_metadata().end()) {
        event.name =
            meta->second.name().empty() ? meta->second.display_name() : meta->second.name();
        read_stats(meta->second.stats(), plane, stat_names, event);
      }
      read_stats(e.stats(), plane, stat_names, event);
      l.events.push_back(std::move(event));
    }
  }
  return out;
}

// ---- Trace-event JSON ----------------------------------------------------------------------

// pid and tid are numbers in Chrome's format, sometimes strings.
std::string id_text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return absl::StrCat(v.get<int64_t>());
  if (v.is_number()) return absl::StrCat(v.get<double>());
  return "";
}

// A member of an object, or null: hostile files may hold any type anywhere, and json::value
// throws on a type it does not expect.
const nlohmann::json& member(const nlohmann::json& object, const char* key) {
  static const nlohmann::json kNull;
  if (!object.is_object()) return kNull;
  auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

std::string string_member(const nlohmann::json& object, const char* key) {
  const nlohmann::json& v = member(object, key);
  return v.is_string() ? v.get<std::string>() : std::string();
}

std::string string_arg(const nlohmann::json& args, const char* key) {
  if (!args.is_object()) return {};
  auto it = args.find(key);
  if (it == args.end()) return {};
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number()) return it->dump();
  return {};
}

}  // namespace

absl::StatusOr<Profile> parse_xspace(std::string_view bytes, std::string_view origin) {
  if (bytes.size() > static_cast<size_t>(INT_MAX)) {
    return absl::InvalidArgumentError(
        absl::StrCat(sv(origin), ": larger than 2 GiB, more than protobuf reads"));
  }
  xplane::XSpace space;
  if (!space.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::InvalidArgumentError(absl::StrCat(
        sv(origin), ": not an XSpace protobuf (the .xplane.pb that jax.profiler.trace writes)"));
  }
  Profile p;
  p.origin = std::string(origin);
  p.format = "xplane";
  for (const xplane::XPlane& plane : space.planes()) p.planes.push_back(convert_plane(plane));
  return p;
}

absl::StatusOr<Profile> parse_trace_json(std::string_view bytes, std::string_view origin) {
  std::string inflated;
  if (is_gzip(bytes)) {
    absl::StatusOr<std::string> text = gunzip(bytes, origin);
    if (!text.ok()) return text.status();
    inflated = *std::move(text);
    bytes = inflated;
  }
  const nlohmann::json doc = nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
  if (doc.is_discarded()) {
    return absl::InvalidArgumentError(absl::StrCat(sv(origin), ": not valid JSON"));
  }
  const nlohmann::json* events = &doc;
  if (doc.is_object()) {
    auto it = doc.find("traceEvents");
    if (it == doc.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat(sv(origin), ": a JSON object without 'traceEvents': not a trace"));
    }
    events = &*it;
  }
  if (!events->is_array()) {
    return absl::InvalidArgumentError(
        absl::StrCat(sv(origin), ": 'traceEvents' is not an array of events"));
  }
  // Names first (metadata events may come after the events they name).
  std::map<std::string, std::string> process_names;
  std::map<std::pair<std::string, std::string>, std::string> thread_names;
  for (const nlohmann::json& e : *events) {
    if (string_member(e, "ph") != "M") continue;
    const std::string name = string_member(e, "name");
    const std::string pid = id_text(member(e, "pid"));
    const std::string label = string_arg(member(e, "args"), "name");
    if (name == "process_name") {
      process_names[pid] = label;
    } else if (name == "thread_name") {
      thread_names[{pid, id_text(member(e, "tid"))}] = label;
    }
  }
  Profile p;
  p.origin = std::string(origin);
  p.format = "trace-json";
  std::map<std::string, size_t> plane_index;
  std::map<std::pair<std::string, std::string>, size_t> line_index;
  for (const nlohmann::json& e : *events) {
    if (string_member(e, "ph") != "X") continue;
    const nlohmann::json& ts = member(e, "ts");
    const nlohmann::json& dur = member(e, "dur");
    if (!ts.is_number() || !dur.is_number()) continue;
    const double start_us = ts.get<double>();
    const double duration_us = dur.get<double>();
    if (!std::isfinite(start_us) || !std::isfinite(duration_us) || duration_us < 0) continue;
    const std::string pid = id_text(member(e, "pid"));
    const std::string tid = id_text(member(e, "tid"));
    auto [plane, new_plane] = plane_index.try_emplace(pid, p.planes.size());
    if (new_plane) {
      auto name = process_names.find(pid);
      p.planes.push_back(
          {name != process_names.end() ? name->second : absl::StrCat("pid ", pid), {}});
    }
    ProfilePlane& pl = p.planes[plane->second];
    auto [line, new_line] = line_index.try_emplace({pid, tid}, pl.lines.size());
    if (new_line) {
      auto name = thread_names.find({pid, tid});
      pl.lines.push_back(
          {name != thread_names.end() ? name->second : absl::StrCat("tid ", tid), {}});
    }
    ProfileEvent event;
    event.name = string_member(e, "name");
    event.start_s = start_us * 1e-6;
    event.duration_s = duration_us * 1e-6;
    const nlohmann::json& args = member(e, "args");
    event.hlo_op = string_arg(args, "hlo_op");
    event.hlo_module = string_arg(args, "hlo_module");
    uint64_t correlation = 0;
    if (absl::SimpleAtoi(string_arg(args, "correlation_id"), &correlation)) {
      event.correlation_id = correlation;
    }
    pl.lines[line->second].events.push_back(std::move(event));
  }
  return p;
}

namespace {

bool is_xspace_name(const std::string& name) { return absl::EndsWith(name, ".xplane.pb"); }
bool is_trace_name(const std::string& name) {
  return absl::EndsWith(name, ".trace.json.gz") || absl::EndsWith(name, ".trace.json") ||
         name == "perfetto_trace.json.gz" || name == "perfetto_trace.json";
}

// The profile file directly in `dir`: an XSpace first, then a trace; nullopt when none.
std::optional<fs::path> profile_file_in(const fs::path& dir) {
  std::vector<fs::path> xspaces, traces;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    if (!entry.is_regular_file(ec)) continue;
    const std::string name = entry.path().filename().string();
    if (is_xspace_name(name)) xspaces.push_back(entry.path());
    if (is_trace_name(name)) traces.push_back(entry.path());
  }
  std::sort(xspaces.begin(), xspaces.end());
  std::sort(traces.begin(), traces.end());
  if (!xspaces.empty()) return xspaces.front();
  if (!traces.empty()) return traces.front();
  return std::nullopt;
}

// DIR itself, DIR/plugins/profile/RUN (the last run by name: runs are named by their time),
// DIR/profile (a capture folder), in that order.
std::optional<fs::path> find_profile_file(const fs::path& dir, int depth) {
  if (std::optional<fs::path> f = profile_file_in(dir)) return f;
  std::error_code ec;
  const fs::path runs = dir / "plugins" / "profile";
  if (fs::is_directory(runs, ec)) {
    std::vector<fs::path> names;
    for (const fs::directory_entry& entry : fs::directory_iterator(runs, ec)) {
      if (entry.is_directory(ec)) names.push_back(entry.path());
    }
    std::sort(names.rbegin(), names.rend());
    for (const fs::path& run : names) {
      if (std::optional<fs::path> f = profile_file_in(run)) return f;
    }
  }
  if (depth > 0 && fs::is_directory(dir / "profile", ec)) {
    return find_profile_file(dir / "profile", depth - 1);
  }
  return std::nullopt;
}

}  // namespace

absl::StatusOr<Profile> read_profile(std::string_view path_text) {
  const fs::path path{std::string(path_text)};
  std::error_code ec;
  fs::path file = path;
  if (fs::is_directory(path, ec)) {
    std::optional<fs::path> found = find_profile_file(path, 1);
    if (!found) {
      return absl::NotFoundError(absl::StrCat(
          "no profile in '", path.string(),
          "': looked for *.xplane.pb, perfetto_trace.json.gz or *.trace.json.gz there, in "
          "plugins/profile/RUN/ and in profile/"));
    }
    file = *found;
  }
  // The checks every input gets: a regular file (not /dev/zero, not a named pipe), its size
  // known and within the limit.
  absl::StatusOr<InputFile> read = read_input_file(file.string(), kMaxProfileFileBytes);
  if (!read.ok()) return read.status();
  const std::string_view bytes = read->text();
  const std::string name = file.filename().string();
  const std::string origin = file.string();
  const bool json_name = absl::EndsWith(name, ".json") || absl::EndsWith(name, ".json.gz");
  const bool looks_json = !bytes.empty() && (bytes[0] == '{' || bytes[0] == '[');
  if (json_name || is_gzip(bytes) || looks_json) return parse_trace_json(bytes, origin);
  return parse_xspace(bytes, origin);
}

absl::StatusOr<const ProfilePlane*> device_plane(const Profile& profile, int index) {
  const std::string suffix = absl::StrCat(":", index);
  const ProfilePlane* loose = nullptr;
  for (const ProfilePlane& plane : profile.planes) {
    for (std::string_view kind : {"GPU", "TPU"}) {
      const std::string wanted = absl::StrCat(sv(kind), suffix);
      size_t at = plane.name.find(wanted);
      while (at != std::string::npos) {
        const size_t end = at + wanted.size();
        const bool whole = end == plane.name.size() || !absl::ascii_isdigit(plane.name[end]);
        if (whole) {
          if (plane.name.compare(0, 8, "/device:") == 0) return &plane;
          if (loose == nullptr) loose = &plane;
        }
        at = plane.name.find(wanted, at + 1);
      }
    }
  }
  if (loose != nullptr) return loose;
  std::string names;
  for (const ProfilePlane& plane : profile.planes) {
    absl::StrAppend(&names, names.empty() ? "" : ", ", "'", plane.name, "'");
  }
  return absl::NotFoundError(absl::StrCat(profile.origin, ": no plane for device ", index, " (GPU",
                                          suffix, " or TPU", suffix, "); the profile has ",
                                          profile.planes.empty() ? "no planes" : names,
                                          ". Pick another with --device-index"));
}

}  // namespace hloroof
