// nccl-tests logs read (include/profile/hloroof/nccl_tests.h); the network fitted to them is
// calibrate_nccl_tests.cc's.
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

}  // namespace hloroof
