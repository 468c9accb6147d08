// hostile_tls_server: a test-only HTTP/1.1-over-TLS server (OpenSSL, blocking sockets, a thread per
// connection) for the TLS misbehaviours Python's ssl module cannot produce: renegotiation, key
// updates, truncated records, an ALPN answer the client never offered. Driven by hostile_tls.py.
// Loopback only; every socket wait is bounded (SO_RCVTIMEO/SO_SNDTIMEO); stdin commands: "stats"
// prints the counters as one JSON line, "quit" (or EOF) exits. Not part of hail.
//
//   hostile_tls_server MODE CERT KEY     prints "port N" once listening
//
// Modes: ok, stall (never handshakes), close_notify (half a body, then close_notify), renegotiate
// (TLS 1.2 HelloRequest before each answer), key_update (TLS 1.3 KeyUpdate asking for the client's
// before each answer), truncated (half of the response's record, then FIN), alpn_bogus (ALPN
// selects a protocol the client did not offer), h2_renegotiate (HTTP/2 over TLS 1.2: a HelloRequest
// before each answer, which RFC 9113 §9.2.1 forbids).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <thread>

namespace {

constexpr char kBody[] = "hostile tls ok";
constexpr int kWaitS = 10;  // no socket wait lasts longer

std::string g_mode;
std::atomic<int> g_connections{0}, g_handshakes{0}, g_requests{0}, g_answered{0},
    g_renegotiations{0}, g_key_updates{0}, g_handshake_failures{0}, g_renegotiated{0};

std::string ok_response() {
  return "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(sizeof kBody - 1) + "\r\n\r\n" +
         kBody;
}

int select_bogus(SSL* /*ssl*/, const unsigned char** out, unsigned char* out_len,
                 const unsigned char* /*in*/, unsigned int /*in_len*/, void* /*arg*/) {
  static const unsigned char kBogus[] = "bogus/1";
  *out = kBogus;
  *out_len = sizeof kBogus - 1;
  return SSL_TLSEXT_ERR_OK;
}

// Reads until a whole request head is in `buf` (hail's requests here have no body); false at EOF,
// error or timeout.
bool read_request(SSL* ssl, std::string& buf) {
  char chunk[4096];
  while (buf.find("\r\n\r\n") == std::string::npos) {
    const int n = SSL_read(ssl, chunk, sizeof chunk);
    if (n <= 0) return false;
    buf.append(chunk, static_cast<size_t>(n));
  }
  buf.erase(0, buf.find("\r\n\r\n") + 4);
  ++g_requests;
  return true;
}

bool write_all(SSL* ssl, const std::string& data) {
  return SSL_write(ssl, data.data(), static_cast<int>(data.size())) ==
         static_cast<int>(data.size());
}

int select_h2(SSL* /*ssl*/, const unsigned char** out, unsigned char* out_len,
              const unsigned char* in, unsigned int in_len, void* /*arg*/) {
  static const unsigned char kH2[] = "\x02h2";
  if (SSL_select_next_proto(const_cast<unsigned char**>(out), out_len, kH2, 3, in, in_len) !=
      OPENSSL_NPN_NEGOTIATED) {
    return SSL_TLSEXT_ERR_ALERT_FATAL;
  }
  return SSL_TLSEXT_ERR_OK;
}

// HTTP/2, just enough: reads frames until a request's HEADERS, acknowledging SETTINGS; its stream
// id, or 0 at EOF or error.
uint32_t read_h2_request(SSL* ssl, std::string& buf, bool& preface_seen) {
  char chunk[4096];
  for (;;) {
    if (!preface_seen && buf.size() >= 24) {
      buf.erase(0, 24);
      preface_seen = true;
    }
    while (preface_seen && buf.size() >= 9) {
      const auto* b = reinterpret_cast<const unsigned char*>(buf.data());
      const size_t length = size_t{b[0]} << 16 | size_t{b[1]} << 8 | b[2];
      if (buf.size() < 9 + length) break;
      const unsigned type = b[3], flags = b[4];
      const uint32_t id =
          (uint32_t{b[5]} << 24 | uint32_t{b[6]} << 16 | uint32_t{b[7]} << 8 | b[8]) & 0x7FFFFFFFu;
      buf.erase(0, 9 + length);
      if (type == 4 && (flags & 1) == 0) write_all(ssl, std::string("\0\0\0\4\1\0\0\0\0", 9));
      if (type == 1) {
        ++g_requests;
        return id;
      }
    }
    const int n = SSL_read(ssl, chunk, sizeof chunk);
    if (n <= 0) return 0;
    buf.append(chunk, static_cast<size_t>(n));
  }
}

void serve_h2(SSL* ssl) {
  write_all(ssl, std::string("\0\0\0\4\0\0\0\0\0", 9));  // SETTINGS, empty
  std::string buf;
  bool preface_seen = false;
  while (const uint32_t id = read_h2_request(ssl, buf, preface_seen)) {
    if (SSL_renegotiate(ssl) != 1 || SSL_do_handshake(ssl) != 1) return;
    ++g_renegotiations;
    // HEADERS, END_STREAM | END_HEADERS, ":status 200" (HPACK static index 8).
    std::string frame("\0\0\1\1\5", 5);
    frame += static_cast<char>(id >> 24);
    frame += static_cast<char>(id >> 16);
    frame += static_cast<char>(id >> 8);
    frame += static_cast<char>(id);
    frame += '\x88';
    if (!write_all(ssl, frame)) return;
    ++g_answered;
  }
}

void drain(SSL* ssl) {
  char chunk[4096];
  while (SSL_read(ssl, chunk, sizeof chunk) > 0) {
  }
}

void drain_fd(int fd) {
  char chunk[4096];
  while (recv(fd, chunk, sizeof chunk, 0) > 0) {
  }
}

void serve(SSL_CTX* ctx, int fd) {
  timeval tv{kWaitS, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (g_mode == "stall") {  // a TCP peer that never answers the ClientHello
    drain_fd(fd);
    close(fd);
    return;
  }
  SSL* ssl = SSL_new(ctx);
  SSL_set_fd(ssl, fd);
  if (SSL_accept(ssl) != 1) {
    ++g_handshake_failures;
    SSL_free(ssl);
    close(fd);
    return;
  }
  ++g_handshakes;
  if (g_mode == "h2_renegotiate") {
    serve_h2(ssl);
    SSL_free(ssl);
    close(fd);
    return;
  }
  std::string buf;
  bool asked = false;  // a renegotiation was asked for before the last answer
  while (read_request(ssl, buf)) {
    // The client sent its next request: a renegotiation it took part in is complete now.
    if (asked && SSL_renegotiate_pending(ssl) == 0) ++g_renegotiated;
    asked = false;
    if (g_mode == "close_notify") {
      // A head promising 100 bytes, half of them, then close_notify: the response is cut short.
      write_all(ssl, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n" + std::string(50, 'c'));
      SSL_shutdown(ssl);
      drain(ssl);
      break;
    }
    if (g_mode == "truncated") {
      // The response's record is produced into memory and only its first half goes out.
      BIO* mem = BIO_new(BIO_s_mem());
      SSL_set0_wbio(ssl, mem);
      write_all(ssl, ok_response());
      char* data = nullptr;
      const long len = BIO_get_mem_data(mem, &data);
      if (len > 0) send(fd, data, static_cast<size_t>(len / 2), MSG_NOSIGNAL);
      shutdown(fd, SHUT_WR);
      drain_fd(fd);
      break;
    }
    if (g_mode == "renegotiate") {
      if (SSL_renegotiate(ssl) == 1 && SSL_do_handshake(ssl) == 1) {
        ++g_renegotiations;
        asked = true;
      }
    } else if (g_mode == "key_update") {
      if (SSL_key_update(ssl, SSL_KEY_UPDATE_REQUESTED) == 1) ++g_key_updates;
    }
    if (!write_all(ssl, ok_response())) break;
    ++g_answered;
  }
  SSL_free(ssl);  // no close_notify of ours: the client closed, or the mode ended the connection
  close(fd);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: hostile_tls_server MODE CERT KEY\n");
    return 2;
  }
  g_mode = argv[1];
  // OpenSSL writes with write(): a client that closed first must not kill the server.
  std::signal(SIGPIPE, SIG_IGN);
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  if (SSL_CTX_use_certificate_chain_file(ctx, argv[2]) != 1 ||
      SSL_CTX_use_PrivateKey_file(ctx, argv[3], SSL_FILETYPE_PEM) != 1) {
    ERR_print_errors_fp(stderr);
    return 1;
  }
  SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
  SSL_CTX_set_num_tickets(ctx, 0);
  if (g_mode == "h2_renegotiate") SSL_CTX_set_alpn_select_cb(ctx, select_h2, nullptr);
  if (g_mode == "renegotiate" || g_mode == "h2_renegotiate") {
    SSL_CTX_set_max_proto_version(ctx, TLS1_2_VERSION);  // TLS 1.3 has no renegotiation
    SSL_CTX_clear_options(ctx, SSL_OP_NO_RENEGOTIATION);
  }
  if (g_mode == "key_update") SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION);
  if (g_mode == "alpn_bogus") SSL_CTX_set_alpn_select_cb(ctx, select_bogus, nullptr);

  const int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      listen(listener, 64) != 0 ||
      getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    std::perror("hostile_tls_server: listen");
    return 1;
  }
  std::thread([ctx, listener] {
    for (;;) {
      const int fd = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;
      ++g_connections;
      std::thread(serve, ctx, fd).detach();
    }
  }).detach();
  std::printf("port %u\n", ntohs(addr.sin_port));
  std::fflush(stdout);
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line == "quit") break;
    if (line == "stats") {
      std::printf(
          "{\"connections\": %d, \"handshakes\": %d, \"handshake_failures\": %d, \"requests\": "
          "%d, \"answered\": %d, \"renegotiations\": %d, \"key_updates\": %d, "
          "\"renegotiated\": %d}\n",
          g_connections.load(), g_handshakes.load(), g_handshake_failures.load(), g_requests.load(),
          g_answered.load(), g_renegotiations.load(), g_key_updates.load(), g_renegotiated.load());
      std::fflush(stdout);
    }
  }
  std::_Exit(0);  // detached threads may still sit in bounded waits
}
