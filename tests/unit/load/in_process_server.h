// A test fixture for engine tests that run real loads: hail's built-in server in-process on a free
// loopback port (one reactor), and run options aimed at it, so that every test can compare its
// counts with the server's. Test thread only (the server runs its own thread).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "core/url.h"
#include "load/run_options.h"
#include "server/server.h"

namespace hail::test {

class InProcessServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ServerOptions options;
    options.threads = 1;
    auto server = Server::start(options);
    ASSERT_TRUE(server.ok()) << server.error().message;
    server_ = std::move(server.value());
  }

  // A GET of `path` on the server, with `connections` connections over `threads` workers.
  RunOptions options_for(const std::string& path, uint32_t connections = 4,
                         uint32_t threads = 2) {
    RunOptions o;
    auto url = parse_url("http://127.0.0.1:" + std::to_string(server_->port()) + path);
    EXPECT_TRUE(url.ok());
    o.url = url.value();
    o.request.path = o.url.path;
    o.request.authority = o.url.authority();
    o.connections = connections;
    o.threads = threads;
    return o;
  }

  std::unique_ptr<Server> server_;
};

}  // namespace hail::test
