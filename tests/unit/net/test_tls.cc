// TlsTransport and its contexts over non-blocking AF_UNIX socket pairs, both ends pumped in turn
// by this single thread: handshakes, ALPN, data, resumption, verification and failures. No
// network. Version parsing, configuration errors and the certificate generator: test_tls_config.cc.
#include <gtest/gtest.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "net/tls.h"
#include "tls_test_util.h"

namespace hail {
namespace {

using tls_test::connect;
using tls_test::kMaxRounds;
using tls_test::make_client;
using tls_test::make_server;
using tls_test::Outcome;
using tls_test::pump_handshake;
using tls_test::SocketPair;
using tls_test::succeeded;
using tls_test::TempFile;
using tls_test::test_pair;

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

enum class SecondServer { kSame, kOwnKeys, kSharedKeys };

// One client transport connects twice (detached in between): to the same server context, or the
// second time to another context (a server's other reactor) with its own or with shared ticket
// keys.
Resumption reconnect(bool resume, int max_version, SecondServer second = SecondServer::kSame) {
  Resumption result;
  TlsServerConfig server_config;
  if (second == SecondServer::kSharedKeys) {
    auto keys = new_ticket_keys();
    EXPECT_TRUE(keys.ok());
    if (keys.ok()) server_config.ticket_keys = keys.value();
  }
  auto first_server = make_server(server_config);
  auto other_server = second == SecondServer::kSame ? nullptr : make_server(server_config);
  TlsClientConfig config;
  config.resume = resume;
  config.max_version = max_version;
  config.sni = "hail.test";
  auto client = make_client(config);
  if (!first_server || !client || (second != SecondServer::kSame && !other_server)) return result;
  TlsServerContext* server = first_server.get();
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
  if (other_server) server = other_server.get();
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

TEST(Tls, ResumesOnAnotherContextSharingTicketKeys) {
  for (const int max_version : {0, TLS1_2_VERSION}) {
    SCOPED_TRACE(max_version);
    const Resumption shared = reconnect(true, max_version, SecondServer::kSharedKeys);
    EXPECT_TRUE(shared.second_resumed);
    EXPECT_TRUE(shared.server_second_resumed);
    EXPECT_EQ(shared.resumed, 1u);
    // Each context's own keys: the ticket means nothing to the other one (a full handshake).
    const Resumption own = reconnect(true, max_version, SecondServer::kOwnKeys);
    EXPECT_FALSE(own.second_resumed);
    EXPECT_EQ(own.resumed, 0u);
  }
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

}  // namespace
}  // namespace hail
