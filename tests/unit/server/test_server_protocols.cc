// The real server in-process over the transports and protocols it added to HTTP/1 on TCP: h2c with
// prior knowledge, Unix domain sockets, and TLS (ALPN h2 / http/1.1, handshake and resumption
// counts) driven by the client side of net/tls.h.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>
#include <thread>

#include "net/tls.h"
#include "server/server.h"
#include "temp_root.h"
#include "test_connection.h"

namespace hail {
namespace {

using test::connect_tcp;
using test::connect_unix;
using test::expected_pattern;
using test::H2TestClient;
using test::Response;
using test::TempRoot;
using test::TestConnection;

// The client's OpenSSL writes with write(): a closed peer must be EPIPE, not a fatal signal.
const bool kSigpipeIgnored = [] {
  std::signal(SIGPIPE, SIG_IGN);
  return true;
}();

std::unique_ptr<Server> start_server(const ServerOptions& options) {
  auto server = Server::start(options);
  EXPECT_TRUE(server.ok()) << (server.ok() ? "" : server.error().message);
  if (!server.ok()) return nullptr;
  return std::move(server.value());
}

// Counters are bumped right after the bytes go out, so a client may read them a moment before the
// server's counters say so: wait (a little) for `done`.
ServerStats settled_stats(const Server& server,
                          const std::function<bool(const ServerStats&)>& done) {
  ServerStats stats = server.stats();
  for (int i = 0; i < 200 && !done(stats); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    stats = server.stats();
  }
  return stats;
}

ServerOptions tls_options() {
  ServerOptions options;
  options.tls_self_signed = true;
  return options;
}

std::unique_ptr<TlsClientContext> tls_client(std::vector<std::string> alpn) {
  TlsClientConfig config;
  config.alpn = std::move(alpn);
  auto context = TlsClientContext::create(config);
  EXPECT_TRUE(context.ok()) << (context.ok() ? "" : context.error().message);
  return context.ok() ? std::move(context.value()) : nullptr;
}

std::string unique_socket_path(const char* name) {
  return "/tmp/hail_test_" + std::to_string(getpid()) + "_" + name + ".sock";
}

bool exists(const std::string& path) {
  struct stat st {};
  return lstat(path.c_str(), &st) == 0;
}

// Several streams on one connection, answered out of order around a /delay.
void check_h2_streams(TestConnection& conn) {
  H2TestClient client;
  const int32_t big = client.submit("GET", "/bytes/300000");
  const int32_t echo = client.submit("POST", "/echo", "hello h2", {{"content-type", "text/x"}});
  const int32_t delayed = client.submit("GET", "/delay/100");
  const int32_t quick = client.submit("GET", "/status/201");
  ASSERT_TRUE(conn.h2_until(client, [&] { return client.done(quick) && client.done(echo); }));
  EXPECT_FALSE(client.done(delayed));  // not head-of-line blocked behind the delay
  ASSERT_TRUE(conn.h2_until(client, [&] { return client.all_done(); }));
  EXPECT_EQ(client.stream(big).status, 200);
  EXPECT_TRUE(client.stream(big).body == expected_pattern(0, 300000));
  EXPECT_EQ(client.stream(echo).body, "hello h2");
  EXPECT_EQ(client.stream(echo).header("content-type"), "text/x");
  EXPECT_EQ(client.stream(delayed).body, "ok\n");
  EXPECT_EQ(client.stream(quick).status, 201);
}

TEST(ServerH2c, PriorKnowledge) {
  auto server = start_server({});
  ASSERT_TRUE(server);
  uint64_t received = 0;
  {
    TestConnection conn(connect_tcp(server->port()));
    ASSERT_TRUE(conn.ok());
    check_h2_streams(conn);
    received = conn.received();
  }
  const ServerStats s =
      settled_stats(*server, [&](const ServerStats& now) { return now.bytes_sent >= received; });
  EXPECT_EQ(s.h2_connections, 1u);
  EXPECT_EQ(s.h2_streams, 4u);
  EXPECT_EQ(s.requests, 4u);
  EXPECT_EQ(s.bytes_sent, received);  // every frame the client read, SETTINGS included
}

TEST(ServerH2c, PrefaceInPiecesAndHttp1Alongside) {
  ServerOptions options;
  options.threads = 2;
  auto server = start_server(options);
  ASSERT_TRUE(server);
  {
    TestConnection conn(connect_tcp(server->port()));
    H2TestClient client;
    const int32_t id = client.submit("GET", "/bytes/5");
    const std::string first = client.take_output();
    for (size_t at : {size_t{0}, size_t{3}, size_t{20}}) {
      const size_t end = at == 20 ? first.size() : (at == 0 ? 3 : 20);
      ASSERT_TRUE(conn.send_all(std::string_view(first).substr(at, end - at)));
      std::this_thread::sleep_for(std::chrono::milliseconds(30));
    }
    ASSERT_TRUE(conn.h2_until(client, [&] { return client.done(id); }));
    EXPECT_EQ(client.stream(id).body, "abcde");
  }
  {
    TestConnection conn(connect_tcp(server->port()));
    ASSERT_TRUE(conn.send_all("G"));
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    Response r = conn.request("ET /bytes/3 HTTP/1.1\r\n\r\n");
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.body, "abc");
    r = conn.request("GET /bytes/2 HTTP/1.1\r\n\r\n");
    EXPECT_EQ(r.body, "ab");
  }
  {
    // Starts like the preface, then is not one: HTTP/1.
    TestConnection conn(connect_tcp(server->port()));
    ASSERT_TRUE(conn.send_all("P"));
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    Response r = conn.request("UT /bytes/2 HTTP/1.1\r\n\r\n");
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.body, "ab");
  }
  EXPECT_EQ(server->stats().h2_connections, 1u);
}

TEST(ServerH2c, NoH2MeansHttp1Only) {
  ServerOptions options;
  options.h2 = false;
  auto server = start_server(options);
  ASSERT_TRUE(server);
  TestConnection conn(connect_tcp(server->port()));
  H2TestClient client;
  client.submit("GET", "/bytes/5");
  ASSERT_TRUE(conn.send_all(client.take_output()));
  auto r = conn.responses(1);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].status, 400);  // llhttp refuses the preface as HTTP/1
  EXPECT_TRUE(conn.wait_closed());
  EXPECT_EQ(server->stats().h2_connections, 0u);
}

TEST(ServerH2c, MaxRequestsSendsGoawayAndCloses) {
  ServerOptions options;
  options.h2_max_requests = 3;
  options.h2_max_streams = 2;  // the client may only have two open at once
  auto server = start_server(options);
  ASSERT_TRUE(server);
  TestConnection conn(connect_tcp(server->port()));
  H2TestClient client;
  // Streams beyond the limit before the client knows it would be refused: settle SETTINGS first.
  ASSERT_TRUE(conn.h2_until(client, [&] { return client.remote_max_streams() == 2; }));
  std::vector<int32_t> ids;
  for (int i = 0; i < 3; ++i) ids.push_back(client.submit("GET", "/bytes/" + std::to_string(i)));
  ASSERT_TRUE(conn.h2_until(client, [&] { return client.all_done(); }));
  EXPECT_TRUE(client.goaway());
  EXPECT_EQ(client.goaway_last_stream_id(), ids[2]);
  EXPECT_TRUE(conn.wait_closed());
  EXPECT_EQ(server->stats().requests, 3u);
  EXPECT_EQ(server->stats().h2_streams, 3u);
}

TEST(ServerUnix, ServesAndRemovesItsSocket) {
  const std::string path = unique_socket_path("serve");
  {
    // A stale socket file (nobody listening) is replaced.
    const int stale = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
    ASSERT_EQ(bind(stale, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    close(stale);
  }
  ServerOptions options;
  options.unix_socket = path;
  options.threads = 3;  // one shared socket, EPOLLEXCLUSIVE
  auto server = start_server(options);
  ASSERT_TRUE(server);
  EXPECT_EQ(server->port(), 0);
  EXPECT_EQ(server->unix_socket(), path);

  ServerOptions again = options;
  auto second = Server::start(again);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().message,
            "--unix-socket " + path + ": a server is already listening there");

  std::vector<std::unique_ptr<TestConnection>> conns;
  for (int i = 0; i < 12; ++i) {
    conns.push_back(std::make_unique<TestConnection>(connect_unix(path)));
    ASSERT_TRUE(conns.back()->ok());
  }
  for (int round = 0; round < 2; ++round) {
    for (auto& conn : conns) {
      Response r = conn->request("GET /bytes/7 HTTP/1.1\r\n\r\n");
      EXPECT_EQ(r.status, 200);
      EXPECT_EQ(r.body, "abcdefg");
    }
  }
  {
    TestConnection conn(connect_unix(path));
    check_h2_streams(conn);
  }
  const ServerStats s = server->stats();
  EXPECT_EQ(s.requests, 24u + 4u);
  EXPECT_EQ(s.connections, 13u + 1u);  // and the second server's probe: is anyone listening?
  server->stop();
  EXPECT_FALSE(exists(path));
}

TEST(ServerUnix, RefusesOtherFiles) {
  const std::string path = unique_socket_path("file");
  std::ofstream(path) << "not a socket";
  ServerOptions options;
  options.unix_socket = path;
  auto r = Server::start(options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "--unix-socket " + path + ": exists and is not a socket");
  EXPECT_TRUE(exists(path));  // left alone
  unlink(path.c_str());
  options.unix_socket = "/tmp/" + std::string(200, 'x');
  EXPECT_FALSE(Server::start(options).ok());
}

TEST(ServerTls, AlpnChoosesTheProtocol) {
  auto server = start_server(tls_options());
  ASSERT_TRUE(server);
  EXPECT_TRUE(server->tls());
  {
    auto context = tls_client({"h2", "http/1.1"});
    auto transport = context->new_transport();
    TestConnection conn(connect_tcp(server->port()), transport.get());
    ASSERT_TRUE(conn.handshake());
    EXPECT_EQ(transport->alpn(), "h2");  // the server prefers h2
    check_h2_streams(conn);
  }
  {
    auto context = tls_client({"http/1.1"});
    auto transport = context->new_transport();
    TestConnection conn(connect_tcp(server->port()), transport.get());
    ASSERT_TRUE(conn.handshake());
    EXPECT_EQ(transport->alpn(), "http/1.1");
    Response r = conn.request("GET /bytes/3000000 HTTP/1.1\r\n\r\n");
    EXPECT_EQ(r.status, 200);
    EXPECT_TRUE(r.body == expected_pattern(0, 3000000));
  }
  {
    // No ALPN at all: HTTP/1, or HTTP/2 with prior knowledge.
    auto context = tls_client({});
    auto plain = context->new_transport();
    TestConnection conn(connect_tcp(server->port()), plain.get());
    ASSERT_TRUE(conn.handshake());
    EXPECT_EQ(plain->alpn(), "");
    EXPECT_EQ(conn.request("GET /status/202 HTTP/1.1\r\n\r\n").status, 202);
    auto h2 = context->new_transport();
    TestConnection conn2(connect_tcp(server->port()), h2.get());
    ASSERT_TRUE(conn2.handshake());
    H2TestClient client;
    const int32_t id = client.submit("GET", "/bytes/9");
    ASSERT_TRUE(conn2.h2_until(client, [&] { return client.done(id); }));
    EXPECT_EQ(client.stream(id).body, "abcdefghi");
  }
  const ServerStats s = server->stats();
  EXPECT_EQ(s.tls_handshakes, 4u);
  EXPECT_EQ(s.h2_connections, 2u);
  EXPECT_EQ(s.h2_streams, 5u);
  EXPECT_EQ(s.requests, 7u);
}

TEST(ServerTls, NoH2OffersOnlyHttp11) {
  ServerOptions options = tls_options();
  options.h2 = false;
  auto server = start_server(options);
  ASSERT_TRUE(server);
  auto context = tls_client({"h2", "http/1.1"});
  auto transport = context->new_transport();
  TestConnection conn(connect_tcp(server->port()), transport.get());
  ASSERT_TRUE(conn.handshake());
  EXPECT_EQ(transport->alpn(), "http/1.1");
  EXPECT_EQ(conn.request("GET /bytes/1 HTTP/1.1\r\n\r\n").body, "a");
}

TEST(ServerTls, HandshakesAndResumptionAreCounted) {
  auto server = start_server(tls_options());
  ASSERT_TRUE(server);
  auto context = tls_client({"http/1.1"});
  auto transport = context->new_transport();  // keeps its session for the next connection
  for (int i = 0; i < 3; ++i) {
    TestConnection conn(connect_tcp(server->port()), transport.get());
    ASSERT_TRUE(conn.handshake()) << i;
    EXPECT_EQ(transport->tls_resumed(), i > 0) << i;
    // Reading the answer also reads the TLS 1.3 session tickets sent after the handshake.
    EXPECT_EQ(conn.request("GET /bytes/1 HTTP/1.1\r\n\r\n").status, 200);
  }
  const ServerStats s = server->stats();
  EXPECT_EQ(s.tls_handshakes, 3u);
  EXPECT_EQ(s.tls_resumed, 2u);
  EXPECT_EQ(s.connections, 3u);
}

TEST(ServerTls, FilesAndBytesSentThroughTls) {
  TempRoot tree;
  ServerOptions options = tls_options();
  options.root = tree.path();
  auto server = start_server(options);
  ASSERT_TRUE(server);
  uint64_t received = 0;
  {
    auto context = tls_client({"http/1.1"});
    auto transport = context->new_transport();
    TestConnection conn(connect_tcp(server->port()), transport.get());
    ASSERT_TRUE(conn.handshake());
    // Small (read inline), large (a file segment: pread through TLS), pipelined.
    ASSERT_TRUE(
        conn.send_all("GET /a.txt HTTP/1.1\r\n\r\nGET /large.bin HTTP/1.1\r\n\r\n"
                      "HEAD /large.bin HTTP/1.1\r\n\r\nGET /bytes/70000 HTTP/1.1\r\n\r\n"));
    std::string all;
    std::vector<Response> r;
    while (r.size() < 4 && conn.read_some(&all) == IoStatus::kOk) {
      r = test::parse_responses(all, {false, false, true, false});
    }
    ASSERT_EQ(r.size(), 4u);
    EXPECT_EQ(r[0].body, "alpha\n");
    EXPECT_TRUE(r[1].body == tree.read("large.bin"));
    EXPECT_EQ(r[2].header("content-length"), std::to_string(TempRoot::kLargeBytes));
    EXPECT_TRUE(r[3].body == expected_pattern(0, 70000));
    received = conn.received();
  }
  // Plaintext bytes, as the client reads them.
  EXPECT_EQ(
      settled_stats(*server, [&](const ServerStats& now) { return now.bytes_sent >= received; })
          .bytes_sent,
      received);
}

TEST(ServerTls, CertificateFilesAndErrors) {
  auto pair = generate_self_signed("localhost");
  ASSERT_TRUE(pair.ok());
  TempRoot dir;
  const std::string cert = dir.path() + "/cert.pem";
  const std::string key = dir.path() + "/key.pem";
  std::ofstream(cert) << pair->cert_pem;
  std::ofstream(key) << pair->key_pem;
  ServerOptions options;
  options.tls_cert_file = cert;
  options.tls_key_file = key;
  {
    auto server = start_server(options);
    ASSERT_TRUE(server);
    auto context = tls_client({"h2", "http/1.1"});
    auto transport = context->new_transport();
    TestConnection conn(connect_tcp(server->port()), transport.get());
    ASSERT_TRUE(conn.handshake());
    EXPECT_EQ(transport->alpn(), "h2");
  }
  ServerOptions missing = options;
  missing.tls_key_file = dir.path() + "/nope.pem";
  auto r = Server::start(missing);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().message.starts_with("TLS: ")) << r.error().message;
  ServerOptions half;
  half.tls_cert_file = cert;
  r = Server::start(half);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "--tls-cert needs --tls-key");
  ServerOptions both = options;
  both.tls_self_signed = true;
  EXPECT_FALSE(Server::start(both).ok());
}

TEST(ServerTls, StalledAndGarbageHandshakesAreClosed) {
  ServerOptions options = tls_options();
  options.header_timeout_ns = 300 * kNsPerMs;
  auto server = start_server(options);
  ASSERT_TRUE(server);
  const auto t0 = std::chrono::steady_clock::now();
  TestConnection silent(connect_tcp(server->port()));
  EXPECT_TRUE(silent.wait_closed());
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_GE(ms, 250.0);
  EXPECT_LT(ms, 3000.0);

  TestConnection garbage(connect_tcp(server->port()));
  ASSERT_TRUE(garbage.send_all("GET / HTTP/1.1\r\n\r\n"));
  EXPECT_TRUE(garbage.wait_closed());
  EXPECT_EQ(server->stats().tls_handshakes, 0u);
  EXPECT_EQ(server->stats().requests, 0u);
}

}  // namespace
}  // namespace hail
