#include <gtest/gtest.h>

#include "cli/serve_flags.h"

namespace hail {
namespace {

TEST(ServeFlags, Defaults) {
  auto options = parse_serve_flags({});
  ASSERT_TRUE(options.ok());
  EXPECT_EQ(options->host, "127.0.0.1");
  EXPECT_EQ(options->port, 0);
  EXPECT_EQ(options->root, "");
  EXPECT_EQ(options->threads, 1);
  EXPECT_EQ(options->header_timeout_ns, 10 * kNsPerSec);
  EXPECT_EQ(options->idle_timeout_ns, 60 * kNsPerSec);
  EXPECT_EQ(options->max_connections, 10000u);
  EXPECT_EQ(options->unix_socket, "");
  EXPECT_FALSE(options->tls());
  EXPECT_TRUE(options->h2);
  EXPECT_EQ(options->h2_max_streams, 100u);
  EXPECT_EQ(options->h2_max_requests, 0u);
}

TEST(ServeFlags, TlsH2AndUnixSocket) {
  auto options = parse_serve_flags({"--tls-cert", "c.pem", "--tls-key=k.pem", "--no-h2",
                                    "--h2-max-streams", "8", "--h2-max-requests=1000"});
  ASSERT_TRUE(options.ok()) << options.error().message;
  EXPECT_EQ(options->tls_cert_file, "c.pem");
  EXPECT_EQ(options->tls_key_file, "k.pem");
  EXPECT_FALSE(options->tls_self_signed);
  EXPECT_TRUE(options->tls());
  EXPECT_FALSE(options->h2);
  EXPECT_EQ(options->h2_max_streams, 8u);
  EXPECT_EQ(options->h2_max_requests, 1000u);

  options = parse_serve_flags({"--tls-self-signed", "--unix-socket", "/tmp/h.sock", "--threads=2"});
  ASSERT_TRUE(options.ok()) << options.error().message;
  EXPECT_TRUE(options->tls_self_signed);
  EXPECT_TRUE(options->tls());
  EXPECT_EQ(options->unix_socket, "/tmp/h.sock");
  EXPECT_EQ(options->threads, 2);
}

TEST(ServeFlags, BothSpellings) {
  auto options = parse_serve_flags({"--host", "::1", "--port=8080", "--root", "/srv", "--threads=4",
                                    "--header-timeout", "300ms", "--idle-timeout=2m",
                                    "--max-connections", "20k"});
  ASSERT_TRUE(options.ok()) << options.error().message;
  EXPECT_EQ(options->host, "::1");
  EXPECT_EQ(options->port, 8080);
  EXPECT_EQ(options->root, "/srv");
  EXPECT_EQ(options->threads, 4);
  EXPECT_EQ(options->header_timeout_ns, 300 * kNsPerMs);
  EXPECT_EQ(options->idle_timeout_ns, 120 * kNsPerSec);
  EXPECT_EQ(options->max_connections, 20000u);

  options = parse_serve_flags({"--idle-timeout", "5", "--header-timeout=0"});
  ASSERT_TRUE(options.ok());
  EXPECT_EQ(options->idle_timeout_ns, 5 * kNsPerSec);  // a bare number is seconds
  EXPECT_EQ(options->header_timeout_ns, 0u);           // 0: no limit
}

TEST(ServeFlags, Errors) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const Case cases[] = {
      {{"--x"}, "unknown option --x for hail serve"},
      {{"--bogus=1"}, "unknown option --bogus for hail serve"},
      {{"-p", "80"}, "unknown option -p for hail serve"},
      {{"--port"}, "option --port needs a value for hail serve"},
      {{"--port", "99999"}, "--port \"99999\": must be 0..65535"},
      {{"--port", "http"}, "--port \"http\": not a whole number"},
      {{"--port", "-1"}, "--port \"-1\": not a whole number"},
      {{"--port="}, "--port \"\": not a whole number"},
      {{"--threads", "0"}, "--threads \"0\": must be 1..1024"},
      {{"--threads", "2x"}, "--threads \"2x\": not a whole number"},
      {{"--max-connections", "0"}, "--max-connections \"0\": must be 1..4294967295"},
      {{"extra"}, "unexpected argument \"extra\" for hail serve"},
      {{"--root="}, "--root: empty directory name"},
      {{"--host="}, "--host: empty host name"},
      {{"--unix-socket="}, "--unix-socket: empty path"},
      {{"--unix-socket", "/tmp/s", "--port", "80"},
       "--unix-socket cannot be combined with --host or --port"},
      {{"--host", "::1", "--unix-socket", "/tmp/s"},
       "--unix-socket cannot be combined with --host or --port"},
      {{"--tls-cert", "c.pem"}, "--tls-cert needs --tls-key"},
      {{"--tls-key", "k.pem"}, "--tls-key needs --tls-cert"},
      {{"--tls-self-signed", "--tls-cert", "c.pem", "--tls-key", "k.pem"},
       "--tls-self-signed cannot be combined with --tls-cert or --tls-key"},
      {{"--tls-self-signed=yes"}, "option --tls-self-signed takes no value for hail serve"},
      {{"--h2-max-streams", "0"}, "--h2-max-streams \"0\": must be 1..2147483647"},
      {{"--h2-max-requests", "-3"}, "--h2-max-requests \"-3\": not a whole number"},
  };
  for (const Case& c : cases) {
    auto options = parse_serve_flags(c.args);
    ASSERT_FALSE(options.ok()) << c.message;
    EXPECT_EQ(options.error().message, c.message);
  }
  auto bad_duration = parse_serve_flags({"--idle-timeout", "soon"});
  ASSERT_FALSE(bad_duration.ok());
  EXPECT_TRUE(bad_duration.error().message.starts_with("--idle-timeout \"soon\": "))
      << bad_duration.error().message;
}

TEST(ServeFlags, UsageMentionsEveryFlag) {
  const std::string usage = serve_usage();
  for (const char* flag : {"--host",
                           "--port",
                           "--root",
                           "--threads",
                           "--header-timeout",
                           "--idle-timeout",
                           "--max-connections",
                           "--unix-socket",
                           "--tls-cert",
                           "--tls-key",
                           "--tls-self-signed",
                           "--no-h2",
                           "--h2-max-streams",
                           "--h2-max-requests",
                           "/bytes/N",
                           "/delay/MS",
                           "/status/CODE",
                           "/echo",
                           "/stats",
                           "tls_handshakes",
                           "h2_streams"}) {
    EXPECT_NE(usage.find(flag), std::string::npos) << flag;
  }
}

}  // namespace
}  // namespace hail
