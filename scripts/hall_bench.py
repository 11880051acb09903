#!/usr/bin/env python3
"""The several-PC benchmark (issue 18; see docs/performance.md): emulated boards over
several hall processes and one central, on one machine, through a real nats-server.

Started by scripts/hall-bench.sh, which builds the binaries. It starts:
- the load test's emulator farm (`load_test farm`: N emulated DGT boards with clocks on
  ptys, real games at X times tournament pace, every tenth board with an irregularity),
- `nats-server -js` on a free loopback port with its own store,
- H `dgt-arbiter run` halls, the boards split evenly between them (`[network] hall`),
- one `dgt-arbiter central` following every hall.

It follows each hall's and the central's `/events` SSE stream, stamping each event
(`id: BOARD-SEQ`) on arrival with this process's CLOCK_MONOTONIC, and reports:
- latency from the event reaching this harness from its hall to the same event reaching
  it from the central (a hall's ruling to the central's dashboard stream; both stamps
  on one clock, so only the hall -> NATS -> central path is measured),
- the events a hall streamed that never reached the central (lost), and the events the
  central streamed twice,
- CPU (share of one core over the play) and peak RSS of every process.
Standard library only.
"""

import argparse
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

TOKEN = "load-test-arbiter-token"  # the farm's configs use the load test's token
CLK_TCK = os.sysconf("SC_CLK_TCK")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime


def status_kib(pid, key):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def http_address(out_dir, proc, what, timeout=120):
    path = os.path.join(out_dir, "http-address")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            sys.exit(f"hall_bench: {what} exited ({proc.returncode}) at start")
        try:
            with open(path) as f:
                text = f.read().strip()
            if text:
                return text.replace("http://", "").rstrip("/")
        except FileNotFoundError:
            pass
        time.sleep(0.1)
    sys.exit(f"hall_bench: {what} wrote no HTTP address within {timeout} s")


class Follower(threading.Thread):
    """Follows one daemon's /events: (board, seq) -> arrival times (ns)."""

    def __init__(self, name, addr):
        super().__init__(daemon=True)
        self.name, self.addr = name, addr
        self.arrivals = {}
        self.lost_comments = 0
        self.lock = threading.Lock()

    def run(self):
        host, port = self.addr.rsplit(":", 1)
        conn = http.client.HTTPConnection(host, int(port), timeout=None)
        conn.request("GET", "/events", headers={"X-Arbiter-Token": TOKEN})
        resp = conn.getresponse()
        if resp.status != 200:
            print(f"hall_bench: {self.name} /events: HTTP {resp.status}", file=sys.stderr)
            return
        while True:
            line = resp.readline()
            if not line:
                return
            at = time.monotonic_ns()
            if line.startswith(b"id:"):
                key = line[3:].strip().decode()
                with self.lock:
                    self.arrivals.setdefault(key, []).append(at)
            elif line.startswith(b":") and b"events lost" in line:
                with self.lock:
                    self.lost_comments += 1

    def snapshot(self):
        with self.lock:
            return {k: list(v) for k, v in self.arrivals.items()}


def hall_config(dir_, hall, boards, nats, farm_dir):
    s = (
        f'[event]\nname = "Hall bench"\nround = 1\ntime_control = "15+10"\n'
        f'supervision = "full"\n\n[output]\ndir = "out"\n\n'
        f'[http]\nbind = "127.0.0.1:0"\ntoken = "{TOKEN}"\n\n'
        f'[network]\nnats = "{nats}"\nhall = "{hall}"\n'
    )
    for b in boards:
        link = os.path.join(farm_dir, "ptys", f"board-{b}")
        s += f'\n[[board]]\nnumber = {b}\nport = "{link}"\nwhite_clock = "left"\n'
    path = os.path.join(dir_, "hall.toml")
    with open(path, "w") as f:
        f.write(s)
    return path


def central_config(dir_, halls, nats):
    names = ", ".join(f'"{h}"' for h in halls)
    s = (
        f'[event]\nname = "Hall bench"\nround = 1\ntime_control = "15+10"\n\n'
        f'[output]\ndir = "out"\n\n[http]\nbind = "127.0.0.1:0"\ntoken = "{TOKEN}"\n\n'
        f'[network]\nnats = "{nats}"\nhalls = [{names}]\n'
    )
    path = os.path.join(dir_, "event.toml")
    with open(path, "w") as f:
        f.write(s)
    return path


def pct(sorted_ms, p):
    if not sorted_ms:
        return float("nan")
    i = min(len(sorted_ms) - 1, max(0, int(round(p / 100 * len(sorted_ms))) - 1))
    return sorted_ms[i]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--boards", type=int, default=1000)
    ap.add_argument("--halls", type=int, default=4)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--warmup", type=float, default=25)
    ap.add_argument("--pace", type=float, default=10)
    ap.add_argument("--drain", type=float, default=30, help="seconds the central gets to catch up")
    ap.add_argument("--daemon", required=True)
    ap.add_argument("--load-test", required=True)
    ap.add_argument("--nats-server", default=shutil.which("nats-server") or "/usr/sbin/nats-server")
    ap.add_argument("--dir")
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    # The daemons run in their own folders.
    a.daemon, a.load_test = os.path.abspath(a.daemon), os.path.abspath(a.load_test)
    if a.halls < 1 or a.boards < a.halls:
        sys.exit("hall_bench: need at least one board per hall")
    root = os.path.abspath(a.dir or tempfile.mkdtemp(prefix="dgt-hall-bench-"))
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    farm_dir = os.path.join(root, "farm")
    procs = []

    def stop_all():
        for _, p in reversed(procs):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for _, p in reversed(procs):
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()

    try:
        farm = subprocess.Popen(
            [a.load_test, "farm", "--boards", str(a.boards), "--seconds", str(a.seconds),
             "--warmup", str(a.warmup), "--pace", str(a.pace), "--dir", farm_dir],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        procs.append(("farm", farm))
        ready = farm.stdout.readline().split()
        if not ready or ready[0] != "ready":
            sys.exit(f"hall_bench: the farm said {ready}")
        play_ns, cut_ns = int(ready[2]), int(ready[3])

        port = free_port()
        nats_log = open(os.path.join(root, "nats-server.log"), "w")
        nats = subprocess.Popen(
            [a.nats_server, "-js", "-a", "127.0.0.1", "-p", str(port),
             "-sd", os.path.join(root, "nats-store")],
            stdout=subprocess.DEVNULL, stderr=nats_log)
        procs.append(("nats-server", nats))
        url = f"nats://127.0.0.1:{port}"
        version = subprocess.run([a.nats_server, "--version"], capture_output=True, text=True).stdout.strip()

        halls = [chr(ord("A") + i) for i in range(a.halls)]
        per = [list(range(1 + i * a.boards // a.halls, 1 + (i + 1) * a.boards // a.halls))
               for i in range(a.halls)]
        followers = []
        for h, boards in zip(halls, per):
            d = os.path.join(root, f"hall-{h}")
            os.makedirs(d)
            cfg = hall_config(d, h, boards, url, farm_dir)
            p = subprocess.Popen([a.daemon, "run", "--log-format", "json", "--config", cfg],
                                 cwd=d, stdout=subprocess.DEVNULL,
                                 stderr=open(os.path.join(d, "daemon.log"), "w"))
            procs.append((f"hall {h}", p))
        for (name, p), h in zip(procs[2:], halls):
            followers.append(Follower(name, http_address(os.path.join(root, f"hall-{h}", "out"), p, name)))
        cd = os.path.join(root, "central")
        os.makedirs(cd)
        central = subprocess.Popen(
            [a.daemon, "central", "--log-format", "json", "--config", central_config(cd, halls, url)],
            cwd=cd, stdout=subprocess.DEVNULL, stderr=open(os.path.join(cd, "daemon.log"), "w"))
        procs.append(("central", central))
        central_follower = Follower("central", http_address(os.path.join(cd, "out"), central, "central"))
        for f in followers + [central_follower]:
            f.start()
        print(f"hall_bench: {a.boards} boards over {a.halls} halls and a central, {version}, "
              f"pace {a.pace}x, play {a.seconds} s after a {a.warmup} s warm-up; files in {root}",
              file=sys.stderr)

        # CPU over the play, peak RSS at its end.
        while time.monotonic_ns() < play_ns:
            time.sleep(0.2)
        t0 = time.monotonic()
        cpu0 = {name: cpu_ticks(p.pid) for name, p in procs}
        while time.monotonic_ns() < cut_ns:
            time.sleep(0.5)
        t1 = time.monotonic()
        cpu1 = {name: cpu_ticks(p.pid) for name, p in procs}
        rss = {name: status_kib(p.pid, "VmHWM") for name, p in procs}
        load = os.getloadavg()
        line = farm.stdout.readline().strip()
        if line != "done":
            print(f"hall_bench: the farm said {line!r}", file=sys.stderr)

        # The central catches up: every hall event streamed by now must reach it.
        hall_events = {}
        for f in followers:
            hall_events.update(f.snapshot())
        deadline = time.monotonic() + a.drain
        while time.monotonic() < deadline:
            c = central_follower.snapshot()
            if all(k in c for k in hall_events):
                break
            time.sleep(0.5)
        c = central_follower.snapshot()

        # Latency over the measured play only (the warm-up holds the boards' connections
        # and the central's start).
        lat = sorted((c[k][0] - v[0]) / 1e6 for k, v in hall_events.items()
                     if k in c and play_ns <= v[0] <= cut_ns)
        with open(os.path.join(root, "latency.tsv"), "w") as f:
            f.write("event\tat_hall_s\tto_central_ms\n")
            for k, v in sorted(hall_events.items(), key=lambda kv: kv[1][0]):
                if k in c:
                    f.write(f"{k}\t{(v[0] - play_ns) / 1e9:.3f}\t{(c[k][0] - v[0]) / 1e6:.1f}\n")
        lost = [k for k in hall_events if k not in c]
        doubled = [k for k, v in c.items() if len(v) > 1]
        hall_doubled = [k for k, v in hall_events.items() if len(v) > 1]
        span = t1 - t0
        report = [
            f"several-PC benchmark: {a.boards} boards, {a.halls} halls + central, pace {a.pace}x, "
            f"{span:.0f} s measured, {version}, {os.cpu_count()} cores, load average at the end "
            f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}",
            f"events streamed by the halls: {len(hall_events)}; reached the central: "
            f"{len(hall_events) - len(lost)}; lost: {len(lost)}; doubled at the central: {len(doubled)}"
            f" (at a hall: {len(hall_doubled)}); SSE lag comments: "
            f"{sum(f.lost_comments for f in followers)} hall, {central_follower.lost_comments} central",
            f"hall -> central dashboard stream ({len(lat)} events of the play): p50 {pct(lat, 50):.1f} ms, p90 {pct(lat, 90):.1f} ms, "
            f"p99 {pct(lat, 99):.1f} ms, max {lat[-1] if lat else float('nan'):.1f} ms",
            "process        CPU (% of a core)  peak RSS (MiB)",
        ]
        for name, _ in procs:
            share = (cpu1[name] - cpu0[name]) / CLK_TCK / span * 100
            report.append(f"{name:<14} {share:>17.1f}  {rss[name] / 1024:>14.1f}")
        text = "\n".join(report)
        print(text)
        with open(os.path.join(root, "report.txt"), "w") as f:
            f.write(text + "\n")
        if lost:
            print(f"hall_bench: lost, e.g. {sorted(lost)[:10]}", file=sys.stderr)
    finally:
        if procs and procs[0][1].poll() is None and procs[0][1].stdin:
            # The farm keeps its ptys open until its stdin closes: stop the daemons first.
            stop_all_but_farm = [(n, p) for n, p in procs[1:]]
            for _, p in reversed(stop_all_but_farm):
                if p.poll() is None:
                    p.send_signal(signal.SIGTERM)
            for _, p in reversed(stop_all_but_farm):
                try:
                    p.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    p.kill()
            procs[0][1].stdin.close()
        stop_all()
        if not a.keep:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
