// nccl-tests logs, and interconnect.nic_efficiency fitted to the collectives in them that cross
// nodes (include/profile/hloroof/nccl_tests.h).
//
// The output format is that of NVIDIA/nccl-tests' src/common.cu: optional "# Collective test
// starting: NAME" and "#  Rank R Group G Pid P on HOST device D [BUS] NAME" lines, then a
// two-line column header ("#  size  count  type  redop  root  time  algbw  busbw  #wrong  time
// ..."; versions before 2.13 print "error" for "#wrong", and older all_gather tests leave out
// "redop" and "root"), then one row per size: out-of-place time (us), algbw and busbw (GB/s),
// then the same in place.
#include "hloroof/nccl_tests.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "device/embedded_files.h"
#include "device/spec_units.h"
#include "hloroof/hlo_text.h"
#include "hloroof/predict.h"
#include "hloroof/text_table.h"
#include "nlohmann/json.hpp"
#include "predict/expected_time.h"
#include "hloroof/absl_compat.h"

namespace hloroof {
namespace {

// A test by the name nccl-tests gives its binary (or a file named after it).
std::optional<CollectiveKind> test_kind(std::string_view name) {
  const std::string lower = absl::AsciiStrToLower(sv(name));
  if (absl::StrContains(lower, "all_reduce") || absl::StrContains(lower, "allreduce")) {
    return CollectiveKind::kAllReduce;
  }
  if (absl::StrContains(lower, "all_gather") || absl::StrContains(lower, "allgather")) {
    return CollectiveKind::kAllGather;
  }
  if (absl::StrContains(lower, "reduce_scatter") || absl::StrContains(lower, "reducescatter")) {
    return CollectiveKind::kReduceScatter;
  }
  if (absl::StrContains(lower, "alltoall") || absl::StrContains(lower, "all_to_all")) {
    return CollectiveKind::kAllToAll;
  }
  return std::nullopt;
}

std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  for (absl::string_view w : absl::StrSplit(sv(line), absl::ByAnyChar(" \t"), absl::SkipEmpty())) {
    out.push_back(sv(w));
  }
  return out;
}

// The column header: "#  size  count  type ... time  algbw  busbw ...". Its words after '#'.
bool is_header(const std::vector<std::string_view>& w) {
  return w.size() >= 6 && w[0] == "#" && w[1] == "size" &&
         std::find(w.begin(), w.end(), "busbw") != w.end();
}

// A test being read: its name, hosts by rank, the columns of its header and its rows.
struct Section {
  std::string name;
  std::map<int64_t, std::string> hosts;  // rank -> host
  int time_column = -1, busbw_column = -1;
  size_t columns = 0;
  std::vector<NcclTestsRow> rows;
  std::vector<int64_t> lines;                       // each row's line of the log, from 1
  std::vector<std::pair<double, double>> printed;  // each row's time (us), busbw (GB/s) rounding
};

// Half a unit of the last digit `number` is printed with: 0.005 for "203.25", 0.5 for "6759".
double half_last_digit(std::string_view number) {
  const size_t point = number.find('.');
  if (point == std::string_view::npos) return 0.5;
  size_t digits = 0;
  while (point + 1 + digits < number.size() &&
         absl::ascii_isdigit(static_cast<unsigned char>(number[point + 1 + digits]))) {
    ++digits;
  }
  return 0.5 * std::pow(10.0, -static_cast<double>(digits));
}

// nccl-tests' bus bandwidth over its algorithm bandwidth (size / time) for `ranks` ranks (its
// doc/PERFORMANCE.md): all-reduce 2(n-1)/n, the others (n-1)/n.
double bus_factor(CollectiveKind kind, int64_t ranks) {
  const double n = static_cast<double>(ranks);
  return (kind == CollectiveKind::kAllReduce ? 2 : 1) * (n - 1) / n;
}

// The first row of `s` whose busbw column contradicts its size and time (each read to the
// precision the log prints it with, and 1% besides), as an error; ok when none does. A row
// edited by hand (a time of 1 us for 1 GiB) would otherwise drive the fit.
absl::Status check_rows(const Section& s, CollectiveKind kind, int64_t ranks,
                        std::string_view where) {
  const double factor = bus_factor(kind, ranks);
  for (size_t k = 0; k < s.rows.size(); ++k) {
    const NcclTestsRow& row = s.rows[k];
    const double time_us = row.time_s * 1e6, busbw = row.bus_bytes_per_s / 1e9;
    const auto [time_half, busbw_half] = s.printed[k];
    // busbw = size / time * factor, over the times the printed one may stand for.
    const double low = row.size_bytes / ((time_us + time_half) * 1e3) * factor;
    const double high = time_us - time_half > 0
                            ? row.size_bytes / ((time_us - time_half) * 1e3) * factor
                            : std::numeric_limits<double>::infinity();
    if (busbw + busbw_half < low / 1.01 || busbw - busbw_half > high * 1.01) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s, line %d: the row contradicts itself: %.0f B in %g us over %d ranks is a bus "
          "bandwidth of %.4g GB/s, but its busbw column says %g GB/s; correct the row or delete "
          "it",
          where, s.lines[k], row.size_bytes, time_us, ranks,
          row.size_bytes / (time_us * 1e3) * factor, busbw));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<NcclTestsRun> finish(const Section& s, std::string_view origin) {
  const std::string where =
      s.name.empty() ? std::string(origin) : absl::StrCat(sv(origin), " (", s.name, ")");
  const std::string name =
      s.name.empty() ? std::filesystem::path(std::string(origin)).filename().string() : s.name;
  const std::optional<CollectiveKind> kind = test_kind(name);
  if (!kind) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": not a test of all_reduce_perf, all_gather_perf, reduce_scatter_perf or "
               "alltoall_perf (a log without its '# Collective test starting' line is named by "
               "its file name: rename it, e.g. all_reduce_perf.log)"));
  }
  if (s.rows.empty()) return absl::InvalidArgumentError(absl::StrCat(where, ": no result rows"));
  if (s.hosts.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": no '#  Rank N ... on HOST device ...' lines, so how many nodes the run spanned "
               "cannot be told: keep the log's 'Using devices' lines"));
  }
  std::map<std::string, int64_t> per_host;
  for (const auto& [rank, host] : s.hosts) ++per_host[host];
  for (const auto& [host, n] : per_host) {
    if (n != per_host.begin()->second) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": hosts run different numbers of ranks (", per_host.begin()->first, ": ",
          per_host.begin()->second, ", ", host, ": ", n, "): give runs of equal nodes"));
    }
  }
  const auto ranks = static_cast<int64_t>(s.hosts.size());
  if (absl::Status st = check_rows(s, *kind, ranks, where); !st.ok()) return st;
  NcclTestsRun run;
  run.origin = absl::StrCat(sv(origin), s.name.empty() ? "" : absl::StrCat(" ", s.name));
  run.kind = *kind;
  run.ranks = static_cast<int64_t>(s.hosts.size());
  run.nodes = static_cast<int64_t>(per_host.size());
  run.rows = s.rows;
  return run;
}

}  // namespace

bool looks_like_nccl_tests(std::string_view text) {
  // Anywhere in the text: the rank lines before the header grow with the run (712 GPUs: 66 KB).
  // Only the lines that hold "busbw" are split into words.
  constexpr std::string_view kBusbw = "busbw";
  for (size_t at = text.find(kBusbw); at != std::string_view::npos;
       at = text.find(kBusbw, at + kBusbw.size())) {
    const size_t begin = text.rfind('\n', at);
    const size_t start = begin == std::string_view::npos ? 0 : begin + 1;
    const size_t end = std::min(text.find('\n', at), text.size());
    if (is_header(words(text.substr(start, end - start)))) return true;
  }
  return false;
}

absl::StatusOr<std::vector<NcclTestsRun>> parse_nccl_tests(std::string_view text,
                                                           std::string_view origin) {
  std::vector<NcclTestsRun> out;
  Section s;
  bool open = false;
  auto close = [&]() -> absl::Status {
    if (!open) return absl::OkStatus();
    absl::StatusOr<NcclTestsRun> run = finish(s, origin);
    if (!run.ok()) return run.status();
    out.push_back(*std::move(run));
    s = Section();
    open = false;
    return absl::OkStatus();
  };
  int64_t line_number = 0;
  for (absl::string_view raw : absl::StrSplit(sv(text), '\n')) {
    ++line_number;
    const std::string_view line = sv(absl::StripAsciiWhitespace(raw));
    const std::vector<std::string_view> w = words(line);
    if (w.empty()) continue;
    if (absl::StartsWith(sv(line), "# Collective test starting:")) {
      if (absl::Status st = close(); !st.ok()) return st;
      s.name = std::string(w.back());
      open = true;
      continue;
    }
    if (w[0] == "#" && w.size() >= 5 && w[1] == "Rank") {
      // "#  Rank R Group G Pid P on HOST device D ..." (older versions: no Group).
      const auto on = std::find(w.begin() + 3, w.end(), "on");
      int64_t rank = 0;
      if (on != w.end() && on + 1 != w.end() && absl::SimpleAtoi(sv(w[2]), &rank)) {
        s.hosts[rank] = std::string(*(on + 1));
        open = true;
      }
      continue;
    }
    if (is_header(w)) {
      // The first "time" and "busbw" are the out-of-place ones; data rows have no '#'.
      s.columns = w.size() - 1;
      s.time_column = s.busbw_column = -1;
      for (size_t c = 1; c < w.size(); ++c) {
        if (w[c] == "time" && s.time_column < 0) s.time_column = static_cast<int>(c - 1);
        if (w[c] == "busbw" && s.busbw_column < 0) s.busbw_column = static_cast<int>(c - 1);
      }
      if (s.time_column < 0) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "%s, line %d: the column header has no 'time' column, so no row can be read; "
            "nccl-tests prints '#  size  count  type ... time  algbw  busbw ...'",
            origin, line_number));
      }
      open = true;
      continue;
    }
    if (w[0][0] == '#' || s.columns == 0 || w.size() != s.columns) continue;
    NcclTestsRow row;
    double time_us = 0, busbw = 0;
    double size = 0;
    const std::string_view time_text = w[static_cast<size_t>(s.time_column)];
    const std::string_view busbw_text = w[static_cast<size_t>(s.busbw_column)];
    if (!absl::SimpleAtod(sv(w[0]), &size) || !absl::SimpleAtod(sv(time_text), &time_us) ||
        !absl::SimpleAtod(sv(busbw_text), &busbw) ||
        !(size > 0 && time_us > 0 && busbw >= 0) || !std::isfinite(time_us) ||
        !std::isfinite(busbw)) {
      continue;
    }
    if (!(size <= static_cast<double>(kMaxNcclTestsBytes))) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s, line %d: a size of %s B, past the largest collective hloroof reads from "
          "nccl-tests logs (2^50 B = 1 PiB)",
          origin, line_number, w[0]));
    }
    row.size_bytes = std::floor(size);
    row.time_s = time_us * 1e-6;
    row.bus_bytes_per_s = busbw * 1e9;
    s.rows.push_back(row);
    s.lines.push_back(line_number);
    s.printed.emplace_back(half_last_digit(time_text), half_last_digit(busbw_text));
  }
  if (absl::Status st = close(); !st.ok()) return st;
  if (out.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(sv(origin), ": no nccl-tests results (a '#  size  count  type ... busbw' "
                             "header and its rows)"));
  }
  return out;
}

namespace {

// One collective of `row`'s size as an HLO module over `ranks` devices, f32 (a size that does not
// split into whole f32 elements per rank rounds down; none: nullopt).
std::optional<std::string> collective_module(CollectiveKind kind, double size_bytes,
                                             int64_t ranks) {
  const int64_t n = ranks;
  std::string group;
  for (int64_t r = 0; r < n; ++r) absl::StrAppend(&group, r == 0 ? "" : ",", r);
  const std::string groups = absl::StrCat("replica_groups={{", group, "}}");
  const double elements = std::floor(size_bytes / 4);
  std::string body;
  switch (kind) {
    case CollectiveKind::kAllReduce: {
      if (elements < 1) return std::nullopt;
      const auto e = static_cast<int64_t>(elements);
      body = absl::StrFormat(
          "  p = f32[%d] parameter(0)\n  ROOT c = f32[%d] all-reduce(p), channel_id=1, %s, "
          "use_global_device_ids=true, to_apply=add\n",
          e, e, groups);
      break;
    }
    case CollectiveKind::kAllGather:
    case CollectiveKind::kReduceScatter:
    case CollectiveKind::kAllToAll: {
      const auto per = static_cast<int64_t>(std::floor(elements / static_cast<double>(n)));
      if (per < 1) return std::nullopt;
      const int64_t whole = per * n;
      if (kind == CollectiveKind::kAllGather) {
        body = absl::StrFormat(
            "  p = f32[%d] parameter(0)\n  ROOT c = f32[%d] all-gather(p), channel_id=1, %s, "
            "dimensions={0}, use_global_device_ids=true\n",
            per, whole, groups);
      } else if (kind == CollectiveKind::kReduceScatter) {
        body = absl::StrFormat(
            "  p = f32[%d] parameter(0)\n  ROOT c = f32[%d] reduce-scatter(p), channel_id=1, "
            "%s, dimensions={0}, use_global_device_ids=true, to_apply=add\n",
            whole, per, groups);
      } else {
        body = absl::StrFormat(
            "  p = f32[%d] parameter(0)\n  ROOT c = f32[%d] all-to-all(p), channel_id=1, %s, "
            "dimensions={0}\n",
            whole, whole, groups);
      }
      break;
    }
    default:
      return std::nullopt;
  }
  return absl::StrCat("HloModule nccl_tests, num_partitions=", n,
                      "\n\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = "
                      "f32[] add(a, b)\n}\n\nENTRY e {\n",
                      body, "}\n");
}

// A row across nodes, its module parsed once.
struct Sample {
  const NcclTestsRun* run = nullptr;
  const NcclTestsRow* row = nullptr;
  Module module;
  std::string topology;
};

absl::StatusOr<double> expected_s(const Sample& s, const DeviceSpec& device) {
  absl::StatusOr<Topology> slice = make_topology(device, s.topology);
  if (!slice.ok()) return slice.status();
  absl::StatusOr<Prediction> p = predict_step_time(s.module, {.spec = device, .slice = *slice});
  if (!p.ok()) return p.status();
  return p->step_time_s;
}

DeviceSpec with_efficiency(const DeviceSpec& base, double e) {
  DeviceSpec d = base;
  d.gpu->nic_efficiency = e;
  return d;
}

// The sum of squared log(expected / measured) at efficiency e.
absl::StatusOr<double> loss(const std::vector<Sample>& samples, const DeviceSpec& base,
                            double e) {
  const DeviceSpec d = with_efficiency(base, e);
  double sum = 0;
  for (const Sample& s : samples) {
    absl::StatusOr<double> t = expected_s(s, d);
    if (!t.ok()) return t.status();
    const double r = std::log(*t / s.row->time_s);
    sum += r * r;
  }
  return sum;
}

// The device's JSON text: as read, else its built-in file.
absl::StatusOr<std::string> device_text(const DeviceSpec& spec) {
  if (!spec.json.empty()) return spec.json;
  constexpr std::string_view kBuiltin = "built-in ";
  if (absl::StartsWith(sv(spec.origin), sv(kBuiltin))) {
    const std::string_view file = std::string_view(spec.origin).substr(kBuiltin.size());
    for (const internal::EmbeddedFile& f : internal::builtin_device_files()) {
      if (f.name == file) return std::string(f.contents);
    }
  }
  return absl::NotFoundError(absl::StrCat("the text of device ", spec.name, " is not at hand"));
}

}  // namespace

absl::StatusOr<NcclTestsFit> fit_nccl_tests(absl::Span<const NcclTestsRun> runs,
                                            const DeviceSpec& base, std::string_view name) {
  if (base.kind != DeviceKind::kGpu || !base.gpu) {
    return absl::InvalidArgumentError(
        absl::StrCat(base.name, " is not a GPU: nccl-tests fit a GPU cluster's network"));
  }
  std::vector<Sample> samples;
  for (const NcclTestsRun& run : runs) {
    if (run.nodes < 2) continue;
    const int64_t per_node = run.ranks / run.nodes;
    if (per_node > base.gpu->nvlink_domain_size) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: %d ranks per node, more than %s's NVLink domain of %d: give a device whose "
          "nvlink_domain_size holds a node",
          run.origin, per_node, base.name, base.gpu->nvlink_domain_size));
    }
    for (const NcclTestsRow& row : run.rows) {
      std::optional<std::string> text = collective_module(run.kind, row.size_bytes, run.ranks);
      if (!text) continue;
      absl::StatusOr<Module> module = parse_module(*text);
      if (!module.ok()) return module.status();
      samples.push_back({&run, &row, *std::move(module), absl::StrCat(run.nodes, "x", per_node)});
    }
  }
  if (samples.empty()) {
    return absl::InvalidArgumentError(
        "no nccl-tests run spans nodes (their 'Rank' lines name one host): nic_efficiency is "
        "the network's across nodes; collectives inside one node are fitted from profiles");
  }
  NcclTestsFit fit;
  fit.before = base.gpu->nic_efficiency.value_or(predict::kScaleOutEfficiency);
  // Golden sections on log e over [kMinEfficiency, 1].
  double lo = std::log(internal::kMinEfficiency), hi = 0;
  const double g = (std::sqrt(5.0) - 1) / 2;
  double a = hi - g * (hi - lo), b = lo + g * (hi - lo);
  absl::StatusOr<double> fa = loss(samples, base, std::exp(a));
  absl::StatusOr<double> fb = loss(samples, base, std::exp(b));
  while (fa.ok() && fb.ok() && hi - lo > 1e-4) {
    if (*fa < *fb) {
      hi = b, b = a, fb = fa;
      a = hi - g * (hi - lo);
      fa = loss(samples, base, std::exp(a));
    } else {
      lo = a, a = b, fa = fb;
      b = lo + g * (hi - lo);
      fb = loss(samples, base, std::exp(b));
    }
  }
  if (!fa.ok()) return fa.status();
  if (!fb.ok()) return fb.status();
  fit.after = std::clamp(std::exp((lo + hi) / 2), internal::kMinEfficiency, 1.0);
  fit.device = with_efficiency(base, fit.after);
  const DeviceSpec given = with_efficiency(base, fit.before);
  for (const Sample& s : samples) {
    absl::StatusOr<double> before = expected_s(s, given);
    absl::StatusOr<double> after = expected_s(s, fit.device);
    if (!before.ok()) return before.status();
    if (!after.ok()) return after.status();
    fit.points.push_back({s.run->origin, s.row->size_bytes, s.row->time_s, *before, *after});
  }
  // The device file: the base's text with the figure, renamed.
  absl::StatusOr<std::string> text = device_text(base);
  if (!text.ok()) return text.status();
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(*text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("interconnect") ||
      !doc["interconnect"].is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat(base.origin, ": not a device JSON with an interconnect object"));
  }
  const std::string fitted_name = name.empty() ? absl::StrCat(base.name, "_fitted")
                                               : std::string(name);
  doc["name"] = fitted_name;
  doc["display_name"] = absl::StrCat(base.display_name, " (network fitted)");
  if (base.base.empty() && absl::StartsWith(sv(base.origin), "built-in ")) {
    doc["base"] = base.name;
  }
  doc.erase("aliases");
  doc["interconnect"]["nic_efficiency"] = std::round(fit.after * 1e4) / 1e4;
  if (!doc.contains("notes") || !doc["notes"].is_array()) {
    doc["notes"] = nlohmann::ordered_json::array();
  }
  doc["notes"].push_back(absl::StrFormat(
      "interconnect.nic_efficiency fitted by hloroof calibrate to %d nccl-tests sizes across "
      "nodes (%d test%s)",
      static_cast<int>(fit.points.size()), static_cast<int>(runs.size()),
      runs.size() == 1 ? "" : "s"));
  fit.json = doc.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
  absl::StatusOr<DeviceSpec> reread = parse_device_spec(fit.json, fitted_name);
  if (!reread.ok()) return reread.status();
  fit.device = *std::move(reread);
  return fit;
}

std::string render_nccl_tests_fit(const NcclTestsFit& fit) {
  struct Errors {
    std::vector<double> before, after;
  };
  std::map<std::string, Errors> by_test;
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n == 0 ? 0.0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  };
  for (const NcclTestsPoint& p : fit.points) {
    for (const std::string& key : {p.test, std::string("all")}) {
      by_test[key].before.push_back(std::abs(p.before_s / p.measured_s - 1));
      by_test[key].after.push_back(std::abs(p.after_s / p.measured_s - 1));
    }
  }
  TextTable table({{"test", TextTable::Align::kLeft, 48},
                   {"sizes"},
                   {"median error before"},
                   {"after"}});
  for (const auto& [test, e] : by_test) {
    if (test == "all") continue;
    table.add_row({test, std::to_string(e.before.size()),
                   absl::StrFormat("%.1f%%", 100 * median(e.before)),
                   absl::StrFormat("%.1f%%", 100 * median(e.after))});
  }
  const Errors& all = by_test["all"];
  table.add_row({"all", std::to_string(all.before.size()),
                 absl::StrFormat("%.1f%%", 100 * median(all.before)),
                 absl::StrFormat("%.1f%%", 100 * median(all.after))});
  return absl::StrCat(
      "nccl-tests across nodes: |expected / measured - 1| per size, median\n\n", table.render(),
      absl::StrFormat("\ninterconnect.nic_efficiency: %.3f -> %.3f (the share of the NICs' line "
                      "rate reached)\n",
                      fit.before, fit.after));
}

}  // namespace hloroof
