#include "cli/serve_command.h"

#include <signal.h>

#include <cstdio>

#include "cli/native_flags.h"
#include "cli/run_command.h"
#include "cli/serve_flags.h"
#include "load/runner.h"
#include "server/server.h"

namespace hail {

int run_serve_command(const std::vector<std::string>& args) {
  for (const auto& a : args) {
    if (a == "-h" || a == "--help") {
      std::fputs(serve_usage().c_str(), stdout);
      return kExitOk;
    }
  }
  auto options = parse_serve_flags(args);
  if (!options) {
    std::fprintf(stderr, "hail serve: %s\n", options.error().message.c_str());
    return kExitUsage;
  }
  // Each connection is a descriptor: raise the soft limit so that --max-connections can be reached.
  if (Status s = ensure_fd_limit(uint64_t{options->max_connections} + 64); !s) {
    std::fprintf(stderr, "hail serve: warning: %s\n", s.error().message.c_str());
  }
  block_stop_signals();  // before the reactors start, so that only sigwait below sees them
  auto server = Server::start(options.value());
  if (!server) {
    std::fprintf(stderr, "hail serve: %s\n", server.error().message.c_str());
    return kExitCouldNotRun;
  }
  // The first line of stdout, read by scripts and tests: "listening on http://127.0.0.1:8080",
  // "listening on https://[::1]:8443", "listening on http://localhost (unix socket /tmp/h.sock)"
  // (the URL a client uses with curl --unix-socket, then the path).
  const char* scheme = (*server)->tls() ? "https" : "http";
  if (!(*server)->unix_socket().empty()) {
    std::printf("listening on %s://localhost (unix socket %s)\n", scheme,
                (*server)->unix_socket().c_str());
  } else {
    const std::string& host = options->host;
    const bool v6 = host.find(':') != std::string::npos;
    std::printf("listening on %s://%s%s%s:%u\n", scheme, v6 ? "[" : "", host.c_str(), v6 ? "]" : "",
                static_cast<unsigned>((*server)->port()));
  }
  std::fflush(stdout);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  int sig = 0;
  sigwait(&set, &sig);
  (*server)->stop();
  ServerStats stats = (*server)->stats();
  std::fprintf(stderr, "hail serve: stopped after %llu requests on %llu connections\n",
               static_cast<unsigned long long>(stats.requests),
               static_cast<unsigned long long>(stats.connections));
  return kExitOk;
}

int run_demo_command(const std::vector<std::string>& args) {
  if (!args.empty()) {
    if (args[0] == "-h" || args[0] == "--help") {
      std::puts(
          "Usage: hail demo\n\nStarts the built-in server on an ephemeral loopback port and "
          "runs a 5-second benchmark\nof /bytes/1024 against it (1 server thread, 1 hail "
          "thread, 50 connections).");
      return kExitOk;
    }
    std::fprintf(stderr, "hail demo: unexpected argument \"%s\"\n", args[0].c_str());
    return kExitUsage;
  }
  block_stop_signals();
  ServerOptions server_options;
  server_options.host = "127.0.0.1";
  server_options.port = 0;
  server_options.threads = 1;
  auto server = Server::start(server_options);
  if (!server) {
    std::fprintf(stderr, "hail demo: %s\n", server.error().message.c_str());
    return kExitCouldNotRun;
  }
  std::string url = "http://127.0.0.1:" + std::to_string((*server)->port()) + "/bytes/1024";
  std::printf("hail demo: built-in server on 127.0.0.1:%u (1 thread); loading %s for 5s\n\n",
              static_cast<unsigned>((*server)->port()), url.c_str());
  std::fflush(stdout);
  auto cmd = parse_native_flags({"-c", "50", "-t", "1", "-d", "5s", url});
  if (!cmd) {
    std::fprintf(stderr, "hail demo: %s\n", cmd.error().message.c_str());
    return kExitCouldNotRun;
  }
  OutputOptions output;
  output.progress = true;
  int status = run_and_report(cmd->run, output);
  ServerStats stats = (*server)->stats();
  (*server)->stop();
  std::printf("\nServer side: %llu requests answered on %llu connections\n",
              static_cast<unsigned long long>(stats.requests),
              static_cast<unsigned long long>(stats.connections));
  return status;
}

}  // namespace hail
