#include "absl/strings/str_cat.h"
#include "report/op_terms.h"

namespace hloroof::report_internal {

absl::StatusOr<OpFilter> OpFilter::compile(const std::string& pattern) {
  OpFilter filter;
  if (pattern.empty()) return filter;
  auto re = std::make_shared<const RE2>(pattern, RE2::Quiet);
  if (!re->ok()) {
    return absl::InvalidArgumentError(absl::StrCat("bad filter '", pattern, "': ", re->error()));
  }
  filter.re_ = std::move(re);
  return filter;
}

bool OpFilter::keeps(const OpPrediction& op) const {
  return re_ == nullptr || RE2::PartialMatch(op.name(), *re_) ||
         RE2::PartialMatch(op.opcode(), *re_) || RE2::PartialMatch(op.op_name(), *re_);
}

}  // namespace hloroof::report_internal
