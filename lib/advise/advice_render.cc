// Advice for people (text within 100 columns) and for programs (JSON).
#include <algorithm>
#include <cctype>

#include "absl/strings/str_cat.h"
#include "hloroof/advise.h"
#include "hloroof/units.h"
#include "nlohmann/json.hpp"
#include "hloroof/wrap.h"
#include "hloroof/text_safety.h"

namespace hloroof {
namespace {

using report_internal::wrap;
using Json = nlohmann::ordered_json;

constexpr std::string_view kIndent = "               ";  // under the labels below

// A figure and its unit ("4 us", "128 MiB") stay on one line: the space between a digit and
// a letter is held while wrapping.
constexpr char kHeldSpace = '\x1f';

std::string wrap_figures(std::string_view text, std::string_view first, std::string_view indent) {
  std::string held(text);
  for (size_t k = 1; k + 1 < held.size(); ++k) {
    const unsigned char before = held[k - 1], after = held[k + 1];
    if (held[k] == ' ' && std::isdigit(before) && std::isalpha(after)) held[k] = kHeldSpace;
  }
  std::string out = wrap(held, first, indent);
  std::replace(out.begin(), out.end(), kHeldSpace, ' ');
  return out;
}

std::string labelled(std::string_view label, std::string_view text) {
  std::string first = absl::StrCat("   ", std::string(label));
  first.resize(kIndent.size(), ' ');
  return wrap_figures(text, first, kIndent);
}

// Long names and scopes keep their end, which says the most, so that no word is wider than
// a line.
std::string clip(const std::string& s, size_t n = 60) {
  if (s.size() <= n) return s;
  return absl::StrCat("~", s.substr(s.size() - (n - 1)));
}

// Names, scopes and custom-call targets come from the module: control characters are
// escaped for the terminal.
std::string evidence_text(const AdviceEvidence& e) {
  std::string where = clip(printable(e.op));
  if (!e.scope.empty()) {
    absl::StrAppend(&where, " [", clip(printable(e.scope)), "]");
  } else if (!e.computation.empty()) {
    absl::StrAppend(&where, " in ", clip(printable(e.computation)));
  }
  return absl::StrCat(where, ": ", printable(e.detail));
}

}  // namespace

std::string render_advice_text(const Advice& advice) {
  std::string out;
  for (const std::string& w : advice.warnings) out += wrap_figures(w, "warning: ", "  ");
  if (advice.findings.empty()) {
    return out + wrap(absl::StrCat("advice: nothing to fix found in the ",
                                   format_seconds(advice.step_time_s), " step on ", advice.device,
                                   " (docs/advise.md lists the rules and their thresholds)"),
                      "", "  ");
  }
  const std::string count = absl::StrCat("advice: ", advice.findings.size(), " finding",
                                         advice.findings.size() == 1 ? "" : "s");
  const std::string step =
      absl::StrCat(format_seconds(advice.step_time_s), advice.step_is_lower_bound ? " (floor)" : "",
                   " step on ", advice.device);
  const double share = advice.step_time_s > 0 ? advice.time_at_stake_s / advice.step_time_s : 0;
  out += wrap_figures(
      advice.time_at_stake_s > 0
          ? absl::StrCat(count, ", ", format_seconds(advice.time_at_stake_s), " of the ", step,
                         " at stake (", format_percent(share), ")")
          : absl::StrCat(count, " about the ", step, ", none with step time at stake"),
      "", "  ");
  int rank = 0;
  for (const AdviceFinding& f : advice.findings) {
    absl::StrAppend(&out, "\n",
                    wrap(absl::StrCat(f.id, ": ", printable(f.title)),
                         absl::StrCat("#", ++rank, " "), "   "));
    const std::string stake =
        f.time_at_stake_s > 0
            ? absl::StrCat(format_seconds(f.time_at_stake_s), " (", format_percent(f.step_share),
                           " of the step) = ", f.arithmetic)
            : f.arithmetic;
    absl::StrAppend(&out, labelled("at stake", printable(stake)));
    absl::StrAppend(&out, labelled("found", printable(f.what)));
    for (size_t k = 0; k < f.evidence.size(); ++k) {
      absl::StrAppend(&out, labelled(k == 0 ? "evidence" : "", evidence_text(f.evidence[k])));
    }
    if (f.op_count > static_cast<int64_t>(f.evidence.size()) && !f.evidence.empty()) {
      absl::StrAppend(
          &out,
          labelled("", absl::StrCat("... ", f.op_count - static_cast<int64_t>(f.evidence.size()),
                                    " more (advise --evidence 0 lists all)")));
    }
    absl::StrAppend(&out, labelled("fix", printable(f.fix)));
  }
  out += "\n";
  for (const std::string& n : advice.notes) absl::StrAppend(&out, wrap_figures(n, "note: ", "  "));
  return out;
}

std::string advice_to_json(const Advice& advice) {
  Json findings = Json::array();
  for (const AdviceFinding& f : advice.findings) {
    Json evidence = Json::array();
    for (const AdviceEvidence& e : f.evidence) {
      evidence.push_back({{"op", e.op},
                          {"computation", e.computation},
                          {"scope", e.scope},
                          {"shape", e.shape},
                          {"detail", e.detail},
                          {"bytes", e.bytes},
                          {"time_s", e.time_s},
                          {"multiplier", e.multiplier},
                          {"time_at_stake_s", e.time_at_stake_s}});
    }
    findings.push_back({{"id", f.id},
                        {"title", f.title},
                        {"what", f.what},
                        {"fix", f.fix},
                        {"time_at_stake_s", f.time_at_stake_s},
                        {"step_share", f.step_share},
                        {"counted_elsewhere_s", f.counted_elsewhere_s},
                        {"arithmetic", f.arithmetic},
                        {"bytes_at_stake", f.bytes_at_stake},
                        {"op_count", f.op_count},
                        {"evidence", std::move(evidence)}});
  }
  Json j = {{"device", advice.device},
            {"module", advice.module_name},
            {"warnings", advice.warnings},
            {"step_time_s", advice.step_time_s},
            {"lower_bound", advice.step_is_lower_bound},
            {"time_at_stake_s", advice.time_at_stake_s},
            {"notes", advice.notes},
            {"findings", std::move(findings)}};
  return j.dump(2, ' ', false, Json::error_handler_t::replace);
}

}  // namespace hloroof
