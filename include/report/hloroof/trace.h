// Chrome trace-event JSON (loads in Perfetto and chrome://tracing): named tracks of slices,
// and counter tracks. Times are given in seconds and written in microseconds.
#ifndef HLOROOF_TRACE_H_
#define HLOROOF_TRACE_H_

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace hloroof {

class TraceBuilder {
 public:
  using Arg = std::pair<std::string, std::variant<double, int64_t, std::string>>;

  // A new track (a thread row in the viewer), shown in the order tracks were added.
  int add_track(std::string name);
  // A complete slice on `track`. Slices nest when one lies within another on the same track.
  void add_slice(int track, std::string name, double start_s, double duration_s,
                 std::vector<Arg> args = {});
  // One sample of the counter track `name` (created on first use).
  void add_counter(const std::string& name, double time_s, double value);

  // The whole trace: {"traceEvents": [...], "displayTimeUnit": "ns"}, events sorted by time.
  std::string to_json() const;

 private:
  struct Slice {
    int track;
    std::string name;
    double start_s, duration_s;
    std::vector<Arg> args;
  };
  struct Sample {
    std::string counter;
    double time_s, value;
  };
  std::vector<std::string> tracks_;
  std::vector<Slice> slices_;
  std::vector<Sample> samples_;
};

}  // namespace hloroof

#endif  // HLOROOF_TRACE_H_
