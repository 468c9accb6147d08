// TlsTransport's read loop end without a would-block read: once its owner reports readable
// edges (readable_edge), a socket read that returned less than asked means nothing more can
// arrive unseen, so the next read() that needs the socket says would-block without calling it.
// Non-blocking AF_UNIX socket pairs pumped by this one thread, as in test_tls.cc.
#include <gtest/gtest.h>

#include <string>

#include "net/tls.h"
#include "tls_test_util.h"

namespace hail {
namespace {

using tls_test::connect;
using tls_test::make_client;
using tls_test::make_server;
using tls_test::SocketPair;
using tls_test::succeeded;

struct Connected {
  Connected() : server(make_server()), client(make_client()) {
    if (!server || !client) return;
    c = client->new_transport();
    s = server->new_transport();
    ok = succeeded(connect(*c, *s, sockets));
  }
  // One record from the server; true when all of it went into the socket.
  bool send(const std::string& data) {
    const IoResult w = s->write(data.data(), data.size());
    return w.status == IoStatus::kOk && w.bytes == data.size();
  }
  IoResult read() { return c->read(buf, sizeof buf); }
  std::string text(const IoResult& r) const { return std::string(buf, r.bytes); }

  std::unique_ptr<TlsServerContext> server;
  std::unique_ptr<TlsClientContext> client;
  std::unique_ptr<Transport> c;
  std::unique_ptr<Transport> s;
  SocketPair sockets;
  bool ok = false;
  char buf[4096];
};

TEST(TlsReadEdges, AfterAShortReadTheSocketIsReadAgainOnlyAfterAnEdge) {
  Connected t;
  ASSERT_TRUE(t.ok);
  t.c->readable_edge(false);
  ASSERT_TRUE(t.send("first"));
  t.c->readable_edge(false);
  IoResult r = t.read();
  ASSERT_EQ(r.status, IoStatus::kOk);
  EXPECT_EQ(t.text(r), "first");  // the socket read returned less than asked: drained
  ASSERT_TRUE(t.send("second"));
  // The record is in the socket, but no edge was reported since the drain: not read.
  EXPECT_EQ(t.read().status, IoStatus::kWouldBlock);
  EXPECT_FALSE(t.c->want_write());
  t.c->readable_edge(false);
  r = t.read();
  ASSERT_EQ(r.status, IoStatus::kOk);
  EXPECT_EQ(t.text(r), "second");
}

TEST(TlsReadEdges, WithoutEdgeReportsEveryReadAsksTheSocket) {
  Connected t;  // an owner that never reports edges (the built-in server's reactor)
  ASSERT_TRUE(t.ok);
  ASSERT_TRUE(t.send("first"));
  IoResult r = t.read();
  ASSERT_EQ(r.status, IoStatus::kOk);
  EXPECT_EQ(t.text(r), "first");
  ASSERT_TRUE(t.send("second"));
  r = t.read();
  ASSERT_EQ(r.status, IoStatus::kOk);
  EXPECT_EQ(t.text(r), "second");
  EXPECT_EQ(t.read().status, IoStatus::kWouldBlock);
}

TEST(TlsReadEdges, RecordsAlreadyReceivedAreReadAfterTheDrain) {
  Connected t;
  ASSERT_TRUE(t.ok);
  ASSERT_TRUE(t.send("one"));
  ASSERT_TRUE(t.send("two"));
  ASSERT_TRUE(t.send("three"));
  t.c->readable_edge(false);
  // Read-ahead takes all three records in one short socket read; read() returns one at a time.
  std::string got;
  IoResult r;
  while ((r = t.read()).status == IoStatus::kOk) got += t.text(r) + ".";
  EXPECT_EQ(r.status, IoStatus::kWouldBlock);
  EXPECT_EQ(got, "one.two.three.");
}

TEST(TlsReadEdges, AReportedCloseIsReadToTheEnd) {
  Connected t;
  ASSERT_TRUE(t.ok);
  ASSERT_TRUE(t.send("last"));
  t.s->detach();  // no close_notify
  t.sockets.close_end(1);
  t.c->readable_edge(true);  // the edge said the peer closed: the EOF is there to be read
  IoResult r = t.read();
  ASSERT_EQ(r.status, IoStatus::kOk);
  EXPECT_EQ(t.text(r), "last");
  EXPECT_EQ(t.read().status, IoStatus::kEof);
}

}  // namespace
}  // namespace hail
