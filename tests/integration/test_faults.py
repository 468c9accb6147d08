"""Faults around a run: the server killed and restarted mid-run, signals at awkward moments, and
attacks on `hail serve` where real sockets matter (--max-connections, slowloris next to real
load). Resource limits (descriptors, ephemeral ports) are in test_limits.py.

Every count is checked against what can be known exactly; where only a bound can be known the
test says why. Servers on fixed ports are started with ServeProcess (HailServer always takes
port 0); everything is bounded in time and cleaned up.
"""

import json
import os
import re
import shutil
import signal
import socket
import tempfile
import threading
import time
import unittest

from faults_support import (TCP_ESTABLISHED, ServeProcess, finish, nonzero, one_report, reap,
                            reasons_of, server_side, start_hail, stop_process, tcp_sockets)
from support import (LOOPBACK, HailServer, check_accounting, describe, free_port, run_hail,
                     summary, wait_until)

# A server that is down refuses connects; one that is dying may reset a connect it had begun to
# accept (see ServerKillTest).
DOWN_CONNECT_REASONS = {"connect: Connection refused", "connect: Connection reset by peer"}


# --------------------------------------------------------------------------------------------
# 1a. The server is killed mid-run and restarted on the same port


class ServerKillTest(unittest.TestCase):
    def wait_for_load(self, server, proc, requests):
        wait_until(lambda: proc.poll() is not None or server.stats()["requests"] >= requests, 15,
                   interval=0.05, what="%d requests to reach the server" % requests)
        if proc.poll() is not None:
            self.fail("hail exited (status %s) before the fault: %s"
                      % (proc.returncode, proc.communicate(timeout=5)))

    def test_sigkill_and_restart_exact_counts(self):
        self.sigkill_and_restart(retry=False)

    def test_sigkill_and_restart_exact_counts_with_retries(self):
        self.sigkill_and_restart(retry=True)

    def sigkill_and_restart(self, retry):
        """Exact bookkeeping across a SIGKILL. What the first server counted can only be read
        while it runs, so the kill is staged to make that count final:
          1. SIGSTOP hail (and wait until it has stopped): no new request reaches the server;
          2. wait until the server has read every byte hail sent (its sockets' receive queues
             are empty, and so are both send queues), then read /stats: the server counts a
             request when it queues the response, in the same turn as the read, so this count is
             final, and each of those responses has reached hail's socket whole;
          3. SIGSTOP the server (stopped for sure before hail resumes, as think timers that
             expired meanwhile fire at once), SIGCONT hail: hail reads those responses and,
             after --think, sends one more request per connection, which the stopped server
             never reads;
          4. SIGKILL the server: a socket closed with unread data is reset, so exactly those -c
             requests fail as read errors; then connects are refused until
          5. a new server starts on the same port and serves the rest of the -n budget.
        -n makes the end exact too (nothing in flight), so completed must equal the sum of both
        servers' counts. With retries (the default), the -c requests the killed server never read
        were sent on reused connections closed before a byte of their response: each is sent
        once more (counted as retried) and served by the second server instead of failing.
        The kernel does not close a killed process's sockets at once: its connections can be
        reset while its listening socket still completes handshakes. A connection hail reopens in
        that instant is opened and then reset with its request (a read error, or a write error
        when the reset comes first), never read by any server; or it is reset during the
        handshake (a connect error, "Connection reset by peer"). So beyond the -c connections to
        each server there may be k such connections, and then connections_opened == 2c + k and
        read + write errors == c + k."""
        port = free_port()
        c, n = 4, 3000
        # --think 5ms caps the rate at c / 5 ms = 800 req/s, so -n 3000 lasts at least 3.75 s:
        # the staging (well under a second) always happens mid-run.
        args = ["-n", n, "-c", c, "-t", "1", "--think", "5ms", "--timeout", "5s", "-q",
                "--json", "-", "http://127.0.0.1:%d/bytes/100" % port]
        if not retry:
            args.insert(0, "--no-retry")
        first = ServeProcess(port=port).start()
        proc = None
        try:
            proc = start_hail(args)
            self.wait_for_load(first, proc, 200)
            stop_process(proc.pid)

            def settled():
                count = first.stats()["requests"]
                client_tx = [tx for lp, rp, st, tx, _ in tcp_sockets(port)
                             if rp == port and st == TCP_ESTABLISHED]
                server = server_side(port)
                if any(tx or rx for tx, rx in server) or any(client_tx):
                    return None
                again = first.stats()["requests"]
                return (again,) if again == count else None

            (served_by_first,) = wait_until(settled, 5, interval=0.05,
                                            what="the first server to answer all it was sent")
            stop_process(first.pid)  # before hail resumes: its think timers fire at once
            os.kill(proc.pid, signal.SIGCONT)
            wait_until(lambda: sum(1 for _, rx in server_side(port) if rx) == c, 5,
                       what="each of the %d connections to send a request to the stopped "
                            "server (receive queues: %s)" % (c, server_side(port)))
            first.kill()
            time.sleep(1.0)  # down for a while: connects are refused, with backoff
            self.assertIsNone(proc.poll(), "hail exited while the server was down")
            with ServeProcess(port=port) as second:
                out, err = finish(proc, 120)
                after = second.stats()
        finally:
            reap(proc)
            if first.proc.poll() is None:
                first.kill()
            first.__exit__(None, None, None)
        r = one_report(self, proc, out, err)
        msg = "%s\nfirst server: %d\nsecond server: %s\nstderr: %s" % (
            summary(r), served_by_first, after, err)
        self.assertEqual(proc.returncode, 0, msg)
        check_accounting(r, msg)
        req, errors = r["requests"], r["errors"]
        retried = c if retry else 0
        self.assertEqual(req["retried"], retried, msg)
        self.assertEqual(req["attempted"], n + retried, msg)
        self.assertEqual(req["in_flight"], 0, msg)
        # The sum of what both incarnations counted, exactly.
        self.assertEqual(req["completed"], served_by_first + after["requests"], msg)
        self.assertGreater(after["requests"], 0, msg)
        # c connections to each server (the second also counted its own /stats connection), and
        # k opened as the first one died.
        self.assertEqual(after["connections"] - 1, c, msg)
        k = r["connections_opened"] - 2 * c
        self.assertGreaterEqual(k, 0, msg)
        # Those k (fresh connections: nothing to retry) failed, and the -c requests the stopped
        # server never read failed too, unless they were sent again.
        self.assertEqual(errors["read"] + errors["write"], c - retried + k, msg)
        self.assertEqual(sum(reasons_of(r, "read").values()), errors["read"], msg)
        self.assertGreaterEqual(errors["connect"], c, msg)  # each connection retried at least once
        self.assertIn("connect: Connection refused", reasons_of(r, "connect"), msg)
        self.assertLessEqual(set(reasons_of(r, "connect")), DOWN_CONNECT_REASONS, msg)
        self.assertEqual(set(nonzero(errors)) - {"read", "write", "connect"}, set(), msg)
        self.assertEqual(r["status_codes"], {"200": req["completed"]}, msg)

    def test_sigkill_under_full_load(self):
        """An unstaged SIGKILL under full load: hail keeps running, counts the failures and
        reconnects when the server is back. What the first server counted after the last /stats
        read is unknowable, so only a bound holds: every request it counted either completed or
        failed as a read error when it died, and the second server counted at most the requests
        still in flight at the end beyond what hail completed:
          first_before_kill + second <= completed + read + in_flight.
        (Connections opened as the first server died, see above, are reset with their request:
        one more read or write error each.)"""
        port = free_port()
        c = 8
        args = ["-c", c, "-t", "1", "-d", "4s", "--timeout", "2s", "-q", "--json", "-",
                "http://127.0.0.1:%d/bytes/100" % port]
        first = ServeProcess(port=port).start()
        proc = None
        try:
            proc = start_hail(args)
            self.wait_for_load(first, proc, 2000)
            before_kill = first.stats()["requests"]
            first.kill()
            time.sleep(0.5)
            self.assertIsNone(proc.poll(), "hail exited while the server was down")
            with ServeProcess(port=port) as second:
                out, err = finish(proc, 60)
                after = second.stats()
        finally:
            reap(proc)
            first.__exit__(None, None, None)
        r = one_report(self, proc, out, err)
        msg = "%s\nfirst server before the kill: %d\nsecond server: %s" % (
            summary(r), before_kill, after)
        self.assertEqual(proc.returncode, 0, msg)
        check_accounting(r, msg)
        req, errors = r["requests"], r["errors"]
        self.assertEqual(set(nonzero(errors)) - {"read", "write", "connect"}, set(), msg)
        self.assertGreaterEqual(errors["connect"], 1, msg)
        self.assertIn("connect: Connection refused", reasons_of(r, "connect"), msg)
        self.assertLessEqual(set(reasons_of(r, "connect")), DOWN_CONNECT_REASONS, msg)
        self.assertLessEqual(before_kill + after["requests"],
                             req["completed"] + errors["read"] + req["in_flight"], msg)
        self.assertGreater(after["requests"], 0, msg)
        # c connections to the first server, those the second accepted (without /stats), and k
        # opened as the first one died.
        k = r["connections_opened"] - c - (after["connections"] - 1)
        self.assertGreaterEqual(k, 0, msg)
        self.assertGreaterEqual(after["connections"] - 1, 1, msg)
        # At most one request in flight per connection when the first server died.
        self.assertLessEqual(errors["read"] + errors["write"], c + k, msg)


# --------------------------------------------------------------------------------------------
# 1b. SIGINT / SIGTERM at awkward moments (test_signals.py covers a signal during plain load)


class SignalFaultTest(unittest.TestCase):
    def signal_and_wait(self, proc, *signals, limit=2.0):
        sent = time.monotonic()
        for i, sig in enumerate(signals):
            if i:
                time.sleep(0.05)
            proc.send_signal(sig)
        out, err = finish(proc, 10)
        waited = time.monotonic() - sent
        self.assertLessEqual(waited, limit, "hail took %.2fs to exit after %s"
                             % (waited, [s.name for s in signals]))
        return out, err

    def test_sigterm_while_the_server_is_frozen(self):
        """Every connection waits for an answer that does not come (the server is SIGSTOPped):
        SIGTERM (then a second signal, which must change nothing) still ends the run at once with
        the text report, --json FILE and --timeseries FILE, the stuck requests in flight."""
        c = 4
        tmp = tempfile.mkdtemp(prefix="hail-faults-")
        try:
            json_path = os.path.join(tmp, "report.json")
            series_path = os.path.join(tmp, "series.csv")
            with HailServer() as srv:
                before = srv.stats()
                proc = start_hail(["-c", c, "-t", "1", "-d", "30s", "-q", "--json", json_path,
                                   "--timeseries", series_path, "--interval", "200ms",
                                   srv.url + "/bytes/100"])
                try:
                    wait_until(lambda: proc.poll() is not None
                               or srv.stats()["requests"] - before["requests"] >= 100, 10,
                               interval=0.05, what="the load to flow")
                    stop_process(srv.proc.pid)
                    try:
                        time.sleep(0.5)
                        out, err = self.signal_and_wait(proc, signal.SIGTERM, signal.SIGINT)
                    finally:
                        os.kill(srv.proc.pid, signal.SIGCONT)
                finally:
                    reap(proc)
                after = srv.stats()
            delta = HailServer.stats_delta(before, after)
            self.assertEqual(proc.returncode, 0, "stdout %r stderr %r" % (out, err))
            self.assertEqual(err, "")
            self.assertIn("Requests/sec:", out)
            self.assertIn("interrupted", out)
            with open(json_path) as f:
                r = json.load(f)
            msg = summary(r)
            check_accounting(r, msg)
            self.assertIs(r["interrupted"], True, msg)
            req = r["requests"]
            self.assertGreater(req["completed"], 0, msg)
            self.assertEqual(req["in_flight"], c, msg)  # one stuck request per connection
            self.assertEqual(nonzero(r["errors"]), {}, msg)
            self.assertGreaterEqual(r["duration_s"], 0.5, msg)
            self.assertLess(r["duration_s"], 5.0, msg)
            # The server, resumed, may still answer the stuck requests (hail is gone by then).
            self.assertGreaterEqual(delta["requests"], req["completed"], (delta, msg))
            self.assertLessEqual(delta["requests"], req["completed"] + c, (delta, msg))
            # The time series was written too, and its measured rows add up to the run.
            with open(series_path) as f:
                lines = f.read().splitlines()
            header = lines[0].split(",")
            rows = [dict(zip(header, line.split(","))) for line in lines[1:]]
            self.assertGreaterEqual(len(rows), 3, lines)
            self.assertEqual(sum(int(row["completed"]) for row in rows if row["warmup"] == "0"),
                             req["completed"], lines)
            self.assertEqual([row["completed"] for row in rows[-2:]], ["0", "0"], lines)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def test_sigint_while_the_server_is_down(self):
        """All connections are in connect backoff (up to 1 s between attempts) when SIGINT comes:
        the run still stops at once, exits 0 (connections were opened before the server died) and
        the report, on stdout with --json -, counts the refused connects."""
        c = 4
        port = free_port()
        server = ServeProcess(port=port).start()
        proc = None
        try:
            proc = start_hail(["-c", c, "-t", "1", "-d", "30s", "-q", "--json", "-",
                               "http://127.0.0.1:%d/bytes/10" % port])
            wait_until(lambda: proc.poll() is not None or server.stats()["requests"] >= 100, 10,
                       interval=0.05, what="the load to flow")
            server.kill()
            time.sleep(2.0)  # the backoff reaches 1 s
            self.assertIsNone(proc.poll())
            out, err = self.signal_and_wait(proc, signal.SIGINT)
        finally:
            reap(proc)
            server.__exit__(None, None, None)
        r = one_report(self, proc, out, err)
        msg = summary(r) + "\nstderr: " + err
        self.assertEqual(proc.returncode, 0, msg)
        check_accounting(r, msg)
        self.assertIs(r["interrupted"], True, msg)
        self.assertEqual(r["requests"]["in_flight"], 0, msg)  # no connection was open
        self.assertGreaterEqual(r["errors"]["connect"], 2 * c, msg)
        self.assertIn("connect: Connection refused", reasons_of(r, "connect"), msg)
        self.assertLessEqual(set(reasons_of(r, "connect")), DOWN_CONNECT_REASONS, msg)
        self.assertEqual(set(nonzero(r["errors"])) - {"read", "write", "connect"}, set(), msg)
        # c connections, and any opened as the server died (ServerKillTest): one request each at
        # most was lost.
        self.assertGreaterEqual(r["connections_opened"], c, msg)
        self.assertLessEqual(r["errors"]["read"] + r["errors"]["write"],
                             r["connections_opened"], msg)

    def test_sigint_during_the_warmup(self):
        """Interrupted before measuring started: nothing measured, yet a complete, parseable
        report (zero duration, no division by zero), exit 0 since the warm-up connected."""
        tmp = tempfile.mkdtemp(prefix="hail-faults-")
        try:
            json_path = os.path.join(tmp, "report.json")
            with HailServer() as srv:
                before = srv.stats()
                proc = start_hail(["-c", "2", "-t", "1", "--warmup", "20s", "-d", "10s", "-q",
                                   "--json", json_path, srv.url + "/bytes/10"])
                try:
                    wait_until(lambda: proc.poll() is not None
                               or srv.stats()["requests"] - before["requests"] >= 50, 10,
                               interval=0.05, what="the warm-up load to flow")
                    out, err = self.signal_and_wait(proc, signal.SIGINT)
                finally:
                    reap(proc)
            self.assertEqual(proc.returncode, 0, "stdout %r stderr %r" % (out, err))
            self.assertIn("Requests/sec:", out)
            self.assertIsNone(re.search(r"\b(nan|inf)\b", out, re.I), out)
            with open(json_path) as f:
                r = json.load(f)
            msg = summary(r)
            check_accounting(r, msg)
            self.assertIs(r["interrupted"], True, msg)
            self.assertEqual(r["duration_s"], 0, msg)
            self.assertEqual((r["requests"]["attempted"], r["requests"]["completed"],
                              r["requests"]["in_flight"]), (0, 0, 0), msg)
            self.assertEqual(nonzero(r["errors"]), {}, msg)
            self.assertEqual(r["throughput"]["requests_per_s"], 0, msg)
            self.assertEqual(r["connections_opened"], 2, msg)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def test_sigterm_in_rate_mode_with_a_backlog(self):
        """Rate mode against a slow endpoint: planned requests pile up in the backlog; SIGTERM
        ends the run at once and the report says how many were still waiting."""
        with HailServer() as srv:
            proc = start_hail(["-R", "500", "-c", "2", "-t", "1", "-d", "30s", "-q", "--json", "-",
                               srv.url + "/delay/300"])
            try:
                wait_until(lambda: proc.poll() is not None or srv.stats()["requests"] >= 2, 10,
                           interval=0.05, what="the first requests")
                time.sleep(1.0)
                out, err = self.signal_and_wait(proc, signal.SIGTERM)
            finally:
                reap(proc)
        r = one_report(self, proc, out, err)
        msg = summary(r)
        self.assertEqual(proc.returncode, 0, msg)
        check_accounting(r, msg)
        self.assertIs(r["interrupted"], True, msg)
        self.assertEqual(nonzero(r["errors"]), {}, msg)
        self.assertLessEqual(r["requests"]["in_flight"], 2, msg)
        # ~500 planned per second, ~7 answered: hundreds waiting when the signal came.
        self.assertGreater(r["rate"]["backlog"], 100, msg)


# --------------------------------------------------------------------------------------------
# 2. Attacks on hail serve where real sockets matter (the byte-level cases are unit tests in
#    tests/unit/server)


class ServeUnderAttackTest(unittest.TestCase):
    def test_max_connections_against_hail(self):
        """hail -c 8 against --max-connections 4: four connections are served the whole run,
        every further one is accepted and closed at once (rejected_connections); hail counts
        each request lost that way as an error and keeps reconnecting, accounting exact."""
        c, limit = 8, 4
        with HailServer("--max-connections", limit) as srv:
            run = run_hail(["-c", c, "-t", "1", "-d", "1s", "--timeout", "1s", "--json", "-",
                            "-q", srv.url + "/bytes/10"], timeout=30)
            failed_reads = []

            def stats():
                try:
                    return srv.stats()
                except OSError as e:  # hail's last connections not yet closed on the server
                    failed_reads.append(e)
                    return None

            after = wait_until(stats, 5, interval=0.1, what="/stats below the connection limit")
        msg = "%s\nserver: %s (%d /stats reads refused)" % (describe(run), after,
                                                             len(failed_reads))
        self.assertEqual(run.code, 0, msg)
        r = run.json
        check_accounting(r, msg)
        self.assertGreater(r["requests"]["completed"], 0, msg)
        errors = r["errors"]
        self.assertEqual(set(nonzero(errors)) - {"read", "write"}, set(), msg)
        self.assertGreaterEqual(errors["read"] + errors["write"], 1, msg)
        rejected = after["rejected_connections"]
        served = after["connections"] - 1  # without the /stats connection
        self.assertGreaterEqual(rejected, 1, msg)
        # The first four stay open all run; a connect still in the backlog when hail stopped may
        # be accepted (and served or rejected) afterwards.
        self.assertGreaterEqual(served, limit, msg)
        self.assertLessEqual(served, limit + c, msg)
        self.assertGreaterEqual(served + rejected, r["connections_opened"], msg)
        self.assertLessEqual(served + rejected,
                             r["connections_opened"] + c + len(failed_reads), msg)

    def test_slowloris_is_cut_off_while_real_load_is_served(self):
        """20 connections dribbling a header line every 100 ms, with --header-timeout 500ms:
        each gets a 408 and the end of the stream about 0.5 s after its first byte, while hail's
        load on the same reactor completes without an error."""
        lorises = []
        stop = threading.Event()
        with HailServer("--header-timeout", "500ms") as srv:
            before = srv.stats()
            results = [None] * 20

            def loris(i):
                s = socket.create_connection((LOOPBACK, srv.port), timeout=5)
                lorises.append(s)
                started = time.monotonic()
                s.sendall(b"GET /bytes/1 HTTP/1.1\r\nHost: x\r\n")
                s.settimeout(0.1)
                data = b""
                while not stop.is_set() and time.monotonic() - started < 5:
                    try:
                        chunk = s.recv(4096)
                    except socket.timeout:
                        try:
                            s.sendall(b"X-Dribble: %d\r\n" % i)
                        except OSError:
                            break
                        continue
                    except OSError:
                        break
                    if not chunk:
                        break
                    data += chunk
                results[i] = (time.monotonic() - started, data)

            threads = [threading.Thread(target=loris, args=(i,), daemon=True) for i in range(20)]
            for t in threads:
                t.start()
            run = run_hail(["-n", "2000", "-c", "4", "-t", "1", "--json", "-", "-q",
                            srv.url + "/bytes/100"], timeout=30)
            for t in threads:
                t.join(10)
            stop.set()
            for s in lorises:
                s.close()
            after = srv.stats()
        self.assertEqual(run.code, 0, describe(run))
        check_accounting(run.json, describe(run))
        self.assertEqual(run.json["requests"]["completed"], 2000, describe(run))
        self.assertEqual(nonzero(run.json["errors"]), {}, describe(run))
        for i, result in enumerate(results):
            self.assertIsNotNone(result, "slowloris %d never finished" % i)
            seconds, data = result
            self.assertTrue(data.startswith(b"HTTP/1.1 408 "), (i, data))
            self.assertGreaterEqual(seconds, 0.45, (i, seconds))
            self.assertLess(seconds, 2.0, (i, seconds))
        # The 408s count as answered requests, beside hail's 2000.
        delta = HailServer.stats_delta(before, after)
        self.assertEqual(delta["requests"], 2000 + 20, delta)


if __name__ == "__main__":
    unittest.main()
