"""The queueing test server (tests/tools/queue_server.cc) against queueing theory: its capacity is
1 / service time by construction, closed loops see Little's law, and an M/M/1 fed by hail's
Poisson arrivals shows the textbook sojourn times. Each run lasts a few seconds, on loopback.

The bounds are generous (a shared, noisy 2-core VM) where noise can only add delay, and tight
where the construction forbids a value (no response before its service time, never more than one
response per service time, never more requests in the system than connections): a server that
ignored its service time fails every test here."""

import json
import math
import os
import signal
import socket
import subprocess
import time
import unittest

from queue_support import QueueServer, queue_server_bin
from support import LOOPBACK, check_accounting, describe, run_hail


def server_accounting(test, stats, msg=""):
    """Every request the server admitted is answered, dropped (its client left) or in flight."""
    test.assertEqual(stats["requests"], stats["responses"] + stats["dropped"] + stats["in_flight"],
                     "%s %s" % (msg, stats))


class Timing:
    """The timing bounds of one attempt: bounds that a stalled client or server (another build
    taking both cores for 100 ms) can miss although the server is right. Hard bounds, which no
    stall can break, are plain assertions instead and fail the test at once."""

    def __init__(self, context):
        self.context = context
        self.missed = []
        # Set when the machine, not the code under test, made the attempt unfit to measure.
        self.unfit = None

    def check(self, ok, what):
        if not ok:
            self.missed.append(what)


def until_on_time(test, attempt, tries=3):
    """Runs attempt() (which asserts its hard bounds and returns a Timing) up to `tries` times;
    passes on the first attempt whose timing bounds all hold, fails if none does. If every attempt
    that missed was also marked unfit (the machine stalled the client, which the bounds cannot
    tell from a wrong server), the test is skipped with the evidence instead of passing."""
    report = []
    unfit = True
    for i in range(tries):
        timing = attempt()
        if not timing.missed:
            return
        unfit = unfit and timing.unfit is not None
        report.append("attempt %d missed: %s%s\n  %s"
                      % (i + 1, "; ".join(timing.missed),
                         " (unfit: %s)" % timing.unfit if timing.unfit else "", timing.context))
    if unfit:
        test.skipTest("no attempt of %d could be measured:\n%s" % (tries, "\n".join(report)))
    test.fail("timing bounds missed in all %d attempts (a slow server, or a machine too loaded "
              "to measure):\n%s" % (tries, "\n".join(report)))


class ClosedLoopTest(unittest.TestCase):
    """D/D/1: fixed service of 1 ms; hail's closed loop (each connection sends its next request
    when the previous response arrives)."""

    def test_one_connection_is_paced_by_the_service_time(self):
        until_on_time(self, self.one_connection)

    def one_connection(self):
        with QueueServer(service_us=1000) as srv:
            r = run_hail(["-c", "1", "-t", "1", "-d", "2s", "-q", "--json", "-", srv.url + "/"],
                         timeout=30)
            stats = srv.stats()
        self.assertEqual(r.code, 0, r.stderr)
        check_accounting(r.json)
        completed = r.json["requests"]["completed"]
        rate = r.json["throughput"]["requests_per_s"]
        lat = r.json["latency_us"]
        msg = "%s\nserver: %s" % (describe(r), stats)
        # One request at a time, each answered no sooner than 1 ms after it arrived: at most one
        # per millisecond (a server ignoring its service time does tens of thousands a second).
        self.assertLessEqual(rate, 1000 * 1.01, msg)
        self.assertGreaterEqual(lat["min"], 1000, msg)  # the exact minimum
        # The server's own view: never a queue, every sojourn exactly the service time.
        self.assertEqual(stats["max_queue"], 1, msg)
        self.assertEqual(stats["wait_fraction"], 0, msg)
        self.assertAlmostEqual(stats["sojourn_p50_us"], 1000, delta=10, msg=msg)
        self.assertAlmostEqual(stats["sojourn_max_us"], 1000, delta=0.5, msg=msg)
        self.assertGreaterEqual(stats["requests"], completed, msg)
        self.assertLessEqual(stats["requests"], r.json["requests"]["attempted"], msg)
        server_accounting(self, srv.final, "at exit")
        self.assertEqual(srv.final["requests"], stats["requests"], srv.final)
        timing = Timing(msg)
        # ~900/s on an idle machine: 1 ms of service plus the loopback turnaround.
        timing.check(rate >= 600, "rate %.0f/s < 600/s" % rate)
        timing.check(lat["p50"] < 2000, "latency p50 %.0f us >= 2000 us" % lat["p50"])
        return timing

    def test_four_connections_saturate_at_one_over_the_service_time(self):
        """Four requests always in the system: the server never idles, so throughput is its
        capacity (1000/s) however many connections, and each request waits for the three ahead
        of it (latency ~4 ms)."""
        until_on_time(self, self.four_connections)

    def four_connections(self):
        with QueueServer(service_us=1000) as srv:
            r = run_hail(["-c", "4", "-t", "1", "-d", "3s", "-q", "--json", "-", srv.url + "/"],
                         timeout=30)
            stats = srv.stats()
        self.assertEqual(r.code, 0, r.stderr)
        check_accounting(r.json)
        rate = r.json["throughput"]["requests_per_s"]
        lat = r.json["latency_us"]
        msg = "%s\nserver: %s" % (describe(r), stats)
        self.assertLessEqual(rate, 1000 * 1.02, msg)  # capacity by construction
        self.assertGreaterEqual(lat["min"], 1000, msg)
        # At most four in the system (one per connection), hence a sojourn of at most 4 ms.
        self.assertLessEqual(stats["max_queue"], 4, msg)
        self.assertLessEqual(stats["sojourn_max_us"], 4000.5, msg)
        server_accounting(self, srv.final, "at exit")
        timing = Timing(msg)
        timing.check(rate >= 850, "rate %.0f/s < 850/s" % rate)  # ~990/s on an idle machine
        timing.check(3000 <= lat["p50"] < 6000, "latency p50 %.0f us not in [3, 6) ms"
                     % lat["p50"])
        timing.check(stats["max_queue"] == 4, "max_queue %d != 4" % stats["max_queue"])
        timing.check(stats["sojourn_p50_us"] >= 3000, "sojourn p50 %.0f us < 3 ms"
                     % stats["sojourn_p50_us"])
        timing.check(stats["wait_fraction"] > 0.9, "wait fraction %.3f <= 0.9"
                     % stats["wait_fraction"])
        return timing


class PoissonTest(unittest.TestCase):
    def test_mm1_at_half_load_matches_theory(self):
        """M/M/1: Poisson arrivals from hail -R 500 --arrival poisson, exponential service of
        mean 1 ms (rho = 0.5). The sojourn time is exponential with mean 1/(mu - lambda): mean
        ~2 ms, median ln 2 times that, p99 ln 100 times that; an arrival waits with probability
        rho (PASTA). lambda and mu are taken as measured, and the bounds allow about 5 standard
        deviations of a 4 s run (simulated: sd 7 % for the mean, 15 % for p99). A stalled
        client bunches its arrivals (no longer Poisson), hence the retries."""
        until_on_time(self, self.mm1, tries=5)

    def mm1(self):
        with QueueServer(service_us=1000, dist="exp", seed=7) as srv:
            r = run_hail(["-R", "500", "--arrival", "poisson", "-c", "20", "-t", "1", "-d", "4s",
                          "-q", "--json", "-", srv.url + "/"], timeout=30)
            stats = srv.stats()
        self.assertEqual(r.code, 0, r.stderr)
        check_accounting(r.json)
        msg = "%s\nserver: %s" % (describe(r), stats)
        # The seed fixes the service times: ~2000 of them average within a few % of 1 ms.
        self.assertAlmostEqual(stats["service_mean_us"], 1000, delta=100, msg=msg)
        lam = stats["requests"] / r.json["duration_s"]
        mu = 1e6 / stats["service_mean_us"]
        rho = lam / mu
        # hail measures from each request's planned send time, before it reaches the server,
        # up to the response, sent at the completion time or after: at least the sojourn.
        self.assertGreaterEqual(r.json["latency_us"]["mean"], 0.9 * stats["sojourn_mean_us"], msg)
        server_accounting(self, srv.final, "at exit")
        mean_us = 1e6 / (mu - lam) if mu > lam else float("inf")
        lag = r.json.get("lag_us", {})
        timing = Timing(msg + "\nlambda %.1f/s mu %.1f/s rho %.3f: theory mean %.0f us; hail's "
                        "send lag p50 %s us p99 %s us (late sends bunch the arrivals)"
                        % (lam, mu, rho, mean_us, lag.get("p50"), lag.get("p99")))
        timing.check(0.4 < rho < 0.6, "rho %.3f not in (0.4, 0.6)" % rho)
        p50 = math.log(2) * mean_us
        p99 = math.log(100) * mean_us
        for name, got, want, low, high in (
                ("mean", stats["sojourn_mean_us"], mean_us, 0.65, 1.35),
                ("p50", stats["sojourn_p50_us"], p50, 0.65, 1.35),
                ("p99", stats["sojourn_p99_us"], p99, 0.5, 2.7)):
            timing.check(low * want <= got <= high * want,
                         "sojourn %s %.0f us not within [%.2f, %.2f] x %.0f us"
                         % (name, got, low, high, want))
        timing.check(abs(stats["wait_fraction"] - rho) <= 0.12,
                     "wait fraction %.3f not within 0.12 of rho" % stats["wait_fraction"])
        # Poisson arrivals only if hail sent on time: a client stalled for milliseconds sends its
        # backlog in a burst, a real queue the theory does not describe. A stall shows in the tail
        # of the send lag only; a hail late as a rule (median lag) is a defect, never unfit.
        lag_p50, lag_p99 = lag.get("p50", 1e9), lag.get("p99", 1e9)
        if lag_p99 >= 2000 and lag_p50 < 500:
            timing.unfit = "hail sent late (lag p99 %s us, p50 %s us): arrivals were not " \
                           "Poisson" % (lag_p99, lag_p50)
        return timing


def read_responses(sock, count, start, timeout=5.0):
    """Reads `count` HTTP/1.1 responses with Content-Length bodies off sock; returns a list of
    (seconds since start when complete, head, body)."""
    sock.settimeout(timeout)
    buf = b""
    out = []
    while len(out) < count:
        end = buf.find(b"\r\n\r\n")
        if end >= 0:
            head = buf[:end].decode()
            length = int([line.split(":", 1)[1] for line in head.split("\r\n")
                          if line.lower().startswith("content-length:")][0])
            if len(buf) >= end + 4 + length:
                out.append((time.monotonic() - start, head, buf[end + 4:end + 4 + length]))
                buf = buf[end + 4 + length:]
                continue
        data = sock.recv(65536)
        if not data:
            raise AssertionError("connection closed after %d responses" % len(out))
        buf += data
    return out


class ProtocolTest(unittest.TestCase):
    def test_pipelined_requests_leave_in_order_at_their_completion_times(self):
        """Three pipelined requests (one with a body) and a /__stats behind them on one
        connection, 20 ms of service each: responses at 20, 40 and 60 ms, the statistics (taken
        when asked, sent in their turn) right after the third."""
        until_on_time(self, self.pipelined)

    def pipelined(self):
        with QueueServer(service_us=20000) as srv:
            with socket.create_connection((LOOPBACK, srv.port), timeout=5) as sock:
                start = time.monotonic()
                sock.sendall(b"GET /1 HTTP/1.1\r\nHost: x\r\n\r\n"
                             b"POST /2 HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
                             b"GET /3 HTTP/1.1\r\nHost: x\r\n\r\n"
                             b"GET /__stats HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                got = read_responses(sock, 4, start)
                self.assertEqual(sock.recv(100), b"", "Connection: close was not honoured")
        times = [round(t * 1000, 1) for t, _, _ in got]
        stats_at_request = json.loads(got[3][2])
        for i in range(3):
            self.assertTrue(got[i][1].startswith("HTTP/1.1 200 OK"), got[i][1])
            self.assertEqual(got[i][2], b"ok\n")
            self.assertGreaterEqual(got[i][0], 0.020 * (i + 1), times)
        self.assertEqual(stats_at_request["requests"], 3, stats_at_request)
        self.assertEqual(stats_at_request["responses"], 0, stats_at_request)
        self.assertGreaterEqual(got[3][0], got[2][0])
        self.assertEqual(srv.final["responses"], 3, srv.final)
        timing = Timing("response times %s ms; server %s" % (times, srv.final))
        for i in range(3):
            timing.check(got[i][0] < 0.020 * (i + 1) + 0.015, "response %d late" % (i + 1))
        # One read brought all three: they arrived together, and queued (60 ms for the last).
        timing.check(stats_at_request["max_queue"] == 3, "max_queue at the /__stats request "
                     "%d != 3" % stats_at_request["max_queue"])
        timing.check(abs(srv.final["sojourn_max_us"] - 60000) <= 1, "sojourn max != 60 ms")
        return timing

    def parallel(self, servers):
        """Two connections each send one request at once (50 ms of service): the times their
        responses arrive, in seconds, and the server's final statistics."""
        with QueueServer(service_us=50000, servers=servers) as srv:
            socks = [socket.create_connection((LOOPBACK, srv.port), timeout=5) for _ in range(2)]
            try:
                start = time.monotonic()
                for s in socks:
                    s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                times = sorted(read_responses(s, 1, start)[0][0] for s in socks)
            finally:
                for s in socks:
                    s.close()
        return times, srv.final

    def test_k_servers_serve_in_parallel(self):
        until_on_time(self, self.one_and_two_servers)

    def one_and_two_servers(self):
        one, one_stats = self.parallel(1)
        two, two_stats = self.parallel(2)
        self.assertGreaterEqual(one[0], 0.050, one)
        self.assertGreaterEqual(two[0], 0.050, two)
        # With two servers neither request waits, whenever they arrive: exactly 50 ms each.
        self.assertEqual(two_stats["wait_fraction"], 0, two_stats)
        self.assertAlmostEqual(two_stats["sojourn_max_us"], 50000, delta=1, msg=two_stats)
        timing = Timing("one server: %s %s\ntwo servers: %s %s" % (one, one_stats, two,
                                                                   two_stats))
        # With one, the second waits for the first (unless the client stalled between sends).
        timing.check(one_stats["sojourn_max_us"] > 90000, "one server: no queueing")
        timing.check(one[1] >= 0.090, "one server: second response before 90 ms")
        timing.check(two[1] < 0.090, "two servers: second response after 90 ms")
        return timing

    def test_clients_that_leave_are_counted_as_dropped(self):
        """20 pipelined requests on each of 10 connections, two servers with exponential service
        (so later responses often complete before earlier ones and wait for them), the clients
        leaving after 30 ms: every request is answered or dropped, none lost in between."""
        with QueueServer(service_us=5000, dist="exp", seed=3, servers=2) as srv:
            socks = [socket.create_connection((LOOPBACK, srv.port), timeout=5) for _ in range(10)]
            for s in socks:
                s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n" * 20)
            time.sleep(0.03)
            for s in socks:
                s.close()
            # 200 requests of 5 ms on two servers: all due within about 0.5 s.
            deadline = time.monotonic() + 10
            while srv.stats()["in_flight"] and time.monotonic() < deadline:
                time.sleep(0.05)
        final = srv.final
        server_accounting(self, final, "at exit")
        self.assertEqual(final["requests"], 200, final)
        self.assertEqual(final["in_flight"], 0, final)
        self.assertGreater(final["dropped"], 100, final)  # most were due long after the close
        self.assertEqual(final["responses"] + final["dropped"], 200, final)

    def test_a_response_held_behind_an_earlier_one_is_dropped_with_its_connection(self):
        """Seed 649 draws services of 12.5, 236.0 and 2.2 ms (mean 40 ms): on two servers the
        third request completes at 14.7 ms but must wait for the second (236 ms) on their shared
        connection. The client closes once the first response has arrived, leaving it unread (so
        the close is an RST): the first response went out, the other two are dropped, none is
        lost."""
        with QueueServer(service_us=40000, dist="exp", seed=649, servers=2) as srv:
            with socket.create_connection((LOOPBACK, srv.port), timeout=5) as sock:
                sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n" * 3)
                self.assertTrue(sock.recv(1, socket.MSG_PEEK))
                time.sleep(0.02)  # the third completes (14.7 ms) and is held
            deadline = time.monotonic() + 10
            while srv.stats()["in_flight"] and time.monotonic() < deadline:
                time.sleep(0.02)
        final = srv.final
        server_accounting(self, final, "at exit")
        self.assertEqual(final["requests"], 3, final)
        self.assertEqual(final["responses"], 1, final)
        self.assertEqual(final["dropped"], 2, final)
        # The one response is the first request's, served at once for 12,509,874 ns: the seeded
        # stream is the one an independent transcription of xoshiro256** gives.
        self.assertAlmostEqual(final["sojourn_max_us"], 12509.9, delta=0.2, msg=final)

    def test_a_stalled_server_still_times_requests_from_their_arrival(self):
        """The server is stopped (SIGSTOP) when a request with 100 ms of service arrives and
        resumed 300 ms later: the request arrived at 0 (the kernel's receive timestamp), so it
        completed at 100 ms and its response goes out at once, near 300 ms, not 100 ms after the
        server got round to reading it (400 ms)."""
        until_on_time(self, self.stalled)

    def stalled(self):
        with QueueServer(service_us=100000) as srv:
            with socket.create_connection((LOOPBACK, srv.port), timeout=5) as sock:
                os.kill(srv.proc.pid, signal.SIGSTOP)
                try:
                    start = time.monotonic()
                    sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                    time.sleep(0.3)
                finally:
                    os.kill(srv.proc.pid, signal.SIGCONT)
                took = read_responses(sock, 1, start)[0][0]
        self.assertGreaterEqual(took, 0.3)
        self.assertEqual(srv.final["responses"], 1, srv.final)
        self.assertAlmostEqual(srv.final["sojourn_max_us"], 100000, delta=1, msg=srv.final)
        timing = Timing("response after %.0f ms; server %s" % (took * 1000, srv.final))
        timing.check(took < 0.38, "response %.0f ms after the request" % (took * 1000))
        timing.check(srv.final["late_max_us"] >= 150000, "lateness not seen")
        return timing

    def test_sigterm_reports_and_unknown_options_are_refused(self):
        for bad in (["--dist", "uniform"], ["--servers", "0"], ["--service-us", "-1"],
                    ["--bogus", "1"]):
            proc = subprocess.run([queue_server_bin()] + bad, capture_output=True, text=True,
                                  timeout=10)
            self.assertEqual(proc.returncode, 2, (bad, proc.stderr))
        with QueueServer(service_us=1) as srv:
            with socket.create_connection((LOOPBACK, srv.port), timeout=5) as sock:
                sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n" * 5)
                read_responses(sock, 5, time.monotonic())
        self.assertEqual(srv.final["requests"], 5, srv.final)
        self.assertEqual(srv.final["responses"], 5, srv.final)


if __name__ == "__main__":
    unittest.main()
