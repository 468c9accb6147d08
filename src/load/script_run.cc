#include "load/script_run.h"

#include <utility>

#include "http/raw_request.h"

namespace hail {

namespace {

// The port as the URL text spells it ("80" in http://h:80/), "" when the text names none.
std::string typed_port(std::string_view text) {
  size_t start = text.find("://");
  if (start == std::string_view::npos) return "";
  start += 3;
  std::string_view authority = text.substr(start, text.find_first_of("/?#", start) - start);
  if (const size_t at = authority.rfind('@'); at != std::string_view::npos) {
    authority.remove_prefix(at + 1);
  }
  size_t colon = std::string_view::npos;
  if (!authority.empty() && authority.front() == '[') {
    const size_t close = authority.find(']');
    if (close != std::string_view::npos && close + 1 < authority.size() &&
        authority[close + 1] == ':') {
      colon = close + 1;
    }
  } else {
    colon = authority.rfind(':');
  }
  return colon == std::string_view::npos ? "" : std::string(authority.substr(colon + 1));
}

}  // namespace

ScriptTarget script_target(const RunOptions& options) {
  ScriptTarget t;
  const Url& url = options.url;
  t.scheme = url.scheme;
  t.host = url.host;
  // wrk.port is the URL's port as typed, nil when it names none (wrk's Host header then has no
  // port either, and with an explicit :80 it has one). Without the text (a --urls file), a default
  // port counts as none.
  if (!options.url_text.empty()) {
    t.port = typed_port(options.url_text);
  } else {
    const uint16_t default_port = url.scheme == "https" ? 443 : 80;
    t.port = url.port == default_port ? "" : std::to_string(url.port);
  }
  t.method = options.request.method;
  t.path = url.path;
  t.headers = options.request.headers;
  t.body = options.request.body;
  return t;
}

Result<std::unique_ptr<ScriptRun>> ScriptRun::prepare(const RunOptions& options,
                                                      const std::vector<SocketAddress>& addresses,
                                                      uint32_t threads) {
  std::unique_ptr<ScriptRun> run(new ScriptRun());
  const ScriptTarget target = script_target(options);
  auto main = MainScript::load(options.script_path, target, addresses);
  if (!main) return main.error();
  run->main_ = std::move(main.value());
  // init(args): args[0] is the URL, then the words after "--" (wrk's indexing).
  std::vector<std::string> args;
  args.push_back(options.url_text.empty() ? options.url.to_string() : options.url_text);
  args.insert(args.end(), options.script_args.begin(), options.script_args.end());
  for (uint32_t i = 0; i < threads; ++i) {
    auto thread = ThreadScript::load(options.script_path, target);
    if (!thread) return thread.error();
    if (Status st = run->main_->setup(*thread.value(), i); !st) return st.error();
    if (Status st = thread.value()->init(args); !st) return st.error();
    run->threads_.push_back(std::move(thread.value()));
  }
  ThreadScript& first = *run->threads_.front();
  run->is_static_ = first.is_static();
  run->wants_response_ = first.wants_response();
  run->static_.resize(threads);
  run->static_tags_.resize(threads);
  for (uint32_t i = 0; i < threads; ++i) {
    // wrk calls request() once on thread 0 before the run (script_verify_request) whether or not
    // it is static; a static script's request is the same every time, so it is parsed once here.
    if (i > 0 && !run->is_static_) break;
    ThreadScript& t = *run->threads_[i];
    auto bytes = t.request();
    if (!bytes) return bytes.error();
    std::vector<RequestTemplate> parsed;
    if (Status st = parse_raw_requests(*bytes, options.url.scheme, &parsed); !st) {
      return make_error(options.script_path +
                        ": request() returned a bad request: " + st.error().message);
    }
    if (i == 0) run->pipeline_ = static_cast<uint32_t>(parsed.size());
    if (run->is_static_) {
      run->static_[i] = std::move(parsed);
      run->static_tags_[i] = std::string(t.tag());
    }
  }
  return run;
}

std::optional<SocketAddress> ScriptRun::address(uint32_t i) const {
  return threads_[i]->address();
}

bool ScriptRun::stopped_in_setup(uint32_t i) const {
  return threads_[i]->stop_requested();
}

Status ScriptRun::done(const RunResult& result, const Histogram& rate_samples) {
  if (!main_->has_done()) return ok_status();
  const Counters& c = result.counters;
  ScriptSummary s;
  s.duration_us = result.duration_ns / 1000;
  s.requests = c.completed;
  s.bytes = c.bytes_read;
  s.connect = c.error(ErrorClass::kConnect);
  // wrk counts a response it cannot parse as a read error; HTTP/2 stream resets are alike.
  s.read = c.error(ErrorClass::kRead) + c.error(ErrorClass::kParse) + c.error(ErrorClass::kStream);
  s.write = c.error(ErrorClass::kWrite);
  s.status = c.status_errors;
  s.timeout = c.error(ErrorClass::kTimeout);
  HistogramStatsView latency(result.latency, 1000.0);  // wrk reports microseconds
  HistogramStatsView requests(rate_samples, 1.0);
  return main_->done(s, latency, requests);
}

}  // namespace hail
