"""Out of disk (issue 29): the server's data directory lies on tests/crash/lossy_fs with a
byte budget (ENOSPC past it). 16 writers of new items fill it; then:

  * every refused write is a 500 InternalServerError saying the disk is full (no path);
  * reads (GetItem, Query, Scan, DescribeTable) work and the server stays up;
  * /metrics shows ddb_storage_disk_full 1, and the stop is logged once, not per write;
  * once the budget is raised (space freed), writes succeed again within 5 s, without a
    restart (the store resumes RocksDB by itself), and the gauge goes back to 0;
  * after a kill -9 and a restart on the same data, every acknowledged write is there.

The round is crash_workload.disk_full_round (tools/crash-check.sh --disk-full runs more).
Skipped, like the power-cut test, without build/lossy_fs (libfuse3-dev), /dev/fuse or the
right to mount."""

import pytest

from conftest import SERVER_BIN
from crash_workload import check_disk_full_figures, disk_full_round
from test_power_cut import LOSSY_FS, fuse_available

pytestmark = [pytest.mark.skipif(fuse_available() is not None, reason=fuse_available() or ""),
              pytest.mark.ddb_only("ddb-server on a data directory that fills up")]


@pytest.mark.parametrize("durability", ["fsync", "process"])
def test_full_disk_refuses_writes_keeps_reads_and_resumes_by_itself(tmp_path, durability):
    figures = disk_full_round(SERVER_BIN, LOSSY_FS, str(tmp_path), durability, writers=16,
                              seed=1 if durability == "fsync" else 2)
    print(figures)
    check_disk_full_figures(figures, str(tmp_path))
