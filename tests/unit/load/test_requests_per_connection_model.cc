// A load model defined outside the engine (requests_per_connection_model.h) runs through the
// unchanged runner, worker and connections: counted on the server's side.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "core/clock.h"
#include "load/runner.h"
#include "server/server.h"
#include "unit/load/in_process_server.h"
#include "unit/load/requests_per_connection_model.h"

namespace hail {
namespace {

class RequestsPerConnectionModelTest : public test::InProcessServerTest {
 protected:
  RunOptions options_with(uint32_t connections) { return options_for("/bytes/10", connections, 1); }
};

TEST_F(RequestsPerConnectionModelTest, EachConnectionCarriesExactlyItsShare) {
  RunOptions o = options_with(1);
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
  RunOptions o = options_with(3);
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
