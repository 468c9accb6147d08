// A load model defined outside the engine (requests_per_connection_model.h) runs through the
// unchanged runner, worker and connections: counted on the server's side.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "core/clock.h"
#include "core/url.h"
#include "load/runner.h"
#include "server/server.h"
#include "unit/load/requests_per_connection_model.h"

namespace hail {
namespace {

class RequestsPerConnectionModelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ServerOptions options;
    options.threads = 1;
    auto server = Server::start(options);
    ASSERT_TRUE(server.ok()) << server.error().message;
    server_ = std::move(server.value());
  }

  RunOptions options_for(uint32_t connections) {
    RunOptions o;
    auto url = parse_url("http://127.0.0.1:" + std::to_string(server_->port()) + "/bytes/10");
    EXPECT_TRUE(url.ok());
    o.url = url.value();
    o.request.path = o.url.path;
    o.request.authority = o.url.authority();
    o.connections = connections;
    o.threads = 1;
    return o;
  }

  std::unique_ptr<Server> server_;
};

TEST_F(RequestsPerConnectionModelTest, EachConnectionCarriesExactlyItsShare) {
  RunOptions o = options_for(1);
  o.requests = 23;  // 4 full connections of 5, then 3 on a fifth
  o.duration_ns = 0;
  o.load_model = std::make_shared<RequestsPerConnectionModel>(5);
  auto r = run_load(o, nullptr);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->counters.completed, 23u);
  EXPECT_EQ(r->counters.connections_opened, 5u);
  EXPECT_EQ(server_->stats().requests, 23u);
  EXPECT_EQ(server_->stats().connections, 5u);
  EXPECT_TRUE(r->accounting_holds());
  // The closes were the client's, after whole responses: nothing failed.
  EXPECT_EQ(r->counters.request_errors(), 0u);
}

TEST_F(RequestsPerConnectionModelTest, ManyConnectionsForADuration) {
  RunOptions o = options_for(3);
  o.duration_ns = 200 * kNsPerMs;
  o.load_model = std::make_shared<RequestsPerConnectionModel>(4);
  auto r = run_load(o, nullptr);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const ServerStats s = server_->stats();
  // Every connection but the (at most 3) open at the end carried exactly 4 requests.
  ASSERT_GT(s.connections, 3u);
  EXPECT_GE(s.requests, 4 * (s.connections - 3));
  EXPECT_LE(s.requests, 4 * s.connections);
  EXPECT_EQ(r->counters.request_errors(), 0u);
  EXPECT_TRUE(r->accounting_holds());
}

}  // namespace
}  // namespace hail
