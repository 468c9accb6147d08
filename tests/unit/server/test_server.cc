// The real server in-process on 127.0.0.1, port 0, driven by blocking loopback sockets.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "server/server.h"
#include "server_test_util.h"
#include "temp_root.h"

namespace hail {
namespace {

using test::Client;
using test::expected_pattern;
using test::Response;
using test::TempRoot;

std::unique_ptr<Server> start_server(ServerOptions options = {}) {
  auto server = Server::start(options);
  EXPECT_TRUE(server.ok()) << (server.ok() ? "" : server.error().message);
  if (!server.ok()) return nullptr;
  return std::move(server.value());
}

Response get(uint16_t port, const std::string& request, bool no_body = false) {
  Client client(port);
  EXPECT_TRUE(client.connected());
  EXPECT_TRUE(client.send_all(request));
  return client.read_response(no_body);
}

double elapsed_ms(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since)
      .count();
}

TEST(Server, StartErrors) {
  ServerOptions bad_root;
  bad_root.root = "/nonexistent/hail-root";
  auto r = Server::start(bad_root);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "--root /nonexistent/hail-root: No such file or directory");

  auto first = start_server();
  ASSERT_TRUE(first);
  ServerOptions same_port;
  same_port.port = first->port();
  r = Server::start(same_port);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "cannot bind 127.0.0.1:" + std::to_string(first->port()) + ": Address already in use");

  if (geteuid() != 0) {
    ServerOptions privileged;
    privileged.port = 80;
    r = Server::start(privileged);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message, "cannot bind 127.0.0.1:80: Permission denied");
  }
  ServerOptions zero_threads;
  zero_threads.threads = 0;
  EXPECT_FALSE(Server::start(zero_threads).ok());
}

TEST(Server, ListensOnIpv6Loopback) {
  ServerOptions options;
  options.host = "::1";
  options.threads = 2;
  auto started = Server::start(options);
  if (!started.ok()) GTEST_SKIP() << "no IPv6 loopback here: " << started.error().message;
  const int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in6 addr{};
  addr.sin6_family = AF_INET6;
  addr.sin6_port = htons(started.value()->port());
  addr.sin6_addr = in6addr_loopback;
  ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  const std::string request = "GET /bytes/4 HTTP/1.1\r\nConnection: close\r\n\r\n";
  ASSERT_EQ(send(fd, request.data(), request.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(request.size()));
  std::string got;
  char buf[1024];
  ssize_t n;
  while ((n = recv(fd, buf, sizeof buf, 0)) > 0) got.append(buf, static_cast<size_t>(n));
  close(fd);
  EXPECT_TRUE(got.starts_with("HTTP/1.1 200 OK\r\n")) << got;
  EXPECT_TRUE(got.ends_with("\r\n\r\nabcd")) << got;
}

TEST(Server, Endpoints) {
  auto server = start_server();
  ASSERT_TRUE(server);
  const uint16_t port = server->port();
  EXPECT_NE(port, 0);

  Response r = get(port, "GET /bytes/1024 HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, expected_pattern(0, 1024));
  EXPECT_EQ(r.header("server"), "hail");
  EXPECT_EQ(r.header("content-type"), "application/octet-stream");
  EXPECT_TRUE(r.header("date").ends_with(" GMT"));

  r = get(port, "GET /bytes/0 HTTP/1.1\r\n\r\n");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.header("content-length"), "0");

  r = get(port, "GET /status/404 HTTP/1.1\r\n\r\n");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.body, "404 Not Found\n");

  r = get(port, "GET /status/204 HTTP/1.1\r\n\r\n");
  EXPECT_EQ(r.status, 204);
  EXPECT_FALSE(r.has("content-length"));

  r = get(port, "POST /echo HTTP/1.1\r\nContent-Type: text/x-a\r\nContent-Length: 4\r\n\r\nping");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "ping");
  EXPECT_EQ(r.header("content-type"), "text/x-a");

  r = get(port, "GET /nothing HTTP/1.1\r\n\r\n");
  EXPECT_EQ(r.status, 404);

  const auto t0 = std::chrono::steady_clock::now();
  r = get(port, "GET /delay/100 HTTP/1.1\r\n\r\n");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "ok\n");
  EXPECT_GE(elapsed_ms(t0), 99.0);

  r = get(port, "GET /stats HTTP/1.1\r\n\r\n");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.header("content-type"), "application/json");
}

TEST(Server, HeadRequests) {
  auto server = start_server();
  ASSERT_TRUE(server);
  Client client(server->port());
  ASSERT_TRUE(client.send_all("HEAD /bytes/5000 HTTP/1.1\r\n\r\nGET /bytes/3 HTTP/1.1\r\n\r\n"));
  auto r = client.read_responses(2, {true, false});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].header("content-length"), "5000");
  EXPECT_EQ(r[0].body, "");
  EXPECT_EQ(r[1].body, "abc");  // nothing of a HEAD body slipped in between
}

TEST(Server, PipelinedThreeRequestsInOneWrite) {
  auto server = start_server();
  ASSERT_TRUE(server);
  Client client(server->port());
  ASSERT_TRUE(
      client.send_all("GET /bytes/10 HTTP/1.1\r\nHost: x\r\n\r\n"
                      "GET /status/201 HTTP/1.1\r\nHost: x\r\n\r\n"
                      "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nxyz"));
  auto r = client.read_responses(3);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].body, expected_pattern(0, 10));
  EXPECT_EQ(r[1].status, 201);
  EXPECT_EQ(r[2].body, "xyz");
  // Still open: keep-alive.
  ASSERT_TRUE(client.send_all("GET /bytes/1 HTTP/1.1\r\n\r\n"));
  EXPECT_EQ(client.read_response().body, "a");
}

TEST(Server, DelayedResponseHoldsThePipelineInOrder) {
  auto server = start_server();
  ASSERT_TRUE(server);
  Client client(server->port());
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(client.send_all("GET /delay/150 HTTP/1.1\r\n\r\nGET /bytes/2 HTTP/1.1\r\n\r\n"));
  auto r = client.read_responses(2);
  EXPECT_GE(elapsed_ms(t0), 149.0);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].body, "ok\n");
  EXPECT_EQ(r[1].body, "ab");
}

TEST(Server, Http10ClosesUnlessKeepAlive) {
  auto server = start_server();
  ASSERT_TRUE(server);
  {
    Client client(server->port());
    ASSERT_TRUE(client.send_all("GET /bytes/5 HTTP/1.0\r\n\r\n"));
    Response r = client.read_response();
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.header("connection"), "close");
    EXPECT_TRUE(client.wait_closed());
  }
  {
    Client client(server->port());
    ASSERT_TRUE(client.send_all("GET /bytes/5 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"));
    Response r = client.read_response();
    EXPECT_EQ(r.header("connection"), "keep-alive");
    ASSERT_TRUE(client.send_all("GET /bytes/6 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"));
    EXPECT_EQ(client.read_response().body.size(), 6u);
  }
  {
    Client client(server->port());
    ASSERT_TRUE(client.send_all("GET /bytes/5 HTTP/1.1\r\nConnection: close\r\n\r\n"));
    EXPECT_EQ(client.read_response().header("connection"), "close");
    EXPECT_TRUE(client.wait_closed());
  }
}

TEST(Server, ChunkedEcho) {
  auto server = start_server();
  ASSERT_TRUE(server);
  Response r = get(server->port(),
                   "POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                   "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "hello world");
}

TEST(Server, ContentLengthPlusTransferEncodingIs400AndClose) {
  auto server = start_server();
  ASSERT_TRUE(server);
  Client client(server->port());
  ASSERT_TRUE(client.send_all(
      "POST /echo HTTP/1.1\r\nContent-Length: 6\r\nTransfer-Encoding: chunked\r\n\r\n"
      "0\r\n\r\nGET /bytes/1 HTTP/1.1\r\n\r\n"));
  Response r = client.read_response();
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.header("connection"), "close");
  EXPECT_TRUE(client.wait_closed());
  EXPECT_EQ(client.leftover(), "");  // the smuggled request got no answer
}

TEST(Server, TraversalAndSymlinks) {
  TempRoot tree;
  ServerOptions options;
  options.root = tree.path();
  auto server = start_server(options);
  ASSERT_TRUE(server);
  const uint16_t port = server->port();
  struct Case {
    const char* target;
    int status;
  };
  const Case refused[] = {
      {"/../etc/passwd", 400},     {"/%2e%2e/", 400},
      {"/a/%2E%2E/%2e%2e/x", 400}, {"/%2e%2e/%2e%2e/etc/passwd", 400},
      {"/..%2fsecret.txt", 400},   {"/a%00.txt", 400},
      {"/etc_link/passwd", 403},   {"/passwd_link", 403},
      {"/secret_link", 403},
  };
  for (const Case& c : refused) {
    Response r = get(port, std::string("GET ") + c.target + " HTTP/1.1\r\n\r\n");
    EXPECT_EQ(r.status, c.status) << c.target;
    EXPECT_EQ(r.body.find("root:"), std::string::npos) << c.target;
    EXPECT_EQ(r.body.find("outside"), std::string::npos) << c.target;
  }
  Response r = get(port, "GET /a_link.txt HTTP/1.1\r\n\r\n");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "alpha\n");
  r = get(port, "GET /sub/up_link.txt HTTP/1.1\r\n\r\n");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "alpha\n");
  r = get(port, "GET / HTTP/1.1\r\n\r\n");
  EXPECT_EQ(r.body, "<h1>home</h1>\n");
  r = get(port, "GET /large.bin HTTP/1.1\r\n\r\n");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, tree.read("large.bin"));
  r = get(port, "GET /noindex/ HTTP/1.1\r\n\r\n");
  EXPECT_EQ(r.status, 404);
}

TEST(Server, OversizedHeadersAre431AndClose) {
  auto server = start_server();
  ASSERT_TRUE(server);
  Client client(server->port());
  std::string request = "GET /bytes/1 HTTP/1.1\r\n";
  for (int i = 0; i < 200; ++i)
    request += "X-Big-" + std::to_string(i) + ": " + std::string(100, 'v') + "\r\n";
  request += "\r\n";
  ASSERT_GT(request.size(), 16u * 1024);
  ASSERT_TRUE(client.send_all(request));
  Response r = client.read_response();
  EXPECT_EQ(r.status, 431);
  EXPECT_TRUE(client.wait_closed());

  Client long_line(server->port());
  ASSERT_TRUE(long_line.send_all("GET /" + std::string(9000, 'x') + " HTTP/1.1\r\n\r\n"));
  EXPECT_EQ(long_line.read_response().status, 414);
  EXPECT_TRUE(long_line.wait_closed());
}

TEST(Server, RefusedBodyStillGetsItsAnswer) {
  // A 413 goes out while the client is still sending: lingering on close keeps the answer readable.
  auto server = start_server();
  ASSERT_TRUE(server);
  Client client(server->port());
  ASSERT_TRUE(client.send_all("POST /echo HTTP/1.1\r\nContent-Length: 20000000\r\n\r\n"));
  ASSERT_TRUE(client.send_all(std::string(256 * 1024, 'x')));
  Response r = client.read_response();
  EXPECT_EQ(r.status, 413);
}

TEST(Server, SlowlorisIsClosedAfterHeaderTimeout) {
  ServerOptions options;
  options.header_timeout_ns = 300 * kNsPerMs;
  auto server = start_server(options);
  ASSERT_TRUE(server);
  Client client(server->port());
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(client.send_all("GET /bytes/1 HTTP/1.1\r\nHost: x\r\n"));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_TRUE(client.send_all("X-Slow: 1\r\n"));  // trickling bytes does not extend the deadline
  EXPECT_TRUE(client.wait_closed());
  const double ms = elapsed_ms(t0);
  EXPECT_GE(ms, 290.0);
  EXPECT_LT(ms, 2000.0);
  Response r;
  ASSERT_GT(test::parse_response(client.leftover(), &r), 0u);
  EXPECT_EQ(r.status, 408);

  // A complete request on a fresh connection is unaffected, and so is an idle connection.
  Client idle(server->port());
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  ASSERT_TRUE(idle.send_all("GET /bytes/2 HTTP/1.1\r\n\r\n"));
  EXPECT_EQ(idle.read_response().body, "ab");
}

TEST(Server, IdleConnectionsAreClosed) {
  ServerOptions options;
  options.idle_timeout_ns = 200 * kNsPerMs;
  auto server = start_server(options);
  ASSERT_TRUE(server);
  Client client(server->port());
  ASSERT_TRUE(client.send_all("GET /bytes/1 HTTP/1.1\r\n\r\n"));
  EXPECT_EQ(client.read_response().status, 200);
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_TRUE(client.wait_closed());
  EXPECT_GE(elapsed_ms(t0), 150.0);
  // A /delay longer than the idle timeout is not idleness.
  Client delayed(server->port());
  ASSERT_TRUE(delayed.send_all("GET /delay/400 HTTP/1.1\r\n\r\n"));
  EXPECT_EQ(delayed.read_response().body, "ok\n");
}

TEST(Server, StatsCountExactly) {
  auto server = start_server();
  ASSERT_TRUE(server);
  const uint16_t port = server->port();
  auto read_stats = [&] { return get(port, "GET /stats HTTP/1.1\r\n\r\n").body; };
  EXPECT_EQ(
      read_stats(),
      "{\"requests\": 0, \"connections\": 1, \"bytes_sent\": 0, \"rejected_connections\": 0, "
      "\"tls_handshakes\": 0, \"tls_resumed\": 0, \"h2_connections\": 0, \"h2_streams\": 0}\n");
  uint64_t body_and_head_bytes = 0;
  for (int c = 0; c < 3; ++c) {
    Client client(port);
    for (int i = 0; i < 4; ++i) {
      ASSERT_TRUE(client.send_all("GET /bytes/100 HTTP/1.1\r\n\r\n"));
      Response r = client.read_response();
      EXPECT_EQ(r.status, 200);
    }
    ASSERT_TRUE(client.send_all("GET /missing HTTP/1.1\r\n\r\n"));
    EXPECT_EQ(client.read_response().status, 404);
  }
  (void)body_and_head_bytes;
  // 15 requests on 3 connections, plus the 2 /stats connections (the second counted by now).
  const std::string stats = read_stats();
  EXPECT_TRUE(stats.starts_with("{\"requests\": 15, \"connections\": 5, \"bytes_sent\": "))
      << stats;
  const ServerStats s = server->stats();
  EXPECT_EQ(s.requests, 15u);
  EXPECT_EQ(s.connections, 5u);
  EXPECT_GT(s.bytes_sent, 15u * 100);
  EXPECT_EQ(s.rejected_connections, 0u);
}

TEST(Server, BytesSentMatchesWhatClientsReceived) {
  auto server = start_server();
  ASSERT_TRUE(server);
  uint64_t received = 0;
  {
    Client client(server->port());
    std::string all;
    ASSERT_TRUE(
        client.send_all("GET /bytes/3000000 HTTP/1.1\r\n\r\nGET /status/204 "
                        "HTTP/1.1\r\nConnection: close\r\n\r\n"));
    auto r = client.read_responses(2);
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r[0].body, expected_pattern(0, 3000000));
    EXPECT_TRUE(client.wait_closed());
    // Re-render what arrived: heads plus the body.
    for (const Response& response : r) {
      received += response.body.size();
    }
  }
  const ServerStats s = server->stats();
  EXPECT_EQ(s.requests, 2u);
  EXPECT_GT(s.bytes_sent, received);
  EXPECT_LT(s.bytes_sent, received + 1000);  // two heads
}

TEST(Server, HugeTransfersDoNotStarveOtherConnections) {
  auto server = start_server();  // one reactor for everyone
  ASSERT_TRUE(server);
  std::atomic<bool> done{false};
  std::atomic<uint64_t> downloaded{0};
  // A reader as fast as the machine allows, on a body that would take hours.
  std::thread download([&] {
    Client client(server->port());
    client.send_all("GET /bytes/1099511627776 HTTP/1.1\r\n\r\n");
    char buf[1 << 16];
    while (!done.load()) {
      const ssize_t n = recv(client.fd(), buf, sizeof buf, 0);
      if (n <= 0) break;
      downloaded += static_cast<uint64_t>(n);
    }
  });
  // And an upload streaming a body that is read and discarded.
  std::thread upload([&] {
    Client client(server->port());
    client.send_all("POST /bytes/1 HTTP/1.1\r\nContent-Length: 1099511627776\r\n\r\n");
    const std::string chunk(1 << 16, 'u');
    while (!done.load() && client.send_all(chunk)) {
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  Client probe(server->port());
  double worst_ms = 0;
  for (int i = 0; i < 20; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    ASSERT_TRUE(probe.send_all("GET /bytes/10 HTTP/1.1\r\n\r\n"));
    EXPECT_EQ(probe.read_response().status, 200);
    worst_ms = std::max(worst_ms, elapsed_ms(t0));
  }
  done = true;
  server->stop();  // closes the transfers' connections
  download.join();
  upload.join();
  EXPECT_GT(downloaded.load(), 1u << 20);
  EXPECT_LT(worst_ms, 1000.0);  // starvation would be seconds; this leaves room for a busy CI box
}

TEST(Server, ManyConcurrentConnectionsOverSeveralThreads) {
  ServerOptions options;
  options.threads = 4;
  auto server = start_server(options);
  ASSERT_TRUE(server);
  constexpr int kClients = 200;
  std::vector<std::unique_ptr<Client>> clients;
  for (int i = 0; i < kClients; ++i) {
    clients.push_back(std::make_unique<Client>(server->port()));
    ASSERT_TRUE(clients.back()->connected()) << i;
  }
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < kClients; ++i) {
      ASSERT_TRUE(clients[i]->send_all("GET /bytes/" + std::to_string(i) + " HTTP/1.1\r\n\r\n"));
    }
    for (int i = 0; i < kClients; ++i) {
      Response r = clients[i]->read_response();
      ASSERT_EQ(r.status, 200) << i;
      ASSERT_EQ(r.body, expected_pattern(0, static_cast<uint64_t>(i))) << i;
    }
  }
  const ServerStats s = server->stats();
  EXPECT_EQ(s.requests, 3u * kClients);
  EXPECT_EQ(s.connections, static_cast<uint64_t>(kClients));
}

TEST(Server, MaxConnectionsRejectsTheRest) {
  ServerOptions options;
  options.max_connections = 2;
  auto server = start_server(options);
  ASSERT_TRUE(server);
  Client a(server->port());
  Client b(server->port());
  ASSERT_TRUE(a.send_all("GET /bytes/1 HTTP/1.1\r\n\r\n"));
  ASSERT_TRUE(b.send_all("GET /bytes/1 HTTP/1.1\r\n\r\n"));
  EXPECT_EQ(a.read_response().status, 200);
  EXPECT_EQ(b.read_response().status, 200);
  Client c(server->port());
  ASSERT_TRUE(c.connected());  // accepted by the kernel, then closed by the server
  EXPECT_TRUE(c.wait_closed());
  EXPECT_EQ(server->stats().rejected_connections, 1u);
  EXPECT_EQ(server->stats().connections, 2u);
}

TEST(Server, StopIsIdempotentAndClosesConnections) {
  auto server = start_server();
  ASSERT_TRUE(server);
  Client client(server->port());
  ASSERT_TRUE(client.send_all("GET /bytes/1 HTTP/1.1\r\n\r\n"));
  EXPECT_EQ(client.read_response().status, 200);
  std::thread other([&] { server->stop(); });
  server->stop();
  other.join();
  server->stop();
  EXPECT_TRUE(client.wait_closed());
  EXPECT_EQ(server->stats().requests, 1u);  // totals survive stop()
}

}  // namespace
}  // namespace hail
