#include "load/request_source.h"

#include <utility>

#include "http/raw_request.h"

namespace hail {

RequestSource::RequestSource(RequestTemplate single, uint16_t tag) {
  templates_.push_back(std::move(single));
  tags_.push_back(tag);
  group_lines_.push_back({0});
}

RequestSource::RequestSource(std::vector<RequestTemplate> lines, const std::vector<MixLine>& mix,
                             const std::vector<std::vector<uint32_t>>& groups, MixOrder order,
                             uint64_t seed, WorkerSlice slice)
    : templates_(std::move(lines)), group_lines_(groups) {
  for (size_t i = 0; i < templates_.size(); ++i) tags_.push_back(static_cast<uint16_t>(i));
  for (size_t g = 0; g < groups.size(); ++g) {
    std::vector<double> weights;
    for (uint32_t line : groups[g]) weights.push_back(mix[line].weight);
    // Each group its own stream of choices; seeds differ so that groups do not move in step.
    choosers_.emplace_back(weights, order, seed + g);
    choosers_.back().set_slice(slice.index, slice.count);
  }
}

RequestSource::RequestSource(ThreadScript* script, std::string scheme, uint32_t connections)
    : script_(script), scheme_(std::move(scheme)), queues_(connections) {}

const RequestTemplate* RequestSource::next(uint32_t connection_index, uint32_t group,
                                           RequestTemplate* scratch, uint16_t* tag) {
  if (script_ != nullptr) return next_scripted(connection_index, *scratch, tag);
  uint32_t index = 0;
  if (!choosers_.empty()) index = group_lines_[group][choosers_[group].next()];
  *tag = tags_[index];
  return &templates_[index];
}

const RequestTemplate* RequestSource::next_scripted(uint32_t connection_index,
                                                    RequestTemplate& scratch, uint16_t* tag) {
  Queue& q = queues_[connection_index];
  if (q.next >= q.parsed.size()) {
    auto bytes = script_->request();
    if (!bytes) {
      error_ = bytes.error().message;
      return nullptr;
    }
    if (script_->stop_requested()) {
      error_.clear();  // wrk.thread:stop() inside request(): no error, the load just ends
      return nullptr;
    }
    if (Status st = parse_raw_requests(*bytes, scheme_, &q.parsed); !st) {
      error_ = "request() returned a bad request: " + st.error().message;
      return nullptr;
    }
    q.next = 0;
    const std::string_view name = script_->tag();
    q.tag = name.empty() || tag_table_ == nullptr ? kNoTag : tag_table_->intern(name);
  }
  // The slot's old template goes back into the queue: parse_raw_requests reuses its capacity, so
  // the steady state allocates nothing here (Lua itself still does).
  std::swap(scratch, q.parsed[q.next++]);
  *tag = q.tag;
  return &scratch;
}

}  // namespace hail
