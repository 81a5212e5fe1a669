#include "hloroof/trace.h"

#include <algorithm>

#include "nlohmann/json.hpp"

namespace hloroof {
namespace {

constexpr int kPid = 1;

double micros(double seconds) { return seconds * 1e6; }

}  // namespace

int TraceBuilder::add_track(std::string name) {
  tracks_.push_back(std::move(name));
  return static_cast<int>(tracks_.size()) - 1;
}

void TraceBuilder::add_slice(int track, std::string name, double start_s, double duration_s,
                             std::vector<Arg> args) {
  slices_.push_back({track, std::move(name), start_s, duration_s, std::move(args)});
}

void TraceBuilder::add_counter(const std::string& name, double time_s, double value) {
  samples_.push_back({name, time_s, value});
}

std::string TraceBuilder::to_json() const {
  using nlohmann::json;
  json events = json::array();
  events.push_back({{"ph", "M"}, {"pid", kPid}, {"name", "process_name"},
                    {"args", {{"name", "hloroof predicted step"}}}});
  for (size_t t = 0; t < tracks_.size(); ++t) {
    events.push_back({{"ph", "M"}, {"pid", kPid}, {"tid", t}, {"name", "thread_name"},
                      {"args", {{"name", tracks_[t]}}}});
    events.push_back({{"ph", "M"}, {"pid", kPid}, {"tid", t}, {"name", "thread_sort_index"},
                      {"args", {{"sort_index", t}}}});
  }
  // Sorted by start, longer first on ties, so an enclosing slice precedes what it encloses.
  std::vector<const Slice*> order;
  for (const Slice& s : slices_) order.push_back(&s);
  std::stable_sort(order.begin(), order.end(), [](const Slice* a, const Slice* b) {
    if (a->start_s != b->start_s) return a->start_s < b->start_s;
    return a->duration_s > b->duration_s;
  });
  for (const Slice* s : order) {
    json args = json::object();
    for (const auto& [key, value] : s->args) {
      // Clang before 16 cannot capture a structured binding; name it first.
      const auto& name = key;
      std::visit([&](const auto& v) { args[name] = v; }, value);
    }
    events.push_back({{"ph", "X"},
                      {"pid", kPid},
                      {"tid", s->track},
                      {"name", s->name},
                      {"ts", micros(s->start_s)},
                      {"dur", micros(s->duration_s)},
                      {"args", std::move(args)}});
  }
  std::vector<const Sample*> samples;
  for (const Sample& s : samples_) samples.push_back(&s);
  std::stable_sort(samples.begin(), samples.end(),
                   [](const Sample* a, const Sample* b) { return a->time_s < b->time_s; });
  for (const Sample* s : samples) {
    events.push_back({{"ph", "C"},
                      {"pid", kPid},
                      {"name", s->counter},
                      {"ts", micros(s->time_s)},
                      {"args", {{"value", s->value}}}});
  }
  json trace = {{"traceEvents", std::move(events)}, {"displayTimeUnit", "ns"}};
  // Invalid UTF-8 in names (HLO strings may hold any byte) is replaced, never thrown on.
  return trace.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace hloroof
