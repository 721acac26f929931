"""kill -9 mid-load (issue 17): 16 writers on a table with a GSI and an LSI; the server is
killed with SIGKILL while they write and restarted on the same data directory. Every
acknowledged write must be there with its value, the counters exact and every index entry
consistent with its item (crash_workload.check_store), in both durability modes: a crash of
the process loses nothing that RocksDB's WAL holds, synced or not. tools/crash-check.sh
runs more and longer rounds."""

import os

import pytest

from conftest import SERVER_BIN
from crash_workload import kill9_round

pytestmark = pytest.mark.ddb_only("ddb-server killed with SIGKILL and restarted on its data "
                                  "directory")


@pytest.mark.parametrize("durability", ["process", "fsync"])
def test_kill9_mid_load_keeps_every_acknowledged_write(durability, tmp_path):
    figures = kill9_round(SERVER_BIN, str(tmp_path / "data"), durability,
                          str(tmp_path / "server.log"), writers=16, kill_after_s=1.5, seed=1)
    assert figures["rejected"] == 0, figures
    assert figures["acked_writes"] > 100, figures  # the kill came mid-load
    assert figures["acked_lost"] == 0, figures
