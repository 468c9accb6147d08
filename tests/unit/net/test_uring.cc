// The io_uring backend's streams (UringTransport over UringIo): bytes in order through the
// provided buffers and out through queued sends, ends and errors, discards, batch waits, and
// cancellation on close. Real sockets (loopback TCP, Unix pairs), no mocks.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/clock.h"
#include "net/event_loop.h"
#include "net/uring_transport.h"

namespace hail {
namespace {

class Uring : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!uring_unavailable_reason().empty()) {
      GTEST_SKIP() << "io_uring unavailable: " << uring_unavailable_reason();
    }
    auto loop = EventLoop::create(IoBackend::kUring);
    ASSERT_TRUE(loop.ok()) << loop.error().message;
    loop_.reset(loop.value());
    ASSERT_NE(loop_->uring(), nullptr);
  }
  // Runs the loop until `done` or 5 s, a turn at a time (a timer quits each turn).
  template <typename Done>
  bool run_until(Done done) {
    const uint64_t give_up_ns = mono_now_ns() + 5 * kNsPerSec;
    while (!done()) {
      if (mono_now_ns() > give_up_ns) return false;
      Timer t{[](Timer*, void* ctx) { static_cast<EventLoop*>(ctx)->quit(); }, loop_.get()};
      loop_->arm(t, loop_->refresh_now_ns() + kNsPerMs);
      loop_->run();
      loop_->cancel(t);
    }
    return true;
  }
  // One turn of the loop (what is queued is submitted), at most 1 ms.
  void turn() {
    bool once = false;
    run_until([&] { return std::exchange(once, true); });
  }
  std::unique_ptr<EventLoop> loop_;
};

// A connected loopback TCP pair: `client` non-blocking (the loop's), `server` blocking (the
// test's).
struct TcpPair {
  int client = -1;
  int server = -1;
  TcpPair() {
    const int listener = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    EXPECT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    EXPECT_EQ(listen(listener, 1), 0);
    EXPECT_EQ(getsockname(listener, reinterpret_cast<sockaddr*>(&a), &len), 0);
    client = socket(AF_INET, SOCK_STREAM, 0);
    EXPECT_EQ(connect(client, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    server = accept(listener, nullptr, nullptr);
    close(listener);
    fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK);
  }
  ~TcpPair() {
    if (client >= 0) close(client);
    if (server >= 0) close(server);
  }
};

// Reads everything the transport has whenever the loop says so.
struct Reader : IoHandler {
  Transport* transport = nullptr;
  std::string got;
  bool eof = false;
  const char* error = nullptr;
  int events = 0;
  void on_io(uint32_t) override {
    ++events;
    char buf[3000];  // smaller than a provided buffer: reads cross chunk boundaries
    for (;;) {
      IoResult r = transport->read(buf, sizeof buf);
      if (r.status == IoStatus::kOk) {
        got.append(buf, r.bytes);
        continue;
      }
      if (r.status == IoStatus::kEof) eof = true;
      if (r.status == IoStatus::kError) error = r.reason;
      return;
    }
  }
};

std::string pattern(size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>('a' + (i * 7 + i / 4096) % 26);
  return s;
}

// A loopback TCP pair whose client end is a UringTransport on the loop, its events going to
// `handler` (default: a Reader of the transport). Closed through the loop when it goes.
struct Stream {
  TcpPair p;
  Reader r;
  UringTransport t;
  EventLoop* loop;
  IoHandler* handler;
  explicit Stream(EventLoop* l, IoHandler* h = nullptr, uint32_t events = kAllEvents)
      : t(l->uring(), true), loop(l), handler(h != nullptr ? h : &r) {
    r.transport = &t;
    EXPECT_EQ(l->add(p.client, events, handler), 0);
    t.attach(p.client);
  }
  ~Stream() { close(); }
  void close() {
    if (p.client < 0) return;
    t.detach();
    loop->close_fd(p.client, handler);
    p.client = -1;
  }
  static constexpr uint32_t kAllEvents = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
};

TEST_F(Uring, BytesArriveInOrderThenEof) {
  Stream s(loop_.get());
  TcpPair& p = s.p;
  Reader& r = s.r;
  // 4 MiB: far more than the ring's 256 KiB of buffers, so receives run dry and are re-armed.
  const std::string sent = pattern(4u << 20);
  std::thread writer([&] {
    size_t off = 0;
    while (off < sent.size()) {
      const ssize_t n = write(p.server, sent.data() + off, sent.size() - off);
      ASSERT_GT(n, 0);
      off += static_cast<size_t>(n);
    }
    shutdown(p.server, SHUT_WR);
  });
  EXPECT_TRUE(run_until([&] { return r.eof || r.error != nullptr; }));
  writer.join();
  EXPECT_EQ(r.error, nullptr);
  EXPECT_EQ(r.got.size(), sent.size());
  EXPECT_TRUE(r.got == sent);
}

TEST_F(Uring, ReceiveBuffersAreProvidedAsTheTrafficNeedsThem) {
  UringIo* io = loop_->uring();
  EXPECT_EQ(io->buffers_provided(), 32u);
  // 40 streams with a small message each: every byte arrives, with at most one step more (if
  // all 40 landed in one turn).
  std::vector<std::unique_ptr<Stream>> streams;
  for (int i = 0; i < 40; ++i) streams.push_back(std::make_unique<Stream>(loop_.get()));
  const std::string message = pattern(100);
  for (auto& s : streams) ASSERT_EQ(write(s->p.server, message.data(), message.size()), 100);
  EXPECT_TRUE(run_until([&] {
    for (auto& s : streams) {
      if (s->r.got.size() < message.size()) return false;
    }
    return true;
  }));
  for (auto& s : streams) EXPECT_EQ(s->r.got, message);
  EXPECT_LE(io->buffers_provided(), 64u);
  // A stream of 4 MiB fills more than 32 buffers a turn: the ring grows, never past 128.
  Stream& big = *streams[0];
  const std::string sent = pattern(4u << 20);
  big.r.got.clear();
  std::thread writer([&] {
    size_t off = 0;
    while (off < sent.size()) {
      const ssize_t n = write(big.p.server, sent.data() + off, sent.size() - off);
      ASSERT_GT(n, 0);
      off += static_cast<size_t>(n);
    }
  });
  EXPECT_TRUE(run_until([&] { return big.r.got.size() >= sent.size(); }));
  writer.join();
  EXPECT_TRUE(big.r.got == sent);
  EXPECT_GT(io->buffers_provided(), 32u);
  EXPECT_LE(io->buffers_provided(), 128u);
}

TEST_F(Uring, WritesAreQueuedAndSentInOrder) {
  Stream s(loop_.get());
  TcpPair& p = s.p;
  Reader& r = s.r;
  UringTransport& t = s.t;
  // Writes while the first send is in flight queue behind it up to a bound, then would-block
  // until a send completes (EPOLLOUT); short sends go on from where they stopped. 3 MiB in all,
  // more than the socket and the queue hold, arrive whole and in order.
  const std::string all = pattern(3u << 20);
  std::string got;
  std::thread reader([&] {
    char buf[65536];
    while (got.size() < all.size()) {
      const ssize_t n = read(p.server, buf, sizeof buf);
      if (n <= 0) break;
      got.append(buf, static_cast<size_t>(n));
    }
  });
  size_t off = 0;
  int would_block = 0;
  ASSERT_TRUE(run_until([&] {
    while (off < all.size()) {
      IoResult w = t.write(all.data() + off, std::min<size_t>(100'000, all.size() - off));
      if (w.status == IoStatus::kWouldBlock) {
        ++would_block;
        return false;  // a turn of the loop: sends complete, EPOLLOUT comes
      }
      EXPECT_EQ(w.status, IoStatus::kOk);
      EXPECT_GT(w.bytes, 0u);
      off += w.bytes;
    }
    return true;
  }));
  EXPECT_GT(would_block, 0);
  EXPECT_TRUE(run_until([&] { return !t.sending(); }));
  reader.join();
  EXPECT_EQ(got.size(), all.size());
  EXPECT_TRUE(got == all);
  EXPECT_GT(r.events, 0);  // EPOLLOUT after refused writes
}

TEST_F(Uring, DiscardTakesTheRingsBytesFirstThenTheSockets) {
  TcpPair p;
  Reader r;
  UringTransport t(loop_->uring(), true);
  ASSERT_TRUE(t.can_discard());
  r.transport = &t;
  // No handler reads: the test drives the transport itself between turns.
  struct Quiet : IoHandler {
    int events = 0;
    void on_io(uint32_t) override { ++events; }
  } quiet;
  ASSERT_EQ(loop_->add(p.client, EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, &quiet), 0);
  t.attach(p.client);
  const std::string head = "HEAD:";
  ASSERT_EQ(write(p.server, head.data(), head.size()), static_cast<ssize_t>(head.size()));
  ASSERT_TRUE(run_until([&] { return t.buffered() == head.size(); }));
  // A large body now: the ring stands aside, the socket's bytes are dropped uncopied.
  const std::string body = pattern(200'000);
  const std::string tail = ":TAIL";
  std::thread writer([&] {
    std::string all = body + tail;
    size_t off = 0;
    while (off < all.size()) {
      const ssize_t n = write(p.server, all.data() + off, all.size() - off);
      ASSERT_GT(n, 0);
      off += static_cast<size_t>(n);
    }
  });
  char buf[8];
  IoResult h = t.read(buf, head.size());
  ASSERT_EQ(h.status, IoStatus::kOk);
  EXPECT_EQ(std::string(buf, h.bytes), head);
  size_t dropped = 0;
  ASSERT_TRUE(run_until([&] {
    IoResult d = t.discard(body.size() - dropped);
    if (d.status == IoStatus::kOk) dropped += d.bytes;
    return dropped == body.size();
  }));
  writer.join();
  std::string rest;
  ASSERT_TRUE(run_until([&] {
    IoResult x = t.read(buf, sizeof buf);
    if (x.status == IoStatus::kOk) rest.append(buf, x.bytes);
    return rest.size() >= tail.size();
  }));
  EXPECT_EQ(rest, tail);  // nothing of the body left over, nothing of the tail lost
  t.detach();
  loop_->close_fd(p.client, &quiet);
  p.client = -1;
}

TEST_F(Uring, CloseReleasesTheSocketSoThePeerSeesEof) {
  Stream s(loop_.get());
  TcpPair& p = s.p;
  turn();  // a multishot receive now holds the socket in the ring
  s.close();
  // The cancellation goes with the next turn; the ring then drops its hold and the FIN leaves.
  turn();
  timeval tv{2, 0};
  setsockopt(p.server, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  char c;
  EXPECT_EQ(read(p.server, &c, 1), 0);
}

TEST_F(Uring, PeerResetIsAReadError) {
  Stream s(loop_.get());
  TcpPair& p = s.p;
  Reader& r = s.r;
  linger lg{1, 0};  // close with RST
  setsockopt(p.server, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
  close(p.server);
  p.server = -1;
  EXPECT_TRUE(run_until([&] { return r.eof || r.error != nullptr; }));
  EXPECT_NE(r.error, nullptr);
}

TEST_F(Uring, BatchWaitEndsWhenTheExpectedCompletionsHaveCome) {
  TcpPair a, b;
  Reader ra, rb;
  UringTransport ta(loop_->uring(), true), tb(loop_->uring(), true);
  ra.transport = &ta;
  rb.transport = &tb;
  ASSERT_EQ(loop_->add(a.client, EPOLLIN | EPOLLRDHUP, &ra), 0);
  ASSERT_EQ(loop_->add(b.client, EPOLLIN | EPOLLRDHUP, &rb), 0);
  ta.attach(a.client);
  tb.attach(b.client);
  turn();
  // Two responses due, a 2 s bound: one wait takes both (one turn of the loop, the kernel waking
  // it once), and it ends as soon as both have come, not at the bound.
  struct Turns {
    int count = 0;
    Reader* a;
    Reader* b;
    EventLoop* loop;
  } turns{0, &ra, &rb, loop_.get()};
  loop_->set_batch_end_hook(
      [](void* ctx) {
        auto* t = static_cast<Turns*>(ctx);
        ++t->count;
        if (t->a->got == "1" && t->b->got == "2") t->loop->quit();
      },
      &turns);
  Timer safety{[](Timer*, void* ctx) { static_cast<EventLoop*>(ctx)->quit(); }, loop_.get()};
  loop_->arm(safety, loop_->refresh_now_ns() + 3 * kNsPerSec);
  loop_->set_idle_nap_ns(2 * kNsPerSec, 2);
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_EQ(write(a.server, "1", 1), 1);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_EQ(write(b.server, "2", 1), 1);
  });
  const uint64_t start_ns = mono_now_ns();
  loop_->run();
  const uint64_t took_ns = mono_now_ns() - start_ns;
  writer.join();
  loop_->cancel(safety);
  loop_->set_batch_end_hook(nullptr, nullptr);
  EXPECT_EQ(ra.got, "1");
  EXPECT_EQ(rb.got, "2");
  EXPECT_LT(took_ns, kNsPerSec);
  EXPECT_EQ(turns.count, 1);
  EXPECT_GE(loop_->naps(), 1u);
  loop_->set_idle_nap_ns(0, 0);
  ta.detach();
  tb.detach();
  loop_->close_fd(a.client, &ra);
  loop_->close_fd(b.client, &rb);
  a.client = b.client = -1;
}

TEST(UringChoice, ResolveAndParse) {
  EXPECT_EQ(parse_io_choice("epoll"), IoChoice::kEpoll);
  EXPECT_EQ(parse_io_choice("uring"), IoChoice::kUring);
  EXPECT_EQ(parse_io_choice("auto"), IoChoice::kAuto);
  EXPECT_FALSE(parse_io_choice("iouring").has_value());
  EXPECT_EQ(resolve_io(IoChoice::kEpoll).value(), IoBackend::kEpoll);
  // Up to kUringAutoMaxConnections on one loop auto takes io_uring where it can be had; beyond
  // them epoll. By name, io_uring it is.
  const IoBackend ring_if_here =
      uring_unavailable_reason().empty() ? IoBackend::kUring : IoBackend::kEpoll;
  EXPECT_EQ(resolve_io(IoChoice::kAuto).value(), ring_if_here);
  EXPECT_EQ(resolve_io(IoChoice::kAuto, 1).value(), ring_if_here);
  EXPECT_EQ(resolve_io(IoChoice::kAuto, kUringAutoMaxConnections).value(), ring_if_here);
  EXPECT_EQ(resolve_io(IoChoice::kAuto, kUringAutoMaxConnections + 1).value(), IoBackend::kEpoll);
  if (uring_unavailable_reason().empty()) {
    EXPECT_EQ(resolve_io(IoChoice::kUring, 10000).value(), IoBackend::kUring);
  }
  auto uring = resolve_io(IoChoice::kUring);
  EXPECT_EQ(uring.ok(), uring_unavailable_reason().empty());
  if (!uring.ok()) {
    EXPECT_NE(uring.error().message.find("--io uring"), std::string::npos);
  }
}

}  // namespace
}  // namespace hail
