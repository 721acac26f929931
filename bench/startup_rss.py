#!/usr/bin/env python3
"""Time from exec to the first served request, and idle RSS, of ddb-server.

    bench/startup_rss.py [--server build/ddb-server] [--loadgen build/loadgen] [--runs 5]
                         [--preload 100000] [--modes "memory disk"]

For each mode (--in-memory, or an empty temporary --data-dir on disk):
  * startup: start the binary on a free 127.0.0.1 port, poll GET / (a fresh connection every
    ~1 ms) until it answers 200, report the milliseconds since just before exec; --runs times,
    the median is reported;
  * idle RSS: VmRSS from /proc/<pid>/status 1 s after the first answer (empty server), then
    after loadgen preloads --preload items of ~200 bytes with BatchWriteItem (and 2 s idle).
Prints a table and lines starting with RESULT for scripts. Standard library only; every
server it starts is stopped (SIGTERM, then SIGKILL after 5 s); temporary directories removed.
"""
import argparse
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get_status(port):
    """Status code of GET / on a new connection, or None when nothing answers yet."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
            s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            data = s.recv(64)
            parts = data.split(b" ", 2)
            return int(parts[1]) if len(parts) >= 2 and parts[1].isdigit() else None
    except OSError:
        return None


def vm_rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def start(server, port, mode, data_dir):
    args = [server, "--host", "127.0.0.1", "--port", str(port), "--log-level", "warn"]
    args += ["--in-memory"] if mode == "memory" else ["--data-dir", data_dir]
    t0 = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = t0 + 10
    while time.perf_counter() < deadline:
        if get_status(port) == 200:
            return proc, (time.perf_counter() - t0) * 1000
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        time.sleep(0.001)
    stop(proc)
    raise RuntimeError("server did not answer GET / within 10 s")


def stop(proc):
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--server", default=os.environ.get("DDB_SERVER", f"{ROOT}/build/ddb-server"))
    ap.add_argument("--loadgen", default=os.environ.get("LOADGEN", f"{ROOT}/build/loadgen"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--preload", type=int, default=100000)
    ap.add_argument("--item-size", type=int, default=200)
    ap.add_argument("--modes", default="memory disk")
    o = ap.parse_args()

    rows = []
    for mode in o.modes.split():
        times = []
        rss_start = rss_loaded = None
        for run in range(o.runs):
            data_dir = tempfile.mkdtemp(prefix="ddb-startup-")
            shutil.rmtree(data_dir)  # the server creates it: a first start, as from scratch
            port = free_port()
            proc = None
            try:
                proc, ms = start(o.server, port, mode, data_dir)
                times.append(ms)
                if run == o.runs - 1:  # RSS from the last run only
                    time.sleep(1)
                    rss_start = vm_rss_kb(proc.pid)
                    if o.preload > 0:
                        subprocess.run(
                            [o.loadgen, "--host", "127.0.0.1", "--port", str(port),
                             "--workload", "none", "--preload", str(o.preload),
                             "--item-size", str(o.item_size), "--connections", "16"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            timeout=600, check=True)
                        time.sleep(2)
                        rss_loaded = vm_rss_kb(proc.pid)
            finally:
                if proc is not None:
                    stop(proc)
                shutil.rmtree(data_dir, ignore_errors=True)
        rows.append((mode, times, rss_start, rss_loaded))

    print(f"load average: {' '.join(open('/proc/loadavg').read().split()[:3])}")
    print(f"{'mode':8} {'first request ms (median)':>26} {'all runs':>34} "
          f"{'RSS idle MB':>12} {'RSS after ' + str(o.preload) + ' items MB':>26}")
    for mode, times, rss_start, rss_loaded in rows:
        med = statistics.median(times)
        all_runs = " ".join(f"{t:.1f}" for t in times)
        loaded = f"{rss_loaded / 1024:.1f}" if rss_loaded else "-"
        print(f"{mode:8} {med:26.1f} {all_runs:>34} {rss_start / 1024:12.1f} {loaded:>26}")
    for mode, times, rss_start, rss_loaded in rows:
        print(f"RESULT mode={mode} first_request_ms={statistics.median(times):.1f} "
              f"runs={len(times)} rss_idle_kb={rss_start} rss_after_preload_kb={rss_loaded or 0} "
              f"preload={o.preload}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
