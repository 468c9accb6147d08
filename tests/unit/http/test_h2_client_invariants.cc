// H2ClientSession properties over whole exchanges with the in-memory nghttp2 server
// (h2_test_server.h): no allocations of its own in steady state (operator new is replaced below,
// for the whole test binary), the same events at every split of the server's bytes, and the
// writer of the h2_client fuzz corpus.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "http/block_cache.h"
#include "http/h2_client_session.h"
#include "http/request.h"
#include "unit/http/allocation_counter.h"
#include "unit/http/h2_test_server.h"

namespace hail {
namespace {

using test::complete;
using test::Event;
using test::Events;
using test::failed;
using test::first_byte;
using test::get;
using test::H2TestServer;
using test::Link;
using test::pattern;

class CountingListener final : public SessionListener {
 public:
  void on_first_byte(uint32_t) override {}
  void on_response_complete(uint32_t, int, uint32_t) override { ++outcomes; }
  void on_request_failed(uint32_t, ErrorClass, const char*) override { ++outcomes; }
  uint32_t outcomes = 0;
};

TEST(H2ClientSession, SteadyStateAllocatesNothingOfItsOwn) {
  Link link({4, 16});
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  const RequestTemplate req = get("/200?len=2000", "POST", pattern(300));
  CountingListener listener;
  uint64_t warm = 0;
  for (int round = 0; round < 100; ++round) {
    if (round == 50) warm = test::allocations();
    test::count_allocations(true);
    for (uint32_t slot = 0; link.client.capacity() > 0; ++slot) link.client.submit(slot, req);
    test::count_allocations(false);
    for (bool progress = true; progress;) {
      test::count_allocations(true);
      const std::string_view out = link.client.pending_output();
      test::count_allocations(false);
      ASSERT_TRUE(link.server.recv(out));
      test::count_allocations(true);
      link.client.consume_output(out.size());
      test::count_allocations(false);
      const std::string in = link.server.send();
      test::count_allocations(true);
      ASSERT_EQ(link.client.feed(in.data(), in.size(), listener), SessionStatus::kOk);
      test::count_allocations(false);
      progress = !out.empty() || !in.empty();
    }
  }
  EXPECT_EQ(listener.outcomes, 400u);
  EXPECT_EQ(test::allocations() - warm, 0u);
  // The counter does count.
  test::count_allocations(true);
  auto probe = std::make_unique<std::string>(100, 'x');
  test::count_allocations(false);
  EXPECT_GE(test::allocations() - warm, 1u);
}

// nghttp2's own allocations come from the session's BlockCache: after a warm-up, none reaches
// malloc (before it, each response cost nghttp2 a dozen malloc/free pairs).
TEST(H2ClientSession, SteadyStateNghttp2AllocatesFromTheCache) {
  auto blocks = std::make_shared<BlockCache>();
  Link link({10, 16}, 100, blocks);
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  const RequestTemplate req = get("/200?len=1000");
  CountingListener listener;
  uint64_t warm = 0;
  for (int round = 0; round < 200; ++round) {
    if (round == 20) warm = blocks->malloc_calls();
    for (uint32_t slot = 0; link.client.capacity() > 0; ++slot) link.client.submit(slot, req);
    for (bool progress = true; progress;) {
      const std::string_view out = link.client.pending_output();
      ASSERT_TRUE(link.server.recv(out));
      link.client.consume_output(out.size());
      const std::string in = link.server.send();
      ASSERT_EQ(link.client.feed(in.data(), in.size(), listener), SessionStatus::kOk);
      progress = !out.empty() || !in.empty();
    }
  }
  EXPECT_EQ(listener.outcomes, 2000u);
  EXPECT_GT(warm, 0u);  // nghttp2 did allocate through it
  EXPECT_EQ(blocks->malloc_calls(), warm);
  EXPECT_GT(blocks->cached_blocks(), 0u);
}

// Two sessions of one worker share a cache: what the first frees when it ends (nghttp2's whole
// session), the second one reuses.
TEST(H2ClientSession, SessionsShareTheirCache) {
  auto blocks = std::make_shared<BlockCache>();
  {
    Link first({4, 16}, 100, blocks);
    ASSERT_EQ(first.pump(), SessionStatus::kOk);
  }
  const size_t cached = blocks->cached_blocks();
  const uint64_t calls = blocks->malloc_calls();
  EXPECT_GT(cached, 0u);
  Link second({4, 16}, 100, blocks);
  ASSERT_EQ(second.pump(), SessionStatus::kOk);
  EXPECT_LT(blocks->malloc_calls() - calls, calls);  // mostly served from the first's blocks
}

// A fresh client fed `in` cut at `cuts` and always right after the server's first frame (its
// SETTINGS); the requests are submitted as soon as capacity() allows, as the connection does.
std::vector<Event> replay(const std::string& in, const std::vector<RequestTemplate>& requests,
                          std::vector<size_t> cuts) {
  if (in.size() >= 9) {
    cuts.push_back(std::min(in.size(), 9 + (size_t{static_cast<uint8_t>(in[0])} << 16 |
                                            size_t{static_cast<uint8_t>(in[1])} << 8 |
                                            size_t{static_cast<uint8_t>(in[2])})));
  }
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  H2ClientSession client({4, 16});
  client.reset();
  Events events;
  size_t next = 0;
  size_t at = 0;
  for (size_t i = 0; i <= cuts.size(); ++i) {
    const size_t end = i < cuts.size() ? cuts[i] : in.size();
    EXPECT_EQ(client.feed(in.data() + at, end - at, events), SessionStatus::kOk) << "at " << at;
    at = end;
    while (next < requests.size() && client.capacity() > 0) {
      client.submit(static_cast<uint32_t>(next), requests[next]);
      ++next;
    }
    client.consume_output(client.pending_output().size());
  }
  EXPECT_EQ(client.in_flight(), 0u);
  return events.list;
}

std::vector<RequestTemplate> split_scenario() {
  return {get("/200?len=3000"), get("/interim?n=1"), get("/rst?code=8"),
          get("/200?len=70000", "POST", pattern(1000))};
}

// The server's bytes for split_scenario(), and the events they give.
std::string capture_split_scenario(std::vector<Event>* events) {
  Link link({4, 16});
  EXPECT_EQ(link.pump(), SessionStatus::kOk);  // SETTINGS both ways
  const std::vector<RequestTemplate> requests = split_scenario();
  for (size_t i = 0; i < requests.size(); ++i) {
    link.client.submit(static_cast<uint32_t>(i), requests[i]);
  }
  EXPECT_EQ(link.pump(), SessionStatus::kOk);
  *events = link.events.list;
  return link.captured;
}

TEST(H2ClientSession, SameEventsAtEverySplitPoint) {
  std::vector<Event> want;
  const std::string in = capture_split_scenario(&want);
  ASSERT_EQ(want, (std::vector<Event>{first_byte(0), first_byte(1), complete(1, 200, 1),
                                      failed(2, "stream reset: CANCEL"), first_byte(3),
                                      complete(0, 200), complete(3, 200)}));
  const std::vector<RequestTemplate> requests = split_scenario();
  EXPECT_EQ(replay(in, requests, {}), want) << "whole";
  for (size_t cut = 1; cut < in.size(); ++cut) {
    const std::vector<Event> got = replay(in, requests, {cut});
    if (got != want) {
      ADD_FAILURE() << "split at " << cut;
      break;
    }
  }
  std::vector<size_t> bytes;
  for (size_t i = 1; i < in.size(); ++i) bytes.push_back(i);
  EXPECT_EQ(replay(in, requests, bytes), want) << "one byte at a time";
}

// Writes the fuzz corpus of tests/fuzz/h2_client (format in fuzz_h2_client.cc) to the directory
// named by HAIL_H2_CORPUS_DIR. Run: test_http_h2_client_session --gtest_also_run_disabled_tests
// --gtest_filter='*WriteFuzzCorpus'.
TEST(H2ClientSession, DISABLED_WriteFuzzCorpus) {
  const char* dir = std::getenv("HAIL_H2_CORPUS_DIR");
  ASSERT_NE(dir, nullptr);
  auto write = [&](const char* name, uint8_t options, uint8_t chunk_seed, const std::string& in) {
    std::ofstream f(std::string(dir) + "/" + name, std::ios::binary);
    f.put(static_cast<char>(options)).put(static_cast<char>(chunk_seed)) << in;
  };
  auto run = [](std::vector<RequestTemplate> requests, auto&& server_action) {
    Link link({4, 16});
    EXPECT_EQ(link.pump(), SessionStatus::kOk);
    for (size_t i = 0; i < requests.size(); ++i) {
      link.client.submit(static_cast<uint32_t>(i), requests[i]);
    }
    EXPECT_EQ(link.pump(), SessionStatus::kOk);
    server_action(link.server);
    EXPECT_EQ(link.pump(), SessionStatus::kOk);
    return link.captured;
  };
  auto nothing = [](H2TestServer&) {};
  // options byte: requests - 1 in bits 0-3, HEAD in bit 4 (the server's bytes decide the rest).
  write("get_body", 0, 0, run({get("/200?len=3000")}, nothing));
  write("get_body_split", 0, 13, run({get("/200?len=3000")}, nothing));
  const std::vector<RequestTemplate> mixed = {get("/200?len=300"), get("/interim?n=1"),
                                              get("/rst?code=8"), get("/404?len=100")};
  write("mixed", 3, 0, run(mixed, nothing));
  write("mixed_split", 3, 200, run(mixed, nothing));
  write("rst", 1, 0, run({get("/rst?code=2"), get("/200?len=10")}, nothing));
  write("interim", 0, 5, run({get("/interim?n=3")}, nothing));
  write("goaway", 3, 0,
        run({get("/hold"), get("/hold"), get("/hold"), get("/hold")}, [](H2TestServer& s) {
          s.goaway(3);
          s.respond(1, 200, 10);
          s.respond(3, 500, 0);
        }));
  write("head", 16, 0, run({get("/200?len=100", "HEAD")}, nothing));
  write("badlen", 0, 0, run({get("/badlen")}, nothing));
}

}  // namespace
}  // namespace hail
