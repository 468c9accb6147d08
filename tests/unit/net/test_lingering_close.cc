// LingeringClose against real loopback sockets: the peer reads the last bytes written before the
// close even while it is still sending, and every adopted fd is closed (peer EOF, byte bound,
// deadline, or too many lingering at once).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <thread>

#include "core/clock.h"
#include "net/event_loop.h"
#include "net/lingering_close.h"

namespace hail {
namespace {

// A connected TCP pair on 127.0.0.1 (RST behaviour is TCP's; a socketpair has none).
struct TcpPair {
  int client = -1;
  int server = -1;
  TcpPair() {
    const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    EXPECT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&a), len), 0);
    EXPECT_EQ(::listen(listener, 4), 0);
    EXPECT_EQ(::getsockname(listener, reinterpret_cast<sockaddr*>(&a), &len), 0);
    client = ::socket(AF_INET, SOCK_STREAM, 0);
    EXPECT_EQ(::connect(client, reinterpret_cast<sockaddr*>(&a), len), 0);
    server = ::accept(listener, nullptr, nullptr);
    ::close(listener);
    ::fcntl(client, F_SETFL, ::fcntl(client, F_GETFL) | O_NONBLOCK);
  }
  ~TcpPair() {
    if (server >= 0) ::close(server);
  }
};

bool fd_open(int fd) {
  return ::fcntl(fd, F_GETFD) != -1;
}

struct Quit {
  EventLoop* loop;
  Timer timer;
};
void run_for(EventLoop& loop, uint64_t ns) {
  Quit q{&loop, {}};
  q.timer.fn = [](Timer*, void* ctx) { static_cast<Quit*>(ctx)->loop->quit(); };
  q.timer.ctx = &q;
  loop.arm(q.timer, mono_now_ns() + ns);
  loop.run();
}

std::unique_ptr<EventLoop> make_loop() {
  auto loop = EventLoop::create();
  EXPECT_TRUE(loop);
  return std::unique_ptr<EventLoop>(loop.value());
}

TEST(LingeringClose, PeerStillSendingReadsTheLastBytesThenEof) {
  auto loop = make_loop();
  LingeringClose lingering(loop.get());
  TcpPair p;
  // The server sends far more than the socket buffers hold, as a server answering with a field
  // too large does, and reads only when it is done.
  std::string last_bytes;
  bool saw_eof = false;
  std::thread server([&] {
    const std::string chunk(64 * 1024, 'x');
    for (int i = 0; i < 64; ++i) {
      if (::send(p.server, chunk.data(), chunk.size(), MSG_NOSIGNAL) <= 0) return;
    }
    char buf[64];
    ssize_t n;
    while ((n = ::recv(p.server, buf, sizeof buf, 0)) > 0) last_bytes.append(buf, n);
    saw_eof = n == 0;
  });
  // The client read a little, decided the connection is broken, and says why.
  char first[100];
  while (::recv(p.client, first, sizeof first, 0) < 0) {
  }
  ASSERT_EQ(::send(p.client, "GOAWAY", 6, MSG_NOSIGNAL), 6);
  const int fd = p.client;
  lingering.adopt(fd, mono_now_ns());
  EXPECT_EQ(lingering.lingering(), 1u);
  for (int i = 0; i < 100 && lingering.lingering() > 0; ++i) run_for(*loop, 20'000'000);
  server.join();
  EXPECT_EQ(last_bytes, "GOAWAY");
  EXPECT_TRUE(saw_eof);
  EXPECT_EQ(lingering.lingering(), 0u);  // closed once the server closed
}

TEST(LingeringClose, ClosedAtTheDeadlineWhenThePeerNeverCloses) {
  auto loop = make_loop();
  LingeringClose lingering(loop.get(), 30'000'000);
  TcpPair p;
  const int fd = p.client;
  lingering.adopt(fd, mono_now_ns());
  run_for(*loop, 10'000'000);
  EXPECT_EQ(lingering.lingering(), 1u);
  char c;
  EXPECT_EQ(::recv(p.server, &c, 1, 0), 0);  // the write side was shut at once
  run_for(*loop, 60'000'000);
  EXPECT_EQ(lingering.lingering(), 0u);
}

TEST(LingeringClose, TooManyAtOnceAreClosedImmediately) {
  auto loop = make_loop();
  LingeringClose lingering(loop.get());
  std::vector<std::unique_ptr<TcpPair>> pairs;
  for (size_t i = 0; i < LingeringClose::kMaxSockets + 2; ++i) {
    pairs.push_back(std::make_unique<TcpPair>());
    lingering.adopt(pairs.back()->client, mono_now_ns());
  }
  EXPECT_EQ(lingering.lingering(), LingeringClose::kMaxSockets);
  EXPECT_FALSE(fd_open(pairs.back()->client));
  EXPECT_TRUE(fd_open(pairs.front()->client));
}

TEST(LingeringClose, DestructorClosesWhatStillLingers) {
  auto loop = make_loop();
  TcpPair p;
  {
    LingeringClose lingering(loop.get());
    lingering.adopt(p.client, mono_now_ns());
    EXPECT_TRUE(fd_open(p.client));
  }
  EXPECT_FALSE(fd_open(p.client));
}

}  // namespace
}  // namespace hail
