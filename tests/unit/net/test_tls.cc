// TlsTransport and its contexts over non-blocking AF_UNIX socket pairs, both ends pumped in turn
// by this single thread: handshakes, ALPN, data, resumption, verification, failures, and the
// self-signed certificate generator. No network.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "net/tls.h"

namespace hail {
namespace {

// OpenSSL writes to sockets with write(): a closed peer must be EPIPE, not a fatal signal (the
// CLI ignores SIGPIPE the same way).
const bool kSigpipeIgnored = [] {
  std::signal(SIGPIPE, SIG_IGN);
  return true;
}();

constexpr int kMaxRounds = 1000;  // a stuck exchange fails the test instead of hanging it

struct SocketPair {
  SocketPair() {
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds), 0);
  }
  ~SocketPair() {
    close_end(0);
    close_end(1);
  }
  SocketPair(const SocketPair&) = delete;
  SocketPair& operator=(const SocketPair&) = delete;
  void close_end(int i) {
    if (fds[i] >= 0) ::close(fds[i]);
    fds[i] = -1;
  }
  int fds[2] = {-1, -1};
};

const PemPair& test_pair() {
  static const PemPair pair = [] {
    auto generated = generate_self_signed("hail.test");
    if (!generated) {
      ADD_FAILURE() << generated.error().message;
      return PemPair{};
    }
    return generated.value();
  }();
  return pair;
}

std::unique_ptr<TlsServerContext> make_server(TlsServerConfig config = {}) {
  config.cert_pem = test_pair().cert_pem;
  config.key_pem = test_pair().key_pem;
  auto server = TlsServerContext::create(config);
  if (!server) {
    ADD_FAILURE() << server.error().message;
    return nullptr;
  }
  return std::move(server.value());
}

std::unique_ptr<TlsClientContext> make_client(const TlsClientConfig& config = {}) {
  auto client = TlsClientContext::create(config);
  if (!client) {
    ADD_FAILURE() << client.error().message;
    return nullptr;
  }
  return std::move(client.value());
}

struct Outcome {
  IoResult client{IoStatus::kWouldBlock, 0, nullptr};
  IoResult server{IoStatus::kWouldBlock, 0, nullptr};
};

// Drives both handshakes in turn until neither would block any more.
Outcome pump_handshake(Transport& client, Transport& server) {
  Outcome outcome;
  for (int round = 0; round < kMaxRounds; ++round) {
    if (outcome.client.status == IoStatus::kWouldBlock) outcome.client = client.handshake();
    if (outcome.server.status == IoStatus::kWouldBlock) outcome.server = server.handshake();
    if (outcome.client.status != IoStatus::kWouldBlock &&
        outcome.server.status != IoStatus::kWouldBlock) {
      break;
    }
  }
  return outcome;
}

Outcome connect(Transport& client, Transport& server, SocketPair& sockets) {
  client.attach(sockets.fds[0]);
  server.attach(sockets.fds[1]);
  return pump_handshake(client, server);
}

bool succeeded(const Outcome& outcome) {
  return outcome.client.status == IoStatus::kOk && outcome.server.status == IoStatus::kOk;
}

struct TransferStats {
  size_t writes = 0;          // write() calls that moved bytes
  size_t partial_writes = 0;  // ... fewer than asked
  size_t would_blocks = 0;    // write() calls that moved nothing
  bool want_write_after_block = true;
};

// Writes `data` through `from` while draining `to` (every read until it would block), until
// every byte has arrived or something fails; returns what was read.
std::string transfer(Transport& from, Transport& to, const std::string& data,
                     TransferStats* stats = nullptr) {
  TransferStats local;
  if (stats == nullptr) stats = &local;
  std::string received;
  size_t sent = 0;
  std::vector<char> buf(16384);
  for (int round = 0; round < 100 * kMaxRounds && received.size() < data.size(); ++round) {
    while (sent < data.size()) {  // write until the socket is full, as an edge-triggered writer
      const IoResult w = from.write(data.data() + sent, data.size() - sent);
      if (w.status == IoStatus::kOk) {
        ++stats->writes;
        if (w.bytes < data.size() - sent) ++stats->partial_writes;
        sent += w.bytes;
      } else if (w.status == IoStatus::kWouldBlock) {
        ++stats->would_blocks;
        if (!from.want_write()) stats->want_write_after_block = false;
        break;
      } else {
        ADD_FAILURE() << "write failed: " << (w.reason != nullptr ? w.reason : "EOF");
        return received;
      }
    }
    for (;;) {
      const IoResult r = to.read(buf.data(), buf.size());
      if (r.status == IoStatus::kOk) {
        received.append(buf.data(), r.bytes);
        continue;
      }
      if (r.status == IoStatus::kWouldBlock) {
        EXPECT_FALSE(to.want_write());
        break;
      }
      ADD_FAILURE() << "read failed: " << (r.reason != nullptr ? r.reason : "EOF");
      return received;
    }
  }
  return received;
}

std::string random_bytes(size_t size, uint32_t seed) {
  std::mt19937 generator(seed);
  std::string bytes(size, '\0');
  for (char& c : bytes) c = static_cast<char>(generator() & 0xff);
  return bytes;
}

// A file that the test removes when done.
struct TempFile {
  explicit TempFile(const std::string& contents) {
    path = testing::TempDir() + "hail_tls_XXXXXX";
    const int fd = mkstemp(path.data());
    EXPECT_GE(fd, 0);
    EXPECT_EQ(::write(fd, contents.data(), contents.size()), static_cast<ssize_t>(contents.size()));
    ::close(fd);
  }
  ~TempFile() { std::remove(path.c_str()); }
  std::string path;
};

TEST(Tls, HandshakeWithSelfSignedPair) {
  auto server = make_server();
  auto client = make_client();
  ASSERT_TRUE(server && client);
  auto c = client->new_transport();
  auto s = server->new_transport();
  EXPECT_TRUE(c->is_tls());
  EXPECT_TRUE(s->is_tls());
  SocketPair sockets;
  c->attach(sockets.fds[0]);
  s->attach(sockets.fds[1]);
  EXPECT_EQ(c->tls_version(), "");
  // The client speaks first: its first step sends the ClientHello and waits to read.
  const IoResult first = c->handshake();
  EXPECT_EQ(first.status, IoStatus::kWouldBlock);
  EXPECT_FALSE(c->want_write());
  const Outcome outcome = pump_handshake(*c, *s);
  ASSERT_TRUE(succeeded(outcome));
  EXPECT_EQ(c->tls_version(), "TLSv1.3");
  EXPECT_EQ(s->tls_version(), "TLSv1.3");
  EXPECT_EQ(c->tls_cipher(), "TLS_AES_256_GCM_SHA384");
  EXPECT_EQ(c->tls_cipher(), s->tls_cipher());
  EXPECT_EQ(c->alpn(), "");
  EXPECT_FALSE(c->tls_resumed());
  EXPECT_FALSE(s->tls_resumed());
  EXPECT_EQ(c->handshake().status, IoStatus::kOk);  // done: stays done
  EXPECT_EQ(server->handshakes(), 1u);
  EXPECT_EQ(server->resumed(), 0u);
  // Version and cipher point at OpenSSL's static NUL-terminated strings.
  EXPECT_EQ(c->tls_version().data()[c->tls_version().size()], '\0');
}

// The protocol each side settled on, or "<failed>".
std::pair<std::string, std::string> negotiate(const std::vector<std::string>& client_alpn,
                                              const std::vector<std::string>& server_alpn) {
  TlsServerConfig server_config;
  server_config.alpn = server_alpn;
  TlsClientConfig client_config;
  client_config.alpn = client_alpn;
  auto server = make_server(server_config);
  auto client = make_client(client_config);
  if (!server || !client) return {"<failed>", "<failed>"};
  auto c = client->new_transport();
  auto s = server->new_transport();
  SocketPair sockets;
  if (!succeeded(connect(*c, *s, sockets))) return {"<failed>", "<failed>"};
  return {std::string(c->alpn()), std::string(s->alpn())};
}

TEST(Tls, AlpnPicksTheServersPreferenceOrNothing) {
  using Both = std::pair<std::string, std::string>;
  EXPECT_EQ(negotiate({"h2", "http/1.1"}, {"h2", "http/1.1"}), Both("h2", "h2"));
  EXPECT_EQ(negotiate({"h2", "http/1.1"}, {"http/1.1"}), Both("http/1.1", "http/1.1"));
  EXPECT_EQ(negotiate({"http/1.1", "h2"}, {"h2", "http/1.1"}), Both("h2", "h2"));
  EXPECT_EQ(negotiate({}, {"h2", "http/1.1"}), Both("", ""));
  EXPECT_EQ(negotiate({"h2"}, {"http/1.1"}), Both("", ""));  // no overlap: no ALPN, no failure
  EXPECT_EQ(negotiate({"h2", "http/1.1"}, {}), Both("", ""));
}

TEST(Tls, DataBothWaysWithPartialWrites) {
  auto server = make_server();
  auto client = make_client();
  ASSERT_TRUE(server && client);
  auto c = client->new_transport();
  auto s = server->new_transport();
  SocketPair sockets;
  ASSERT_TRUE(succeeded(connect(*c, *s, sockets)));

  const std::string request = "GET / HTTP/1.1\r\nHost: hail.test\r\n\r\n";
  EXPECT_EQ(transfer(*c, *s, request), request);
  const std::string response = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
  EXPECT_EQ(transfer(*s, *c, response), response);

  constexpr size_t kMiB = 1 << 20;
  const std::string big = random_bytes(kMiB, 1);
  TransferStats down;
  const std::string got = transfer(*s, *c, big, &down);
  ASSERT_EQ(got.size(), kMiB);
  EXPECT_TRUE(got == big);
  // The socket buffer holds far less than 1 MiB: writes were cut short and had to wait.
  EXPECT_GT(down.partial_writes, 0u);
  EXPECT_GT(down.would_blocks, 0u);
  EXPECT_TRUE(down.want_write_after_block);

  const std::string big_up = random_bytes(kMiB, 2);
  TransferStats up;
  EXPECT_TRUE(transfer(*c, *s, big_up, &up) == big_up);
  EXPECT_GT(up.partial_writes, 0u);
  EXPECT_GT(up.would_blocks, 0u);
}

TEST(Tls, BufferedHoldsTheRestOfARecord) {
  auto server = make_server();
  auto client = make_client();
  ASSERT_TRUE(server && client);
  auto c = client->new_transport();
  auto s = server->new_transport();
  SocketPair sockets;
  ASSERT_TRUE(succeeded(connect(*c, *s, sockets)));
  EXPECT_EQ(c->buffered(), 0u);

  const std::string record = random_bytes(1000, 3);  // one TLS record
  const IoResult w = s->write(record.data(), record.size());
  ASSERT_EQ(w.status, IoStatus::kOk);
  ASSERT_EQ(w.bytes, record.size());

  char buf[1000];
  IoResult r = c->read(buf, 100);
  ASSERT_EQ(r.status, IoStatus::kOk);
  EXPECT_EQ(r.bytes, 100u);
  EXPECT_EQ(c->buffered(), 900u);  // decrypted, waiting: the socket itself is empty
  // The edge-triggered read loop: read on while buffered() says so.
  std::string got(buf, r.bytes);
  while (c->buffered() > 0) {
    r = c->read(buf, 64);
    ASSERT_EQ(r.status, IoStatus::kOk);
    got.append(buf, r.bytes);
  }
  EXPECT_TRUE(got == record);
  EXPECT_EQ(c->read(buf, sizeof buf).status, IoStatus::kWouldBlock);
}

TEST(Tls, PeerClosingAfterTheHandshakeIsEof) {
  auto server = make_server();
  auto client = make_client();
  ASSERT_TRUE(server && client);
  auto c = client->new_transport();
  auto s = server->new_transport();
  SocketPair sockets;
  ASSERT_TRUE(succeeded(connect(*c, *s, sockets)));
  const std::string last = "bye";
  ASSERT_EQ(s->write(last.data(), last.size()).bytes, last.size());
  s->detach();  // no close_notify
  sockets.close_end(1);
  char buf[16];
  IoResult r = c->read(buf, sizeof buf);
  ASSERT_EQ(r.status, IoStatus::kOk);
  EXPECT_EQ(std::string(buf, r.bytes), last);
  r = c->read(buf, sizeof buf);
  EXPECT_EQ(r.status, IoStatus::kEof);
}

struct Resumption {
  bool first_resumed = true;
  bool second_resumed = false;
  bool server_second_resumed = false;
  std::string version;
  uint64_t handshakes = 0;
  uint64_t resumed = 0;
};

// One client transport connects twice (detached in between) to the same server context.
Resumption reconnect(bool resume, int max_version) {
  Resumption result;
  auto server = make_server();
  TlsClientConfig config;
  config.resume = resume;
  config.max_version = max_version;
  config.sni = "hail.test";
  auto client = make_client(config);
  if (!server || !client) return result;
  auto c = client->new_transport();
  {
    auto s = server->new_transport();
    SocketPair sockets;
    if (!succeeded(connect(*c, *s, sockets))) {
      ADD_FAILURE() << "first handshake failed";
      return result;
    }
    result.first_resumed = c->tls_resumed();
    // A response: TLS 1.3 session tickets reach the client with the first read after the
    // handshake.
    const std::string response = "HTTP/1.1 204 No Content\r\n\r\n";
    EXPECT_EQ(transfer(*s, *c, response), response);
    c->detach();
    s->detach();
  }
  auto s = server->new_transport();
  SocketPair sockets;
  if (!succeeded(connect(*c, *s, sockets))) {
    ADD_FAILURE() << "second handshake failed";
    return result;
  }
  result.second_resumed = c->tls_resumed();
  result.server_second_resumed = s->tls_resumed();
  result.version = std::string(c->tls_version());
  result.handshakes = server->handshakes();
  result.resumed = server->resumed();
  return result;
}

TEST(Tls, ResumesTls13SessionOnReconnect) {
  const Resumption r = reconnect(true, 0);
  EXPECT_FALSE(r.first_resumed);
  EXPECT_TRUE(r.second_resumed);
  EXPECT_TRUE(r.server_second_resumed);
  EXPECT_EQ(r.version, "TLSv1.3");
  EXPECT_EQ(r.handshakes, 2u);
  EXPECT_EQ(r.resumed, 1u);
}

TEST(Tls, ResumesTls12SessionOnReconnect) {
  const Resumption r = reconnect(true, TLS1_2_VERSION);
  EXPECT_FALSE(r.first_resumed);
  EXPECT_TRUE(r.second_resumed);
  EXPECT_TRUE(r.server_second_resumed);
  EXPECT_EQ(r.version, "TLSv1.2");
  EXPECT_EQ(r.handshakes, 2u);
  EXPECT_EQ(r.resumed, 1u);
}

TEST(Tls, NoResumptionWhenDisabled) {
  for (const int max_version : {0, TLS1_2_VERSION}) {
    SCOPED_TRACE(max_version);
    const Resumption r = reconnect(false, max_version);
    EXPECT_FALSE(r.first_resumed);
    EXPECT_FALSE(r.second_resumed);
    EXPECT_FALSE(r.server_second_resumed);
    EXPECT_EQ(r.version, max_version == 0 ? "TLSv1.3" : "TLSv1.2");
    EXPECT_EQ(r.handshakes, 2u);
    EXPECT_EQ(r.resumed, 0u);
  }
}

// The client's verdict on the server's certificate.
Outcome verify_outcome(const TlsClientConfig& config) {
  auto server = make_server();
  auto client = make_client(config);
  if (!server || !client) return {};
  auto c = client->new_transport();
  auto s = server->new_transport();
  SocketPair sockets;
  return connect(*c, *s, sockets);
}

TEST(Tls, VerifiesAgainstTheCaFileAndHostName) {
  TempFile ca(test_pair().cert_pem);
  TlsClientConfig config;
  config.verify = true;
  config.ca_file = ca.path;
  for (const char* host : {"localhost", "hail.test", "127.0.0.1", "::1", "[::1]"}) {
    SCOPED_TRACE(host);
    config.verify_host = host;
    EXPECT_TRUE(succeeded(verify_outcome(config)));
  }
}

TEST(Tls, HostNameMismatchFails) {
  TempFile ca(test_pair().cert_pem);
  TlsClientConfig config;
  config.verify = true;
  config.ca_file = ca.path;
  for (const char* host : {"other.example", "10.1.2.3"}) {
    SCOPED_TRACE(host);
    config.verify_host = host;
    const Outcome outcome = verify_outcome(config);
    ASSERT_EQ(outcome.client.status, IoStatus::kError);
    ASSERT_NE(outcome.client.reason, nullptr);
    EXPECT_NE(std::strstr(outcome.client.reason, "verify"), nullptr);
    EXPECT_STREQ(outcome.client.reason, host[0] == 'o'
                                            ? "certificate verify failed: hostname mismatch"
                                            : "certificate verify failed: IP address mismatch");
    EXPECT_EQ(outcome.server.status, IoStatus::kError);  // the client's alert
  }
}

TEST(Tls, DefaultTrustStoreRejectsSelfSigned) {
  TlsClientConfig config;
  config.verify = true;
  config.verify_host = "localhost";
  const Outcome outcome = verify_outcome(config);
  ASSERT_EQ(outcome.client.status, IoStatus::kError);
  ASSERT_NE(outcome.client.reason, nullptr);
  EXPECT_STREQ(outcome.client.reason, "certificate verify failed: self-signed certificate");
}

TEST(Tls, NoVerificationAcceptsAnyName) {
  TlsClientConfig config;
  config.verify = false;
  config.verify_host = "other.example";  // ignored without verify
  EXPECT_TRUE(succeeded(verify_outcome(config)));
}

// A handshake between a client and a server limited to the given versions.
Outcome versions_outcome(int client_min, int client_max, int server_min, int server_max,
                         std::string* version = nullptr) {
  TlsServerConfig server_config;
  server_config.min_version = server_min;
  server_config.max_version = server_max;
  TlsClientConfig client_config;
  client_config.min_version = client_min;
  client_config.max_version = client_max;
  auto server = make_server(server_config);
  auto client = make_client(client_config);
  if (!server || !client) return {};
  auto c = client->new_transport();
  auto s = server->new_transport();
  SocketPair sockets;
  Outcome outcome = connect(*c, *s, sockets);
  if (version != nullptr) *version = std::string(c->tls_version());
  return outcome;
}

TEST(Tls, VersionMismatchFails) {
  Outcome outcome = versions_outcome(0, TLS1_2_VERSION, TLS1_3_VERSION, 0);
  EXPECT_EQ(outcome.client.status, IoStatus::kError);
  EXPECT_NE(outcome.client.reason, nullptr);
  EXPECT_EQ(outcome.server.status, IoStatus::kError);
  outcome = versions_outcome(TLS1_3_VERSION, 0, 0, TLS1_2_VERSION);
  EXPECT_EQ(outcome.client.status, IoStatus::kError);
  EXPECT_NE(outcome.client.reason, nullptr);
  EXPECT_EQ(outcome.server.status, IoStatus::kError);
}

TEST(Tls, VersionLimitsAreHonoured) {
  std::string version;
  EXPECT_TRUE(succeeded(versions_outcome(0, TLS1_2_VERSION, 0, 0, &version)));
  EXPECT_EQ(version, "TLSv1.2");
  EXPECT_TRUE(succeeded(versions_outcome(TLS1_2_VERSION, 0, 0, TLS1_2_VERSION, &version)));
  EXPECT_EQ(version, "TLSv1.2");
  // Legacy versions, refused by OpenSSL 3's default security level, work when asked for.
  EXPECT_TRUE(succeeded(
      versions_outcome(TLS1_1_VERSION, TLS1_1_VERSION, TLS1_1_VERSION, TLS1_1_VERSION, &version)));
  EXPECT_EQ(version, "TLSv1.1");
}

TEST(Tls, PeerClosingMidHandshakeEndsIt) {
  auto server = make_server();
  auto client = make_client();
  ASSERT_TRUE(server && client);
  struct Case {
    const char* what;
    bool server_quits;
    IoStatus status;
    const char* reason;  // Linux AF_UNIX: closing with unread data resets the peer
  };
  const Case cases[] = {
      {"server closes with the ClientHello unread", true, IoStatus::kError,
       "Connection reset by peer"},
      {"server answers, then closes", true, IoStatus::kError, "Broken pipe"},
      {"server reads the ClientHello, closes without answering", true, IoStatus::kEof, nullptr},
      {"client closes after its ClientHello", false, IoStatus::kError, "Broken pipe"},
  };
  for (size_t i = 0; i < std::size(cases); ++i) {
    const Case& test = cases[i];
    SCOPED_TRACE(test.what);
    auto c = client->new_transport();
    auto s = server->new_transport();
    SocketPair sockets;
    c->attach(sockets.fds[0]);
    s->attach(sockets.fds[1]);
    ASSERT_EQ(c->handshake().status, IoStatus::kWouldBlock);
    if (i == 1) {
      ASSERT_EQ(s->handshake().status, IoStatus::kWouldBlock);
    } else if (i == 2) {
      char hello[4096];
      ASSERT_GT(::read(sockets.fds[1], hello, sizeof hello), 0);
    }
    Transport& survivor = test.server_quits ? *c : *s;
    Transport& quitter = test.server_quits ? *s : *c;
    quitter.detach();
    sockets.close_end(test.server_quits ? 1 : 0);
    IoResult r{IoStatus::kWouldBlock, 0, nullptr};
    for (int round = 0; round < kMaxRounds && r.status == IoStatus::kWouldBlock; ++round) {
      r = survivor.handshake();
    }
    EXPECT_EQ(r.status, test.status);
    if (test.reason != nullptr) {
      ASSERT_NE(r.reason, nullptr);
      EXPECT_STREQ(r.reason, test.reason);
    }
    EXPECT_EQ(survivor.handshake().status,
              r.status == IoStatus::kEof ? IoStatus::kEof : IoStatus::kError)
        << "a failed handshake stays failed";
  }
}

TEST(Tls, TransportIsReusableAcrossAttaches) {
  auto server = make_server();
  auto client = make_client();
  ASSERT_TRUE(server && client);
  auto c = client->new_transport();
  auto s = server->new_transport();
  {
    SocketPair abandoned;  // attached, half a handshake, attached again without detach
    c->attach(abandoned.fds[0]);
    EXPECT_EQ(c->handshake().status, IoStatus::kWouldBlock);
  }
  SocketPair sockets;
  ASSERT_TRUE(succeeded(connect(*c, *s, sockets)));
  c->detach();
  EXPECT_EQ(c->buffered(), 0u);
  EXPECT_FALSE(c->want_write());
  EXPECT_EQ(c->tls_version(), "TLSv1.3");  // the outcome stays readable after detach
  char buf[16];
  EXPECT_EQ(c->read(buf, sizeof buf).status, IoStatus::kError);  // not attached: no crash
  EXPECT_EQ(c->write("x", 1).status, IoStatus::kError);
}

TEST(Tls, ParseTlsVersion) {
  const std::pair<const char*, int> good[] = {
      {"1.0", TLS1_VERSION},       {"1.1", TLS1_1_VERSION},     {"1.2", TLS1_2_VERSION},
      {"1.3", TLS1_3_VERSION},     {"tls1.2", TLS1_2_VERSION},  {"TLSv1.2", TLS1_2_VERSION},
      {"TLS1.3", TLS1_3_VERSION},  {"tlsv1.3", TLS1_3_VERSION}, {"TLSv1", TLS1_VERSION},
      {"TlSv1.1", TLS1_1_VERSION},
  };
  for (const auto& [text, version] : good) {
    auto parsed = parse_tls_version(text);
    ASSERT_TRUE(parsed.ok()) << text;
    EXPECT_EQ(*parsed, version) << text;
  }
  for (const char* text : {"1.4", "", "1", "v1.2", "tls", "1.2 ", "ssl3", "TLSv1.2x", "2"}) {
    auto parsed = parse_tls_version(text);
    EXPECT_FALSE(parsed.ok()) << text;
  }
  auto bad = parse_tls_version("1.4");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "\"1.4\" is not a TLS version (use 1.0, 1.1, 1.2 or 1.3)");
}

std::string client_error(const TlsClientConfig& config) {
  auto client = TlsClientContext::create(config);
  return client.ok() ? "<ok>" : client.error().message;
}

std::string server_error(const TlsServerConfig& config) {
  auto server = TlsServerContext::create(config);
  return server.ok() ? "<ok>" : server.error().message;
}

TEST(Tls, ClientConfigErrorsAreOneLineAndNameTheValue) {
  TlsClientConfig config;
  config.ciphers = "NOPE";
  EXPECT_EQ(client_error(config), "invalid --ciphers \"NOPE\": no cipher matches");
  config.ciphers = "ECDHE-RSA-AES128-GCM-SHA256";
  EXPECT_EQ(client_error(config), "<ok>");

  config = {};
  config.ciphersuites = "TLS_NOPE";
  EXPECT_EQ(client_error(config), "invalid --ciphers \"TLS_NOPE\": no TLS 1.3 ciphersuite matches");
  config.ciphersuites = "TLS_AES_128_GCM_SHA256";
  EXPECT_EQ(client_error(config), "<ok>");

  config = {};
  config.verify = true;
  config.ca_file = "/nonexistent/hail-ca.pem";
  EXPECT_EQ(client_error(config),
            "cannot read CA file \"/nonexistent/hail-ca.pem\": No such file or directory");
  TempFile not_pem("not a certificate\n");
  config.ca_file = not_pem.path;
  const std::string message = client_error(config);
  EXPECT_EQ(message.rfind("cannot read CA file \"" + not_pem.path + "\": ", 0), 0u) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos);

  config = {};
  config.min_version = TLS1_3_VERSION;
  config.max_version = TLS1_2_VERSION;
  EXPECT_EQ(client_error(config), "the minimum TLS version 1.3 is above the maximum 1.2");

  config = {};
  config.alpn = {"h2", ""};
  EXPECT_EQ(client_error(config), "invalid ALPN protocol \"\" (1 to 255 bytes)");
}

TEST(Tls, ServerConfigErrors) {
  TlsServerConfig config;
  EXPECT_EQ(server_error(config), "a TLS server needs both a certificate and a key");
  config.cert_pem = test_pair().cert_pem;
  EXPECT_EQ(server_error(config), "a TLS server needs both a certificate and a key");

  auto other = generate_self_signed("other.test");
  ASSERT_TRUE(other.ok());
  config.key_pem = other->key_pem;
  EXPECT_EQ(server_error(config), "the TLS key does not match the certificate");

  config.key_pem = "garbage";
  EXPECT_EQ(server_error(config).rfind("invalid TLS key PEM: ", 0), 0u);

  config = {};
  config.cert_file = "/nonexistent/cert.pem";
  config.key_file = "/nonexistent/key.pem";
  EXPECT_EQ(
      server_error(config).rfind("cannot load TLS certificate \"/nonexistent/cert.pem\": ", 0), 0u)
      << server_error(config);

  TempFile cert(test_pair().cert_pem);
  TempFile key(test_pair().key_pem);
  TempFile other_key(other->key_pem);
  config.cert_file = cert.path;
  config.key_file = other_key.path;
  EXPECT_EQ(server_error(config), "the TLS key does not match the certificate");
  config.key_file = key.path;
  EXPECT_EQ(server_error(config), "<ok>");
}

struct X509Free {
  void operator()(X509* cert) const { X509_free(cert); }
};

std::unique_ptr<X509, X509Free> parse_cert(const std::string& pem) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  return std::unique_ptr<X509, X509Free>(cert);
}

std::vector<std::string> alt_names(X509* cert) {
  std::vector<std::string> out;
  auto* names =
      static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
  if (names == nullptr) return out;
  for (int i = 0; i < sk_GENERAL_NAME_num(names); ++i) {
    const GENERAL_NAME* name = sk_GENERAL_NAME_value(names, i);
    if (name->type == GEN_DNS) {
      const ASN1_IA5STRING* dns = name->d.dNSName;
      out.push_back("DNS:" + std::string(reinterpret_cast<const char*>(ASN1_STRING_get0_data(dns)),
                                         static_cast<size_t>(ASN1_STRING_length(dns))));
    } else if (name->type == GEN_IPADD) {
      const ASN1_OCTET_STRING* ip = name->d.iPAddress;
      const int len = ASN1_STRING_length(ip);
      char text[64] = {};
      inet_ntop(len == 4 ? AF_INET : AF_INET6, ASN1_STRING_get0_data(ip), text, sizeof text);
      out.push_back(std::string("IP:") + text);
    } else {
      out.push_back("other");
    }
  }
  GENERAL_NAMES_free(names);
  return out;
}

TEST(Tls, GenerateSelfSigned) {
  auto pair = generate_self_signed("hail.test");
  ASSERT_TRUE(pair.ok()) << pair.error().message;
  EXPECT_EQ(pair->cert_pem.rfind("-----BEGIN CERTIFICATE-----\n", 0), 0u);
  EXPECT_EQ(pair->key_pem.rfind("-----BEGIN PRIVATE KEY-----\n", 0), 0u);
  auto cert = parse_cert(pair->cert_pem);
  ASSERT_NE(cert, nullptr);

  EXPECT_EQ(alt_names(cert.get()),
            (std::vector<std::string>{"DNS:hail.test", "DNS:localhost", "IP:127.0.0.1", "IP:::1"}));
  char cn[128] = {};
  X509_NAME_get_text_by_NID(X509_get_subject_name(cert.get()), NID_commonName, cn, sizeof cn);
  EXPECT_STREQ(cn, "hail.test");
  EXPECT_EQ(X509_NAME_cmp(X509_get_subject_name(cert.get()), X509_get_issuer_name(cert.get())), 0);
  EXPECT_EQ(X509_get_version(cert.get()), X509_VERSION_3);
  EXPECT_EQ(X509_check_ca(cert.get()), 0);  // basicConstraints CA:FALSE
  EXPECT_NE(X509_get_extension_flags(cert.get()) & EXFLAG_BCONS, 0u);
  EXPECT_EQ(X509_get_signature_nid(cert.get()), NID_ecdsa_with_SHA256);

  EVP_PKEY* key = X509_get0_pubkey(cert.get());
  ASSERT_NE(key, nullptr);
  EXPECT_TRUE(EVP_PKEY_is_a(key, "EC"));
  EXPECT_EQ(EVP_PKEY_get_bits(key), 256);
  char group[32] = {};
  EXPECT_EQ(EVP_PKEY_get_group_name(key, group, sizeof group, nullptr), 1);
  EXPECT_STREQ(group, "prime256v1");

  // Valid from about an hour ago for 30 days.
  int days = 0;
  int seconds = 0;
  ASSERT_EQ(ASN1_TIME_diff(&days, &seconds, X509_get0_notBefore(cert.get()),
                           X509_get0_notAfter(cert.get())),
            1);
  EXPECT_EQ(days * 86400L + seconds, 30L * 86400 + 3600);
  ASSERT_EQ(ASN1_TIME_diff(&days, &seconds, X509_get0_notBefore(cert.get()), nullptr), 1);
  const long since_start_s = days * 86400L + seconds;
  EXPECT_GE(since_start_s, 3600);
  EXPECT_LE(since_start_s, 3600 + 60);

  // A fresh random serial each time.
  auto again = generate_self_signed("hail.test");
  ASSERT_TRUE(again.ok());
  auto cert2 = parse_cert(again->cert_pem);
  ASSERT_NE(cert2, nullptr);
  EXPECT_NE(
      ASN1_INTEGER_cmp(X509_get0_serialNumber(cert.get()), X509_get0_serialNumber(cert2.get())), 0);
}

TEST(Tls, GenerateSelfSignedForNamesAndAddresses) {
  auto local = generate_self_signed("localhost");
  ASSERT_TRUE(local.ok());
  auto cert = parse_cert(local->cert_pem);
  ASSERT_NE(cert, nullptr);
  EXPECT_EQ(alt_names(cert.get()),
            (std::vector<std::string>{"DNS:localhost", "IP:127.0.0.1", "IP:::1"}));

  auto ip = generate_self_signed("10.0.0.7");
  ASSERT_TRUE(ip.ok());
  cert = parse_cert(ip->cert_pem);
  ASSERT_NE(cert, nullptr);
  EXPECT_EQ(alt_names(cert.get()),
            (std::vector<std::string>{"DNS:localhost", "IP:10.0.0.7", "IP:127.0.0.1", "IP:::1"}));

  EXPECT_FALSE(generate_self_signed("").ok());
  EXPECT_FALSE(generate_self_signed(std::string(65, 'a')).ok());
}

}  // namespace
}  // namespace hail
