// Captured responses: a wrk script's response() (and its wrk.thread:stop()), and the collectors
// that asked for a response's head (ab's first-response facts). Members of Connection; its
// worker's thread only.
#include "load/connection.h"
#include "load/measurement_sink.h"

namespace hail {

void Connection::on_response_captured(
    uint32_t /*slot*/, int status, const std::vector<std::pair<std::string, std::string>>& headers,
    std::string_view body) {
  if (sink_captures_) {
    env_->sink->on_captured(index_, status, headers, session_->last_body_bytes());
    set_capture();  // capture only as long as someone still wants it
  }
  ThreadScript* script = env_->script;
  if (script == nullptr || !script->wants_response() || finished()) return;
  // wrk calls response() for every response, warm-up included; the views live during the call.
  std::vector<ScriptResponseHeader>& views = *env_->script_headers;
  views.clear();
  for (const auto& [name, value] : headers) views.push_back({name, value});
  // The response itself is counted right after this call: the run stops only then.
  if (Status st = script->response(status, views.data(), views.size(), body); !st) {
    *env_->script_stop = st.error().message;
    stop_after_response_ = true;
  } else if (script->stop_requested()) {
    env_->script_stop->clear();
    stop_after_response_ = true;
  }
}

}  // namespace hail
