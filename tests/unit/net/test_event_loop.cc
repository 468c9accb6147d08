#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "net/event_loop.h"

namespace hail {
namespace {

std::unique_ptr<EventLoop> make_loop(IoBackend backend = IoBackend::kEpoll) {
  auto loop = EventLoop::create(backend);
  EXPECT_TRUE(loop.ok()) << (loop.ok() ? "" : loop.error().message);
  return std::unique_ptr<EventLoop>(loop.ok() ? loop.value() : nullptr);
}

// The loop's contract holds on both backends (io_uring only where this kernel allows it).
class EventLoopBackends : public ::testing::TestWithParam<IoBackend> {
 protected:
  void SetUp() override {
    if (GetParam() == IoBackend::kUring && !uring_unavailable_reason().empty()) {
      GTEST_SKIP() << "io_uring unavailable: " << uring_unavailable_reason();
    }
  }
};

void quit_loop(Timer* /*t*/, void* ctx) {
  static_cast<EventLoop*>(ctx)->quit();
}

struct Recording {
  std::vector<int>* order;
  int id;
  EventLoop* loop;
  bool quit_after = false;
};

void record_fire(Timer* /*t*/, void* ctx) {
  auto* r = static_cast<Recording*>(ctx);
  r->order->push_back(r->id);
  if (r->quit_after) r->loop->quit();
}

TEST_P(EventLoopBackends, TimersFireInDeadlineOrder) {
  auto loop = make_loop(GetParam());
  std::vector<int> order;
  constexpr int kTimers = 50;
  std::vector<Recording> recs(kTimers);
  std::vector<Timer> timers(kTimers);
  uint64_t base = loop->refresh_now_ns();
  for (int i = 0; i < kTimers; ++i) {
    // Deadlines in a scrambled order, all within a few milliseconds.
    int slot = (i * 17) % kTimers;
    recs[i] = {&order, slot, loop.get(), slot == kTimers - 1};
    timers[i].fn = record_fire;
    timers[i].ctx = &recs[i];
    loop->arm(timers[i], base + kNsPerMs + static_cast<uint64_t>(slot) * 50 * kNsPerUs);
  }
  loop->run();
  ASSERT_EQ(order.size(), static_cast<size_t>(kTimers));
  for (int i = 0; i < kTimers; ++i) EXPECT_EQ(order[i], i);
  EXPECT_GE(loop->now_ns(), base + kNsPerMs + (kTimers - 1) * 50 * kNsPerUs);
}

TEST_P(EventLoopBackends, CancelAndRearm) {
  auto loop = make_loop(GetParam());
  std::vector<int> order;
  Recording a{&order, 1, loop.get()}, b{&order, 2, loop.get(), true}, c{&order, 3, loop.get()};
  Timer ta{record_fire, &a}, tb{record_fire, &b}, tc{record_fire, &c};
  uint64_t now = loop->refresh_now_ns();
  loop->arm(ta, now + 1 * kNsPerMs);
  loop->arm(tb, now + 3 * kNsPerMs);
  loop->arm(tc, now + 2 * kNsPerMs);
  loop->cancel(tc);
  EXPECT_FALSE(tc.armed());
  loop->arm(ta, now + 4 * kNsPerMs);  // moved past b: b quits first
  loop->run();
  EXPECT_EQ(order, std::vector<int>{2});
  EXPECT_TRUE(ta.armed());
  loop->cancel(ta);
  EXPECT_EQ(loop->armed_timers(), 0u);
}

TEST_P(EventLoopBackends, PostAndStopFromAnotherThread) {
  auto loop = make_loop(GetParam());
  std::thread::id ran_on;
  std::thread other([&] {
    loop->post([&] { ran_on = std::this_thread::get_id(); });
    loop->stop();
  });
  loop->run();
  other.join();
  EXPECT_EQ(ran_on, std::this_thread::get_id());
}

// A handler that closes both ends of a socketpair from inside on_io: the other end's pending event
// in the same batch must be dropped, not dispatched to a dead handler.
struct Closer : IoHandler {
  EventLoop* loop;
  int fd;
  Closer* peer;
  int calls = 0;
  void on_io(uint32_t) override {
    ++calls;
    loop->remove(fd, this);
    close(fd);
    loop->remove(peer->fd, peer);
    close(peer->fd);
    loop->quit();
  }
};

TEST_P(EventLoopBackends, RemoveDropsPendingEventsOfTheBatch) {
  auto loop = make_loop(GetParam());
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
  Closer a, b;
  a.loop = loop.get();
  a.fd = sv[0];
  a.peer = &b;
  b.loop = loop.get();
  b.fd = sv[1];
  b.peer = &a;
  // Both ends are writable at once: one batch holds both events.
  ASSERT_EQ(loop->add(sv[0], EPOLLOUT, &a), 0);
  ASSERT_EQ(loop->add(sv[1], EPOLLOUT, &b), 0);
  loop->run();
  EXPECT_EQ(a.calls + b.calls, 1);
}

// Records its id, takes `busy_ns` of CPU the first time any of them runs, and leaves the loop.
struct Slow : IoHandler {
  Slow(EventLoop* l, int f, int i, std::vector<int>* o, uint64_t b)
      : loop(l), fd(f), id(i), order(o), busy_ns(b) {}
  EventLoop* loop;
  int fd;
  int id;
  std::vector<int>* order;
  uint64_t busy_ns;
  void on_io(uint32_t) override {
    if (order->empty()) {
      const uint64_t until_ns = mono_now_ns() + busy_ns;
      while (mono_now_ns() < until_ns) {
      }
    }
    order->push_back(id);
    loop->remove(fd, this);
  }
};

// A timer due while the first handler of a batch runs fires after the batch, or (timely timers:
// rate mode) before the next handler.
void run_slow_batch(IoBackend backend, bool timely, std::vector<int>* order) {
  auto loop = make_loop(backend);
  loop->set_timely_timers(timely);
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
  Slow a(loop.get(), sv[0], 1, order, 5 * kNsPerMs);
  Slow b(loop.get(), sv[1], 2, order, 5 * kNsPerMs);
  // Both ends are writable at once: one batch holds both events.
  ASSERT_EQ(loop->add(sv[0], EPOLLOUT, &a), 0);
  ASSERT_EQ(loop->add(sv[1], EPOLLOUT, &b), 0);
  Recording due{order, 0, loop.get()};
  Timer due_timer{record_fire, &due};
  Timer end_timer{quit_loop, loop.get()};
  const uint64_t start_ns = loop->refresh_now_ns();
  // Due 1 ms from now: during the first handler's 5 ms (the batch is taken at once).
  loop->arm(due_timer, start_ns + kNsPerMs);
  loop->arm(end_timer, start_ns + 50 * kNsPerMs);
  loop->run();
  close(sv[0]);
  close(sv[1]);
}

TEST_P(EventLoopBackends, TimelyTimersFireBetweenTheHandlersOfABatch) {
  std::vector<int> order;
  run_slow_batch(GetParam(), false, &order);
  ASSERT_EQ(order.size(), 3u);
  EXPECT_EQ(order[2], 0) << "without timely timers, after the batch";
  order.clear();
  run_slow_batch(GetParam(), true, &order);
  ASSERT_EQ(order.size(), 3u);
  EXPECT_EQ(order[1], 0) << "with timely timers, between the two handlers";
}

// Both ends of a non-blocking Unix socketpair, closed when the test ends.
struct SocketPair {
  int fd[2] = {-1, -1};
  SocketPair() { EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fd), 0); }
  ~SocketPair() {
    close(fd[0]);
    close(fd[1]);
  }
};

// Records when it was called, then stops the loop.
struct Stamp : IoHandler {
  explicit Stamp(EventLoop* l) : loop(l) {}
  EventLoop* loop;
  uint64_t at_ns = 0;
  void on_io(uint32_t) override {
    at_ns = mono_now_ns();
    loop->quit();
  }
};

TEST(EventLoop, NapIsSkippedWhenSomethingIsReady) {
  auto loop = make_loop();
  SocketPair sv;
  Stamp s(loop.get());
  ASSERT_EQ(write(sv.fd[1], "x", 1), 1);
  ASSERT_EQ(loop->add(sv.fd[0], EPOLLIN | EPOLLET, &s), 0);
  loop->set_idle_nap_ns(2 * kNsPerSec);
  const uint64_t start_ns = mono_now_ns();
  loop->run();
  EXPECT_EQ(loop->naps(), 0u);
  EXPECT_LT(s.at_ns - start_ns, kNsPerSec);  // not after a 2 s nap
}

TEST(EventLoop, NapNeverOutlastsTheNextTimer) {
  auto loop = make_loop();
  loop->set_idle_nap_ns(5 * kNsPerSec);
  Timer t{quit_loop, loop.get()};
  const uint64_t start_ns = loop->refresh_now_ns();
  loop->arm(t, start_ns + 5 * kNsPerMs);
  loop->run();
  EXPECT_EQ(loop->naps(), 1u);
  const uint64_t took_ns = mono_now_ns() - start_ns;
  EXPECT_GE(took_ns, 5 * kNsPerMs);
  EXPECT_LT(took_ns, 2 * kNsPerSec);  // the timer's 5 ms, not the 5 s nap
}

TEST(EventLoop, DataArrivingDuringANapIsReadWhenItEnds) {
  auto loop = make_loop();
  SocketPair sv;
  Stamp s(loop.get());
  ASSERT_EQ(loop->add(sv.fd[0], EPOLLIN | EPOLLET, &s), 0);
  constexpr uint64_t kNapNs = 300 * kNsPerMs;
  loop->set_idle_nap_ns(kNapNs);
  const uint64_t start_ns = mono_now_ns();
  // The byte lands while the loop naps: it wakes nobody, and is dispatched once the nap is over.
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_EQ(write(sv.fd[1], "x", 1), 1);
  });
  loop->run();
  writer.join();
  // (Were this thread stalled past the writer's 50 ms before its first poll, the byte would be
  // ready at once and no nap taken; then there is nothing to check.)
  ASSERT_LE(loop->naps(), 1u);
  if (loop->naps() == 1) {
    EXPECT_GE(s.at_ns - start_ns, kNapNs);
  }
}

INSTANTIATE_TEST_SUITE_P(Io, EventLoopBackends,
                         ::testing::Values(IoBackend::kEpoll, IoBackend::kUring),
                         [](const ::testing::TestParamInfo<IoBackend>& param) {
                           return std::string(io_backend_name(param.param));
                         });

}  // namespace
}  // namespace hail
