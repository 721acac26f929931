"""bench/feature_tax.sh, the before/after benchmark a change to the request path is measured
with before it lands, in a smoke form that keeps it working: the same build on both sides,
tiny sizes. It must print a figure for every op on both sides (no figure is asserted: speed
is measured by benchmarks, never by tests)."""
import os
import pathlib
import shutil
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_feature_tax_prints_both_sides_of_every_op(tmp_path):
    server = os.environ.get("DDB_SERVER", str(ROOT / "build" / "ddb-server"))
    args = [str(ROOT / "bench" / "feature_tax.sh"), "--base-server", server,
            "--ops", "get put-gsi1", "--preload", "300", "--requests", "100",
            "--runs", "1", "--duration", "1"]
    callgrind = shutil.which("valgrind") is not None and shutil.which("callgrind_control")
    if not callgrind:
        args.append("--no-callgrind")
    env = dict(os.environ, DDB_SERVER=server, TMPDIR=str(tmp_path))
    done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    rows = {}
    for line in done.stdout.splitlines():
        cols = line.split()
        if cols and cols[0] in ("get", "put-gsi1"):
            rows[cols[0]] = cols
    assert set(rows) == {"get", "put-gsi1"}, done.stdout
    for op, cols in rows.items():
        # op, instr base, instr new, ratio, req/s base, req/s new, ratio, cpu base, cpu new, ratio
        assert len(cols) == 10, done.stdout
        assert float(cols[4]) > 0 and float(cols[5]) > 0, done.stdout
        if callgrind:
            assert int(cols[1]) > 0 and int(cols[2]) > 0, done.stdout
        else:
            assert cols[1] == cols[2] == "-", done.stdout
