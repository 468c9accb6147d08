// H2TestClient: an nghttp2 client session in memory for the `hail serve` HTTP/2 tests — submit
// requests, take the bytes to send, give it the bytes received, and read each stream's outcome
// (status, headers, body, reset, GOAWAY). Test code only; one thread.
#pragma once

#include <nghttp2/nghttp2.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hail::test {

#if NGHTTP2_VERSION_NUM >= 0x013c00
using TestH2Ssize = nghttp2_ssize;
using TestH2DataProvider = nghttp2_data_provider2;
#define HAIL_TEST_H2_MEM_RECV nghttp2_session_mem_recv2
#define HAIL_TEST_H2_MEM_SEND nghttp2_session_mem_send2
#define HAIL_TEST_H2_SUBMIT_REQUEST nghttp2_submit_request2
#else
using TestH2Ssize = ssize_t;
using TestH2DataProvider = nghttp2_data_provider;
#define HAIL_TEST_H2_MEM_RECV nghttp2_session_mem_recv
#define HAIL_TEST_H2_MEM_SEND nghttp2_session_mem_send
#define HAIL_TEST_H2_SUBMIT_REQUEST nghttp2_submit_request
#endif

class H2TestClient {
 public:
  struct Stream {
    int status = 0;
    std::map<std::string, std::string> headers;
    std::string body;
    bool closed = false;
    uint32_t close_error = 0;  // the RST_STREAM error code, 0 (NO_ERROR) for a normal end
    std::string upload;        // request body to send
    size_t uploaded = 0;
    std::string header(const std::string& name) const {
      auto it = headers.find(name);
      return it == headers.end() ? std::string() : it->second;
    }
    bool has(const std::string& name) const { return headers.count(name) != 0; }
  };

  // `window_bits`: the client's initial stream window 2^bits - 1 (16: the protocol default).
  explicit H2TestClient(uint32_t window_bits = 16) {
    nghttp2_session_callbacks* callbacks = nullptr;
    nghttp2_session_callbacks_new(&callbacks);
    nghttp2_session_callbacks_set_on_header_callback(callbacks, &on_header);
    nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, &on_frame_recv);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, &on_data);
    nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, &on_close);
    nghttp2_session_client_new(&session_, callbacks, this);
    nghttp2_session_callbacks_del(callbacks);
    const nghttp2_settings_entry settings[] = {
        {NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
        {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, (1u << window_bits) - 1},
    };
    nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, settings, 2);
  }
  ~H2TestClient() { nghttp2_session_del(session_); }
  H2TestClient(const H2TestClient&) = delete;
  H2TestClient& operator=(const H2TestClient&) = delete;

  // Returns the stream id. `extra`: further headers (lower-case names).
  int32_t submit(const std::string& method, const std::string& path, std::string body = {},
                 std::vector<std::pair<std::string, std::string>> extra = {},
                 bool send_length = true) {
    std::vector<std::pair<std::string, std::string>> fields = {
        {":method", method}, {":scheme", "http"}, {":authority", "localhost"}, {":path", path}};
    if (!body.empty() && send_length)
      fields.emplace_back("content-length", std::to_string(body.size()));
    for (auto& field : extra) fields.push_back(std::move(field));
    std::vector<nghttp2_nv> nva;
    for (auto& [name, value] : fields) {
      nva.push_back({reinterpret_cast<uint8_t*>(name.data()),
                     reinterpret_cast<uint8_t*>(value.data()), name.size(), value.size(),
                     NGHTTP2_NV_FLAG_NONE});
    }
    auto stream = std::make_unique<Stream>();
    stream->upload = std::move(body);
    Stream* raw = stream.get();
    int32_t id;
    if (raw->upload.empty()) {
      id = HAIL_TEST_H2_SUBMIT_REQUEST(session_, nullptr, nva.data(), nva.size(), nullptr, raw);
    } else {
      TestH2DataProvider provider;
      provider.source.ptr = raw;
      provider.read_callback = &read_upload;
      id = HAIL_TEST_H2_SUBMIT_REQUEST(session_, nullptr, nva.data(), nva.size(), &provider, raw);
    }
    if (id > 0) streams_[id] = std::move(stream);
    return id;
  }

  // Everything the client wants to send now (the connection preface first).
  std::string take_output() {
    std::string out;
    for (;;) {
      const uint8_t* data = nullptr;
      const TestH2Ssize n = HAIL_TEST_H2_MEM_SEND(session_, &data);
      if (n <= 0) break;
      out.append(reinterpret_cast<const char*>(data), static_cast<size_t>(n));
    }
    return out;
  }
  // False on a connection error.
  bool receive(std::string_view bytes) {
    if (bytes.empty()) return true;
    const TestH2Ssize n = HAIL_TEST_H2_MEM_RECV(
        session_, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    return n == static_cast<TestH2Ssize>(bytes.size());
  }

  Stream& stream(int32_t id) { return *streams_.at(id); }
  bool done(int32_t id) const { return streams_.count(id) != 0 && streams_.at(id)->closed; }
  bool all_done() const {
    return std::all_of(streams_.begin(), streams_.end(),
                       [](const auto& entry) { return entry.second->closed; });
  }
  bool goaway() const { return goaway_; }
  uint32_t remote_max_streams() const {
    return nghttp2_session_get_remote_settings(session_, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS);
  }
  int32_t goaway_last_stream_id() const { return goaway_last_id_; }
  uint64_t data_bytes_received() const { return data_bytes_; }

 private:
  static H2TestClient* self(void* user) { return static_cast<H2TestClient*>(user); }
  Stream* find(int32_t id) {
    auto it = streams_.find(id);
    return it == streams_.end() ? nullptr : it->second.get();
  }

  static int on_header(nghttp2_session*, const nghttp2_frame* frame, const uint8_t* name,
                       size_t name_len, const uint8_t* value, size_t value_len, uint8_t,
                       void* user) {
    Stream* stream = self(user)->find(frame->hd.stream_id);
    if (stream == nullptr) return 0;
    const std::string key(reinterpret_cast<const char*>(name), name_len);
    const std::string val(reinterpret_cast<const char*>(value), value_len);
    if (key == ":status") stream->status = std::stoi(val);
    stream->headers[key] = val;
    return 0;
  }
  static int on_frame_recv(nghttp2_session*, const nghttp2_frame* frame, void* user) {
    if (frame->hd.type == NGHTTP2_GOAWAY) {
      self(user)->goaway_ = true;
      self(user)->goaway_last_id_ = frame->goaway.last_stream_id;
    }
    return 0;
  }
  static int on_data(nghttp2_session*, uint8_t, int32_t id, const uint8_t* data, size_t len,
                     void* user) {
    self(user)->data_bytes_ += len;
    if (Stream* stream = self(user)->find(id); stream != nullptr) {
      stream->body.append(reinterpret_cast<const char*>(data), len);
    }
    return 0;
  }
  static int on_close(nghttp2_session*, int32_t id, uint32_t error, void* user) {
    if (Stream* stream = self(user)->find(id); stream != nullptr) {
      stream->closed = true;
      stream->close_error = error;
    }
    return 0;
  }
  static TestH2Ssize read_upload(nghttp2_session*, int32_t, uint8_t* buf, size_t length,
                                 uint32_t* flags, nghttp2_data_source* source, void*) {
    Stream* stream = static_cast<Stream*>(source->ptr);
    const size_t n = std::min(length, stream->upload.size() - stream->uploaded);
    std::memcpy(buf, stream->upload.data() + stream->uploaded, n);
    stream->uploaded += n;
    if (stream->uploaded == stream->upload.size()) *flags |= NGHTTP2_DATA_FLAG_EOF;
    return static_cast<TestH2Ssize>(n);
  }

  nghttp2_session* session_ = nullptr;
  std::map<int32_t, std::unique_ptr<Stream>> streams_;
  bool goaway_ = false;
  int32_t goaway_last_id_ = -1;
  uint64_t data_bytes_ = 0;
};

}  // namespace hail::test
