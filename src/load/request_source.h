// RequestSource: what a worker's connections send next — the one prebuilt request (the usual
// case, and wrk's static script request), a weighted choice among --urls lines, or a wrk script's
// request() — and the tag each request is counted under. Owned by one Worker; used only by that
// worker's thread (the script's Lua state included).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "http/request.h"
#include "load/schedule.h"
#include "load/url_mix.h"
#include "script/script.h"
#include "stats/tag_stats.h"

namespace hail {

class RequestSource {
 public:
  static constexpr uint16_t kNoTag = 0xFFFF;

  // The same request every time (tag: kNoTag unless the run keeps tags for it).
  explicit RequestSource(RequestTemplate single, uint16_t tag = kNoTag);
  // --urls: one template per line; `groups[g]` lists the lines connections of group g choose
  // among, by weight. Tags are the line indices (the worker interns the labels in line order).
  // `slice`: this worker's part of the run's one sequence of picks per group (MixChooser).
  RequestSource(std::vector<RequestTemplate> lines, const std::vector<MixLine>& mix,
                const std::vector<std::vector<uint32_t>>& groups, MixOrder order, uint64_t seed,
                WorkerSlice slice = {});
  // A script whose request() is a function (wrk's dynamic requests). `connections` sizes the
  // per-connection queues of pipelined requests.
  RequestSource(ThreadScript* script, std::string scheme, uint32_t connections);
  // Where hail.tag names are interned (the worker's table; null: tags are not kept).
  void set_tag_table(TagTable* tags) { tag_table_ = tags; }

  // The next request for connection `connection_index` of group `group`. A script's request is
  // parsed into `scratch` (the connection slot's own template, kept until the request's outcome;
  // required when dynamic()) and `scratch` is returned; the others return a template that lives
  // as long as the source. nullptr: the script failed or stopped (error(), "" for
  // wrk.thread:stop()) — the worker stops.
  const RequestTemplate* next(uint32_t connection_index, uint32_t group, RequestTemplate* scratch,
                              uint16_t* tag);

  bool dynamic() const { return script_ != nullptr; }
  const std::string& error() const { return error_; }

 private:
  // Requests one request() call returned beyond the first: a connection takes them in order
  // before calling request() again (wrk's pipelining of concatenated requests).
  struct Queue {
    std::vector<RequestTemplate> parsed;
    size_t next = 0;
    uint16_t tag = kNoTag;
  };
  const RequestTemplate* next_scripted(uint32_t connection_index, RequestTemplate& scratch,
                                       uint16_t* tag);

  std::vector<RequestTemplate> templates_;
  std::vector<uint16_t> tags_;        // per template
  std::vector<MixChooser> choosers_;  // per group (mixes only)
  std::vector<std::vector<uint32_t>> group_lines_;
  ThreadScript* script_ = nullptr;
  TagTable* tag_table_ = nullptr;
  std::string scheme_;
  std::vector<Queue> queues_;  // per connection (scripts only)
  std::string error_;
};

}  // namespace hail
