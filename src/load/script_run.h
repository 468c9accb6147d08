// ScriptRun: a wrk script across one run — the main Lua state (setup, done) and one state per
// worker thread, prepared in wrk's order before the workers start. Created and used on the main
// thread before and after the run; while the run lasts, thread(i) belongs to worker i alone.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "http/request.h"
#include "load/run_options.h"
#include "net/address.h"
#include "script/script.h"
#include "stats/histogram.h"
#include "stats/run_result.h"

namespace hail {

class ScriptRun {
 public:
  // wrk's order: the main state loads the script; then for each thread a state of its own is
  // loaded, setup(thread) runs in the main state and init(args) in the thread's. Then, as wrk
  // does, request() runs once on thread 0 to count the requests one call returns (its pipeline
  // depth); a static script's request is rendered once per thread here.
  static Result<std::unique_ptr<ScriptRun>> prepare(const RunOptions& options,
                                                    const std::vector<SocketAddress>& addresses,
                                                    uint32_t threads);

  ThreadScript* thread(uint32_t i) { return threads_[i].get(); }
  // The address setup() gave thread i through thread.addr (nullopt: the run's own).
  std::optional<SocketAddress> address(uint32_t i) const;
  bool is_static() const { return is_static_; }
  bool wants_response() const { return wants_response_; }
  // Requests one request() call returns (wrk pipelines them on one connection).
  uint32_t pipeline() const { return pipeline_; }
  // A static script's requests for thread i, parsed once, and their hail.tag ("" if none).
  const std::vector<RequestTemplate>& static_requests(uint32_t i) const { return static_[i]; }
  const std::string& static_tag(uint32_t i) const { return static_tags_[i]; }
  // Whether any thread stopped itself in setup (wrk.thread:stop() there): it sends nothing.
  bool stopped_in_setup(uint32_t i) const;

  // done(summary, latency, requests) in the main state after the report, when the script has it.
  // rate_samples: the workers' per-thread requests/s samples, merged.
  Status done(const RunResult& result, const Histogram& rate_samples);

 private:
  ScriptRun() = default;

  std::unique_ptr<MainScript> main_;
  std::vector<std::unique_ptr<ThreadScript>> threads_;
  std::vector<std::vector<RequestTemplate>> static_;
  std::vector<std::string> static_tags_;
  bool is_static_ = true;
  bool wants_response_ = false;
  uint32_t pipeline_ = 1;
};

// The wrk table's starting values for this run (scheme, host, port, path, -H headers, body).
ScriptTarget script_target(const RunOptions& options);

}  // namespace hail
