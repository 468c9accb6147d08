// What a connection hands on besides the counts: responses to a script's response() (and its
// wrk.thread:stop()), the first response's facts and every request's record for ab. Members of
// Connection; its worker's thread only.
#include <strings.h>

#include "load/connection.h"
#include "load/worker.h"

namespace hail {

void Connection::log_request(const Slot& s, int status, uint64_t now_ns) {
  RequestRecord r;
  r.start_unix_ns = s.start_ns;  // monotonic here; the runner moves it to the wall clock
  r.connect_ns = s.connect_ns;
  r.wait_ns = s.first_byte_ns > s.send_ns ? s.first_byte_ns - s.send_ns : 0;
  r.total_ns = now_ns - s.start_ns;
  r.body_bytes = session_->last_body_bytes();
  r.status = status;
  worker_->request_log_sink()->push_back(r);
}

void Connection::on_response_captured(
    uint32_t /*slot*/, int status, const std::vector<std::pair<std::string, std::string>>& headers,
    std::string_view body) {
  Worker& w = *worker_;
  if (index_ == 0 && w.wants_first_response()) {
    std::string server;
    for (const auto& [name, value] : headers) {
      if (strcasecmp(name.c_str(), "Server") == 0) server = value;
    }
    w.set_first_response(std::move(server), static_cast<int64_t>(session_->last_body_bytes()));
    // Only scripts' response() needs capture from now on.
    session_->set_capture(w.script() != nullptr && w.script()->wants_response());
  }
  ThreadScript* script = w.script();
  if (script == nullptr || w.finished()) return;
  // wrk calls response() for every response, warm-up included; the views live during the call.
  header_views_.clear();
  for (const auto& [name, value] : headers) header_views_.push_back({name, value});
  // The response itself is counted right after this call: the run stops only then.
  if (Status st = script->response(status, header_views_.data(), header_views_.size(), body); !st) {
    script_stop_ = st.error().message;
    stop_after_response_ = true;
  } else if (script->stop_requested()) {
    stop_after_response_ = true;
  }
}

}  // namespace hail
