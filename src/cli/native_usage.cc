// native_usage (cli/native_flags.h): the `hail --help` text of the native front-end, kept apart
// from the flag parsing. Pure: any thread.
#include <string>

#include "cli/native_flags.h"

namespace hail {

std::string native_usage() {
  return R"(Usage: hail [options] URL [-- SCRIPT ARGS]
       hail [options] --urls FILE [URL]
       hail wrk [wrk options] URL   wrk 4.1's command line and report (docs/compat.md)
       hail serve [options]     built-in target server (hail serve --help)
       hail demo                benchmark the built-in server for about 5 s

Load one URL over HTTP/1.x or HTTP/2, cleartext or TLS, and report throughput, latency
percentiles and every error.

Load:
  -c, --connections N   connections to keep open (default 50)
  -t, --threads N       worker threads (default: one per core, at most -c)
  -d, --duration T      measured duration (default 10s; units ns us ms s m h, bare = s)
  -n, --requests N      send exactly N requests, then stop (like ab -n); with -d, whichever
                        comes first
      --timeout T       per-request timeout (default 5s): the request counts as a timeout and
                        its connection is closed and reopened
      --warmup T        run the load for T first without recording anything
  -R, --rate N          open loop: N requests per second in total, planned from the start;
                        latency counts from each request's planned time (coordinated-omission
                        correction); with -n, exactly N requests at that rate
      --arrival A       rate mode: fixed intervals (default) or poisson
      --max-connections N  rate mode: open up to N connections when requests queue (default -c)
      --stages LIST     ramp linearly through each "DURATION:TARGET" ("10s:50,30s:200,10s:0"):
                        open connections from -c (or 0), or with -R the rate from -R; the
                        stages set the run's duration, each is a row of the report
      --ladder A:S:B    hold A, A+S, ... up to B connections (with -R: requests/s), each for
                        --step-duration T; one report row per step shows the knee
      --step-duration T how long each --ladder step lasts
      --repeat N        repeat the --stages / --ladder list N times (bursts)
      --think T         closed loop: pause T between a response and the connection's next
                        request (latency excludes it)
      --no-coalesce     never nap before waiting: by default, with many responses due, a
                        worker sleeps up to 1/32 of the latency (<= 50us) first and reads
                        them in one wake-up (cheaper for the server; see README)
Request:
  -m, --method M        request method (default GET, or POST when a body is given)
  -H, --header "N: v"   add a header (repeatable); replaces a default of the same name
                        (Host, User-Agent, Accept)
      --body STRING     request body (sets Content-Length)
      --body-file FILE  request body read from FILE
      --http1.0         send HTTP/1.0 requests (keep-alive asked with Connection: keep-alive)
      --no-keepalive    a new connection per request (like ab without -k)
Scripts and mixes:
  -s, --script FILE     a wrk Lua script (wrk's API: setup, init, request, response, delay,
                        done; hail.tag); words after -- are its arguments
      --urls FILE       weighted request lines "[weight] [METHOD] URL-or-path [@bodyfile]";
                        the URL argument may be omitted when the lines are absolute URLs
      --mix M           --urls: random by weight (default) or round-robin
Protocols:
      --h2 / --h1       force HTTP/2 (ALPN h2, or h2c prior knowledge on http://) / HTTP/1.1;
                        default: HTTP/2 when TLS's ALPN picks it
      --streams N       HTTP/2 concurrent streams per connection (like h2load -m)
      --window-bits N   HTTP/2 flow-control windows of 2^N-1 bytes (16..30, default 30)
      --pipeline N      HTTP/1.1: up to N requests in flight per connection
      --http0.9         HTTP/0.9 requests (GET only; the response lasts until the close)
      --unix-socket P   connect to the Unix domain socket P (the URL gives Host and path)
      --connect-to H:P  connect to H:P instead of the URL's host ([::1]:8080 for IPv6)
TLS (https://):
      --sni NAME        server name sent (default: the URL's host)
      --no-tls-resume   full handshake on every connection (default: resume sessions)
      --tls-min V, --tls-max V   TLS versions 1.0 .. 1.3
      --ciphers LIST    OpenSSL cipher list, or TLS 1.3 suites (TLS_...)
      --verify          check the certificate and host name (off by default, like wrk)
      --cacert FILE     trust the PEM certificates in FILE (implies --verify)
Output:
      --json FILE|-     write the JSON report to FILE ("-": to stdout instead of the text)
      --timeseries FILE per-interval samples as CSV (.csv) or JSON Lines (.jsonl)
      --interval T      time-series interval (default 1s, at least 10ms); the series is also
                        in --json
  -q, --quiet           no progress line
  -h, --help            this help
  -V, --version         print the version

Exit status: 0 run completed (even with errors), 1 could not run, 2 usage error.
)";
}

}  // namespace hail
