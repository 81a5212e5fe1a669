// prediction_to_trace_json: the predicted timeline as Chrome trace events.
#include <map>

#include "hloroof/report.h"
#include "hloroof/trace.h"

namespace hloroof {

std::string prediction_to_trace_json(const Prediction& p) {
  TraceBuilder trace;
  std::map<std::string, int, std::less<>> tracks;
  tracks.emplace("compute", trace.add_track("compute"));
  for (const TimelineEvent& e : p.timeline) {
    auto it = tracks.find(e.track);
    if (it == tracks.end()) it = tracks.emplace(e.track, trace.add_track(e.track)).first;
    trace.add_slice(it->second, e.name, e.start_s, e.duration_s);
  }
  return trace.to_json();
}

}  // namespace hloroof
