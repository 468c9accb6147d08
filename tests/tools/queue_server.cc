// queue_server: a test-only HTTP/1.1 server whose capacity is known by construction. Each request
// joins one FIFO queue in front of K simulated servers (queue_model.h) and its response is sent at
// its computed completion time, from a timerfd: no CPU is burnt to simulate work; arrival times
// are the kernel's receive timestamps, so a stalled server still models the queue right. Owner:
// tests (integration tests of capacity search and SLOs). One thread: an epoll loop. README.md.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tools/http_head.h"
#include "tools/queue_model.h"

namespace queue_server {
namespace {

constexpr size_t kReadChunk = 64 * 1024;
constexpr uint64_t kListenId = 1, kTimerId = 2, kSignalId = 3, kFirstConnId = 16;
constexpr std::string_view kBody = "ok\n";

struct Options {
  std::string host = "127.0.0.1";
  uint16_t port = 0;
  uint64_t service_us = 1000;
  ServiceKind kind = ServiceKind::kFixed;
  uint64_t seed = 1;
  unsigned servers = 1;
};

uint64_t to_ns(const timespec& ts) {
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

uint64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return to_ns(ts);
}

[[noreturn]] void die(const char* what) {
  std::fprintf(stderr, "queue_server: %s: %s\n", what, std::strerror(errno));
  std::exit(1);
}

std::string response(int status, std::string_view reason, std::string_view body, bool head_only,
                     bool close, std::string_view type = "text/plain") {
  std::string out = "HTTP/1.1 " + std::to_string(status) + " " + std::string(reason) + "\r\n";
  out += "Content-Type: " + std::string(type) + "\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n";
  if (close) out += "Connection: close\r\n";
  out += "\r\n";
  if (!head_only) out += body;
  return out;
}

// One response position on a connection: filled (ready) when its job completes, or at once for
// /__stats and errors. Responses leave strictly in request order, whatever order they are ready.
struct Slot {
  bool job = false;  // a queued request (not /__stats, not an error)
  bool ready = false;
  bool close_after = false;
  bool waited = false;
  uint64_t arrival_ns = 0, service_ns = 0, completion_ns = 0;  // of its job, once admitted
  std::string bytes;
};

// A request read but not yet admitted: the requests of one epoll batch join the queue together,
// in the order the kernel received them.
struct Arrival {
  uint64_t arrival_ns;
  uint64_t conn_id;
  uint64_t seq;
};

struct Connection {
  int fd = -1;
  uint64_t id = 0;
  std::string in;               // received, not yet parsed
  std::deque<Slot> slots;       // slots[0] has sequence number first_seq
  uint64_t first_seq = 0;
  std::string out;              // ready responses not yet accepted by the kernel
  size_t out_off = 0;
  bool read_closed = false;     // EOF, or a request that ends the connection: read no more
  bool close_when_done = false; // a response with Connection: close went into `out`
  uint32_t events = 0;          // currently registered with epoll
  bool registered = false;
};

class QueueServer {
 public:
  explicit QueueServer(const Options& options)
      : options_(options),
        sampler_(options.kind, options.service_us * 1000, options.seed),
        station_(options.servers) {}

  int run();

 private:
  void listen_on();
  void accept_all();
  void on_readable(Connection& conn);
  void parse(Connection& conn, uint64_t arrival_ns);
  void push_ready(Connection& conn, std::string bytes, bool close_after);
  void admit_arrivals();
  void complete_due(uint64_t now);
  void flush(Connection& conn);
  void update_events(Connection& conn);
  void close_conn(Connection& conn);
  void arm_timer();
  std::string stats_json() const;
  void reset_stats();

  Options options_;
  ServiceSampler sampler_;
  FifoStation station_;
  int epoll_fd_ = -1, listen_fd_ = -1, timer_fd_ = -1, signal_fd_ = -1, spare_fd_ = -1;
  uint64_t armed_ns_ = 0;
  uint64_t next_conn_id_ = kFirstConnId;
  std::unordered_map<uint64_t, std::unique_ptr<Connection>> conns_;
  std::vector<Arrival> arrivals_;

  // Counters since the start or the last /__stats?reset=1.
  uint64_t requests_ = 0, responses_ = 0, dropped_ = 0, waited_ = 0, connections_ = 0;
  uint64_t max_queue_ = 0;
  LogHistogram sojourn_ns_, service_ns_, late_ns_;
};

void QueueServer::listen_on() {
  sockaddr_storage addr{};
  socklen_t len = 0;
  auto* v4 = reinterpret_cast<sockaddr_in*>(&addr);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&addr);
  if (inet_pton(AF_INET, options_.host.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(options_.port);
    len = sizeof(*v4);
  } else if (inet_pton(AF_INET6, options_.host.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(options_.port);
    len = sizeof(*v6);
  } else {
    std::fprintf(stderr, "queue_server: --host needs a numeric IPv4 or IPv6 address\n");
    std::exit(2);
  }
  listen_fd_ = socket(addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) die("socket");
  const int one = 1;
  setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  // Also here, not only on accepted sockets: the kernel stamps packets only while some socket
  // asks for it, and a request can arrive before its connection is accepted.
  setsockopt(listen_fd_, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one));
  if (bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), len) != 0) die("bind");
  if (listen(listen_fd_, 4096) != 0) die("listen");
  len = sizeof(addr);
  if (getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) die("getsockname");
  const uint16_t port = ntohs(addr.ss_family == AF_INET ? v4->sin_port : v6->sin6_port);
  std::printf("port %u\n", port);
  std::fflush(stdout);
}

int QueueServer::run() {
  // The default timer slack (50 us) would make every response up to 50 us late; 1 ns keeps the
  // send times within the scheduler's own jitter.
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  ::signal(SIGPIPE, SIG_IGN);
  rlimit files{};  // as many connections as the hard limit allows (the soft one is often 1024)
  if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
    files.rlim_cur = files.rlim_max;
    setrlimit(RLIMIT_NOFILE, &files);
  }
  spare_fd_ = open("/dev/null", O_RDONLY | O_CLOEXEC);
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGTERM);
  sigaddset(&mask, SIGINT);
  if (sigprocmask(SIG_BLOCK, &mask, nullptr) != 0) die("sigprocmask");
  signal_fd_ = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
  timer_fd_ = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  if (signal_fd_ < 0 || timer_fd_ < 0 || epoll_fd_ < 0) die("signalfd/timerfd/epoll");
  listen_on();
  for (auto [fd, id] : {std::pair{listen_fd_, kListenId}, std::pair{timer_fd_, kTimerId},
                        std::pair{signal_fd_, kSignalId}}) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = id;
    if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0) die("epoll_ctl");
  }

  epoll_event events[256];
  for (;;) {
    const int n = epoll_wait(epoll_fd_, events, 256, -1);
    if (n < 0) {
      if (errno == EINTR) continue;
      die("epoll_wait");
    }
    for (int i = 0; i < n; ++i) {
      const uint64_t id = events[i].data.u64;
      if (id == kListenId) {
        accept_all();
      } else if (id == kTimerId) {
        uint64_t expirations = 0;
        [[maybe_unused]] ssize_t r = read(timer_fd_, &expirations, sizeof(expirations));
        armed_ns_ = 0;
      } else if (id == kSignalId) {
        std::printf("%s\n", stats_json().c_str());
        std::fflush(stdout);
        return 0;
      } else {
        auto it = conns_.find(id);
        if (it == conns_.end()) continue;  // closed earlier in this batch
        Connection& conn = *it->second;
        if (events[i].events & (EPOLLERR | EPOLLHUP)) {
          close_conn(conn);
          continue;
        }
        if (events[i].events & EPOLLIN) on_readable(conn);
        it = conns_.find(id);
        if (it != conns_.end() && (events[i].events & EPOLLOUT)) flush(*it->second);
      }
    }
    admit_arrivals();
    complete_due(now_ns());
    arm_timer();
  }
}

void QueueServer::accept_all() {
  for (;;) {
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return;
      if (errno == ECONNABORTED) continue;
      if ((errno == EMFILE || errno == ENFILE) && spare_fd_ >= 0) {
        // Out of descriptors: refuse this connection with the spare one rather than leave it
        // pending, which would wake this level-triggered loop forever.
        ::close(spare_fd_);
        const int refused = accept(listen_fd_, nullptr, nullptr);
        if (refused >= 0) ::close(refused);
        spare_fd_ = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (refused < 0) return;  // accept4 says EMFILE even with an empty backlog
        continue;
      }
      std::fprintf(stderr, "queue_server: accept: %s\n", std::strerror(errno));
      return;
    }
    // Small responses must not wait for Nagle (pipelined responses would meet delayed ACKs).
    const int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    // Receive timestamps: when the request reached the host, not when this loop got to it.
    setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one));
    auto conn = std::make_unique<Connection>();
    conn->fd = fd;
    conn->id = next_conn_id_++;
    ++connections_;
    Connection& ref = *conn;
    conns_.emplace(ref.id, std::move(conn));
    update_events(ref);
  }
}

void QueueServer::on_readable(Connection& conn) {
  char buf[kReadChunk];
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(timespec))];
  iovec iov{buf, sizeof(buf)};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof(control);
  const ssize_t r = recvmsg(conn.fd, &msg, 0);
  if (r < 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return;
    close_conn(conn);
    return;
  }
  if (r == 0) {
    // The client finished sending; it may still read what it asked for (half-close): flush
    // closes the connection once nothing is left to answer.
    conn.read_closed = true;
    conn.in.clear();
  } else {
    conn.in.append(buf, static_cast<size_t>(r));
    // The requests completed by this read arrived with its last segment: the kernel stamped it
    // (CLOCK_REALTIME) on receipt, however late this thread runs. Without a stamp: now.
    uint64_t arrival_ns = now_ns();
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
      if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPNS) continue;
      timespec stamp{}, real{};
      std::memcpy(&stamp, CMSG_DATA(c), sizeof(stamp));
      clock_gettime(CLOCK_REALTIME, &real);
      const uint64_t age_ns = to_ns(real) - to_ns(stamp);
      if (to_ns(stamp) <= to_ns(real) && age_ns < arrival_ns) arrival_ns -= age_ns;
    }
    parse(conn, arrival_ns);
  }
  flush(conn);  // last use of conn: it may close it
}

// Takes every complete request off conn.in, in order: a slot and an arrival for ordinary
// requests, an immediate slot for /__stats and for errors (which end the connection). Never
// closes conn.
void QueueServer::parse(Connection& conn, uint64_t arrival_ns) {
  size_t pos = 0;
  while (!conn.read_closed) {
    const RequestHead head = parse_head(std::string_view(conn.in).substr(pos));
    if (head.status == RequestHead::Status::kIncomplete) break;
    if (head.status == RequestHead::Status::kError) {
      static constexpr std::string_view kReasons[] = {"Bad Request", "Request Header Fields Too "
                                                      "Large", "Not Implemented"};
      const int code = head.error_code;
      push_ready(conn, response(code, kReasons[code == 400 ? 0 : code == 431 ? 1 : 2], "", false,
                                true), true);
      break;
    }
    pos += head.total_bytes;
    const bool head_only = head.method == "HEAD";
    if (head.target == "/__stats" || head.target.substr(0, 9) == "/__stats?") {
      // Answered at once, outside the queue, and counted nowhere; it sees the requests before
      // it, which join the queue now.
      admit_arrivals();
      const std::string body = stats_json() + "\n";
      if (head.target.find("reset=1") != std::string_view::npos) reset_stats();
      push_ready(conn, response(200, "OK", body, head_only, !head.keep_alive, "application/json"),
                 !head.keep_alive);
    } else {
      arrivals_.push_back(Arrival{arrival_ns, conn.id, conn.first_seq + conn.slots.size()});
      Slot slot;
      slot.job = true;
      slot.close_after = !head.keep_alive;
      slot.bytes = response(200, "OK", kBody, head_only, !head.keep_alive);
      conn.slots.push_back(std::move(slot));
    }
    if (!head.keep_alive) conn.read_closed = true;
  }
  conn.in.erase(0, pos);
  if (conn.read_closed) conn.in.clear();
}

void QueueServer::push_ready(Connection& conn, std::string bytes, bool close_after) {
  Slot slot;
  slot.ready = true;
  slot.close_after = close_after;
  slot.bytes = std::move(bytes);
  conn.slots.push_back(std::move(slot));
  if (close_after) conn.read_closed = true;
}

// The batch's requests join the queue in the order they arrived (epoll reports connections in no
// particular order); a request whose connection has closed since still takes its service.
void QueueServer::admit_arrivals() {
  std::stable_sort(arrivals_.begin(), arrivals_.end(),
                   [](const Arrival& a, const Arrival& b) { return a.arrival_ns < b.arrival_ns; });
  for (const Arrival& arrival : arrivals_) {
    const Job job =
        station_.admit(arrival.conn_id, arrival.seq, arrival.arrival_ns, sampler_.next_ns());
    ++requests_;
    if (job.in_system > max_queue_) max_queue_ = job.in_system;
    auto it = conns_.find(arrival.conn_id);
    if (it == conns_.end()) continue;
    Connection& conn = *it->second;
    Slot& slot = conn.slots[arrival.seq - conn.first_seq];
    slot.waited = job.waited;
    slot.arrival_ns = job.arrival_ns;
    slot.service_ns = job.service_ns;
    slot.completion_ns = job.completion_ns;
  }
  arrivals_.clear();
}

// Fills the slots of every job complete by `now` (in completion order), then sends what is ready.
void QueueServer::complete_due(uint64_t now) {
  while (!station_.empty() && station_.front().completion_ns <= now) {
    const Job job = station_.pop();
    auto it = conns_.find(job.conn_id);
    if (it == conns_.end()) {
      ++dropped_;  // its client is gone; the job still held its server for its service time
      continue;
    }
    Connection& conn = *it->second;
    conn.slots[job.seq - conn.first_seq].ready = true;
    flush(conn);
  }
}

// Moves the ready prefix of the slots to `out` and writes as much as the kernel takes; closes the
// connection (conn is then gone) when it is finished or broken.
void QueueServer::flush(Connection& conn) {
  if (!conn.close_when_done) {
    const uint64_t now = now_ns();
    while (!conn.slots.empty() && conn.slots.front().ready) {
      Slot& slot = conn.slots.front();
      if (slot.job) {
        // The statistics describe exactly the responses sent.
        ++responses_;
        sojourn_ns_.record(slot.completion_ns - slot.arrival_ns);
        service_ns_.record(slot.service_ns);
        if (slot.waited) ++waited_;
        late_ns_.record(now > slot.completion_ns ? now - slot.completion_ns : 0);
      }
      conn.out += slot.bytes;
      const bool close_after = slot.close_after;
      conn.slots.pop_front();
      ++conn.first_seq;
      if (close_after) {
        conn.close_when_done = true;
        break;
      }
    }
  }
  while (conn.out_off < conn.out.size()) {
    const ssize_t w = send(conn.fd, conn.out.data() + conn.out_off, conn.out.size() - conn.out_off,
                           MSG_NOSIGNAL);
    if (w < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) break;
      if (errno == EINTR) continue;
      close_conn(conn);
      return;
    }
    conn.out_off += static_cast<size_t>(w);
  }
  if (conn.out_off == conn.out.size()) {
    conn.out.clear();
    conn.out_off = 0;
    if (conn.close_when_done || (conn.read_closed && conn.slots.empty())) {
      close_conn(conn);
      return;
    }
  }
  update_events(conn);
}

void QueueServer::update_events(Connection& conn) {
  uint32_t want = 0;
  if (!conn.read_closed) want |= EPOLLIN;
  if (conn.out_off < conn.out.size()) want |= EPOLLOUT;
  epoll_event ev{};
  ev.events = want;
  ev.data.u64 = conn.id;
  if (!conn.registered) {
    if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, conn.fd, &ev) != 0) die("epoll_ctl add");
    conn.registered = true;
  } else if (conn.events != want) {
    if (epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, conn.fd, &ev) != 0) die("epoll_ctl mod");
  }
  conn.events = want;
}

void QueueServer::close_conn(Connection& conn) {
  // Complete responses held behind an earlier one (K > 1) will never go out; the jobs still in
  // the queue are counted when they come due.
  for (const Slot& slot : conn.slots) {
    if (slot.ready && slot.job) ++dropped_;
  }
  ::close(conn.fd);  // also removes it from the epoll set
  conns_.erase(conn.id);
}

// The timerfd fires at the earliest completion still to come (absolute CLOCK_MONOTONIC time).
void QueueServer::arm_timer() {
  if (station_.empty()) return;  // a stale expiry is harmless: complete_due finds nothing
  const uint64_t due_ns = station_.front().completion_ns;
  if (due_ns == armed_ns_) return;
  itimerspec spec{};
  spec.it_value.tv_sec = static_cast<time_t>(due_ns / 1'000'000'000ULL);
  spec.it_value.tv_nsec = static_cast<long>(due_ns % 1'000'000'000ULL);
  if (timerfd_settime(timer_fd_, TFD_TIMER_ABSTIME, &spec, nullptr) != 0) die("timerfd_settime");
  armed_ns_ = due_ns;
}

std::string QueueServer::stats_json() const {
  auto us = [](uint64_t ns) { return static_cast<double>(ns) / 1000.0; };
  const uint64_t answered = sojourn_ns_.count();  // == responses_
  char buf[1024];
  std::snprintf(
      buf, sizeof(buf),
      "{\"requests\":%" PRIu64 ",\"responses\":%" PRIu64 ",\"dropped\":%" PRIu64
      ",\"in_flight\":%zu,\"connections\":%" PRIu64 ",\"servers\":%u,\"service_us\":%" PRIu64
      ",\"dist\":\"%s\",\"seed\":%" PRIu64 ",\"sojourn_mean_us\":%.1f,\"sojourn_p50_us\":%.1f,"
      "\"sojourn_p90_us\":%.1f,\"sojourn_p99_us\":%.1f,\"sojourn_max_us\":%.1f,"
      "\"service_mean_us\":%.1f,\"wait_fraction\":%.4f,\"max_queue\":%" PRIu64
      ",\"late_p50_us\":%.1f,\"late_p99_us\":%.1f,\"late_max_us\":%.1f}",
      requests_, responses_, dropped_, station_.size(), connections_, station_.servers(),
      options_.service_us, options_.kind == ServiceKind::kFixed ? "fixed" : "exp", options_.seed,
      sojourn_ns_.mean() / 1000.0, us(sojourn_ns_.percentile(0.5)),
      us(sojourn_ns_.percentile(0.9)), us(sojourn_ns_.percentile(0.99)), us(sojourn_ns_.max()),
      service_ns_.mean() / 1000.0,
      answered == 0 ? 0.0 : static_cast<double>(waited_) / static_cast<double>(answered),
      max_queue_, us(late_ns_.percentile(0.5)), us(late_ns_.percentile(0.99)),
      us(late_ns_.max()));
  return buf;
}

void QueueServer::reset_stats() {
  requests_ = responses_ = dropped_ = waited_ = connections_ = max_queue_ = 0;
  sojourn_ns_ = LogHistogram();
  service_ns_ = LogHistogram();
  late_ns_ = LogHistogram();
}

const char kUsage[] =
    "usage: queue_server [--host 127.0.0.1] [--port 0] [--service-us N] [--dist fixed|exp]\n"
    "                    [--seed S] [--servers K]\n"
    "A FIFO queue in front of K simulated servers (default 1), each request served for N us\n"
    "(default 1000; fixed, or exponential with mean N). Prints 'port P' first; GET /__stats\n"
    "(?reset=1 to clear) and SIGTERM/SIGINT report JSON statistics.\n";

uint64_t parse_number(const char* name, const char* text, uint64_t max, uint64_t min = 0) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || text[0] == '-' || v > max || v < min) {
    std::fprintf(stderr, "queue_server: %s needs a number from %" PRIu64 " to %" PRIu64
                 ", not '%s'\n%s", name, min, max, text, kUsage);
    std::exit(2);
  }
  return v;
}

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "queue_server: unknown option or missing value: %s\n%s", argv[i],
                   kUsage);
      std::exit(2);
    }
    const char* value = argv[++i];
    if (arg == "--host") {
      o.host = value;
    } else if (arg == "--port") {
      o.port = static_cast<uint16_t>(parse_number("--port", value, 65535));
    } else if (arg == "--service-us") {
      o.service_us = parse_number("--service-us", value, 3'600'000'000ULL);
    } else if (arg == "--seed") {
      o.seed = parse_number("--seed", value, UINT64_MAX);
    } else if (arg == "--servers") {
      o.servers = static_cast<unsigned>(parse_number("--servers", value, 100000, 1));
    } else if (arg == "--dist") {
      if (std::string_view(value) == "fixed") {
        o.kind = ServiceKind::kFixed;
      } else if (std::string_view(value) == "exp") {
        o.kind = ServiceKind::kExponential;
      } else {
        std::fprintf(stderr, "queue_server: --dist is fixed or exp, not '%s'\n", value);
        std::exit(2);
      }
    } else {
      std::fprintf(stderr, "queue_server: unknown option %s\n%s", argv[i - 1], kUsage);
      std::exit(2);
    }
  }
  return o;
}

}  // namespace
}  // namespace queue_server

int main(int argc, char** argv) {
  queue_server::QueueServer server(queue_server::parse_options(argc, argv));
  return server.run();
}
