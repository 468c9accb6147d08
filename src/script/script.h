// wrk-compatible Lua scripting on LuaJIT: ThreadScript is one worker's Lua state (wrk's thread->L),
// MainScript the state that runs setup() and done() (wrk's L). Owned by the run's driver. A
// ThreadScript is used by the main thread until init() (and thread 0's counting request()) return,
// then only by its worker, then again by the main thread after join (thread:get in done()).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.h"
#include "net/address.h"
#include "script/stats_view.h"

struct lua_State;

namespace hail {

namespace script_internal {
struct ThreadShared;
}

// What wrk's table starts with, from the URL and the flags.
struct ScriptTarget {
  std::string scheme, host, port;          // host without IPv6 brackets; port "" -> wrk.port nil
  std::string method = "GET", path = "/";  // path with its query
  std::vector<std::pair<std::string, std::string>>
      headers;       // -H fields; a repeated name: last wins
  std::string body;  // "" -> wrk.body nil
};

// done()'s summary table: summary.duration (us), .requests, .bytes, .errors.{connect, ...}.
struct ScriptSummary {
  uint64_t duration_us = 0;
  uint64_t requests = 0;
  uint64_t bytes = 0;
  uint64_t connect = 0;
  uint64_t read = 0;
  uint64_t write = 0;
  uint64_t status = 0;
  uint64_t timeout = 0;
};

struct ScriptResponseHeader {
  std::string_view name, value;
};

class ThreadScript {
 public:
  // Runs the script's top level. path "" means no script: wrk's plain behaviour (a static request
  // built from the target), useful to drive every run through one code path.
  static Result<std::unique_ptr<ThreadScript>> load(const std::string& path,
                                                    const ScriptTarget& target);
  ~ThreadScript();
  ThreadScript(const ThreadScript&) = delete;
  ThreadScript& operator=(const ThreadScript&) = delete;

  // wrk.init(args): args[0] is the URL, args[1..] the words after `--` (wrk's indexing). Defaults
  // the Host header, runs the script's init(args) and renders the static request.
  Status init(const std::vector<std::string>& args);

  bool is_static() const;       // no global request function (wrk's script_is_static)
  bool wants_response() const;  // the global response is a function
  bool has_delay() const;       // the global delay is a function

  // The global request() if it is a function, else the static request (wrk.request(), called once
  // and kept). The bytes, possibly several requests back to back (wrk's pipelining), stay valid
  // until the next call. Anything but a non-empty string is an error.
  Result<std::string_view> request();
  // The hail.tag() name given during the last request() (for the static request: during init());
  // "" if none.
  std::string_view tag() const;

  // Calls the global response(status, headers, body) if it is a function (else nothing): headers
  // become a table (a repeated name: the last value wins, as in wrk).
  Status response(int status, const ScriptResponseHeader* headers, size_t count,
                  std::string_view body);
  // The global delay()'s number of milliseconds (fraction kept; wrk truncates to whole ms). 0 when
  // there is no delay function, or it returns a negative number, NaN or a non-number.
  Result<double> delay_ms();

  // thread:stop() from setup() or done() in the main state, or wrk.thread:stop() in this one.
  bool stop_requested() const;
  // thread.addr as setup() left it (wrk.setup() sets it to wrk.addrs[1]); nullopt if never set or
  // set to nil. wrk connects (and reconnects) to this address; the worker may change it mid-run.
  std::optional<SocketAddress> address() const;
  uint32_t index() const;  // as given to MainScript::setup()

 private:
  friend class MainScript;
  ThreadScript();
  bool global_is_function(const char* name) const;
  Result<std::string_view> take_request(int slot);

  lua_State* state_ = nullptr;
  std::shared_ptr<script_internal::ThreadShared> shared_;
  // Where hail.tag() writes: &request_tag_ during request(), &init_tag_ during init() and the
  // static rendering, nullptr otherwise (a tag anywhere else has no request to label).
  std::string* tag_target_ = nullptr;
  std::string init_tag_;
  std::string request_tag_;
  std::string_view static_request_;
  bool static_rendered_ = false;
  bool last_static_ = true;
};

class MainScript {
 public:
  // addrs become wrk.addrs (set after the script's top level ran, as wrk resolves after loading).
  // hail does not test-connect them as wrk.resolve() does; wrk.resolve stays callable.
  static Result<std::unique_ptr<MainScript>> load(const std::string& path,
                                                  const ScriptTarget& target,
                                                  std::vector<SocketAddress> addrs);
  ~MainScript();
  MainScript(const MainScript&) = delete;
  MainScript& operator=(const MainScript&) = delete;

  // wrk.setup(thread) for a thread object bound to `thread`: thread.addr, thread:get/set/stop as in
  // wrk. Call in thread order, each right before that thread's init(). The thread objects a script
  // keeps refer to their ThreadScript until it is destroyed (then get/set raise a Lua error).
  Status setup(ThreadScript& thread, uint32_t index);
  bool has_done() const;
  // Calls done(summary, latency, requests); the statistics objects stop working when it returns.
  Status done(const ScriptSummary& summary, const StatsView& latency, const StatsView& requests);

 private:
  MainScript() = default;
  lua_State* state_ = nullptr;
};

}  // namespace hail
