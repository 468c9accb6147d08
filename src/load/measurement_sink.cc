#include "load/measurement_sink.h"

namespace hail {

MeasurementSink::MeasurementSink(SinkSettings settings)
    : settings_(std::move(settings)),
      windows_(settings_.windows),
      coalescer_(settings_.coalesce_wakeups) {
  for (const std::string& name : settings_.tag_names) tags_.intern(name);
  windows_.intervals().set_tags(&tags_);
}

void MeasurementSink::start(EventLoop& loop, uint64_t now_ns) {
  windows_.start(loop, now_ns, &open_connections_);
  for (Collector* c : collectors_) c->on_start(loop, settings_.measure_start_ns);
}

void MeasurementSink::stop(EventLoop& loop, uint64_t now_ns, uint64_t counted_in_flight) {
  recorder_.set_in_flight(counted_in_flight);
  windows_.stop(now_ns);
  for (Collector* c : collectors_) c->on_stop(loop, now_ns);
}

void MeasurementSink::on_failure(const Outcome& o) {
  if (o.counted) {
    recorder_.on_error(o.error);
    if (o.reason != nullptr && *o.reason != '\0') recorder_.on_error_reason(o.error, o.reason);
    tags_.on_error(o.tag, o.error);
  }
  windows_.on_error(o.counted, o.error, o.tag);
}

void MeasurementSink::feed_collectors(const Outcome& o) {
  for (Collector* c : collectors_) c->on_outcome(o);
}

}  // namespace hail
