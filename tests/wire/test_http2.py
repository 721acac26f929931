"""HTTP/2 with prior knowledge (h2c) on ddb's port (server/h2c_connection.h): what the
JavaScript SDK v3's Kinesis client speaks by default (tests/js/kinesis.test.mjs drives it).
Here, with raw frames: the server's SETTINGS answer the preface, damaged or partial prefaces
and frames end only their own connection, and the connections are bounded."""

import socket
import struct
import time

import pytest

from conftest import ServerProcess, http_connection

pytestmark = pytest.mark.ddb_only("ddb-server's HTTP/2 connections")

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
SETTINGS = struct.pack(">I", 0)[1:] + b"\x04\x00" + struct.pack(">I", 0)  # empty SETTINGS


def connect(srv):
    s = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
    return s


def read_frame(s):
    head = b""
    while len(head) < 9:
        chunk = s.recv(9 - len(head))
        if not chunk:
            return None
        head += chunk
    length = int.from_bytes(head[:3], "big")
    payload = b""
    while len(payload) < length:
        chunk = s.recv(length - len(payload))
        if not chunk:
            return None
        payload += chunk
    return head[3], head[4], payload  # type, flags, payload


def healthy(srv):
    conn = http_connection(srv)
    conn.request("GET", "/")
    ok = conn.getresponse().status == 200
    conn.close()
    return ok


@pytest.fixture(scope="module")
def srv():
    s = ServerProcess("--in-memory").start()
    yield s
    s.stop_and_check()


def test_the_preface_is_answered_with_settings(srv):
    s = connect(srv)
    s.sendall(PREFACE + SETTINGS)
    frame = read_frame(s)
    assert frame is not None and frame[0] == 0x4  # the server's SETTINGS
    s.close()
    assert healthy(srv)


def test_damaged_frames_and_partial_prefaces_end_only_their_connection(srv):
    s = connect(srv)
    s.sendall(PREFACE + b"\xff" * 64)  # not a frame: GOAWAY or a close, then nothing
    s.settimeout(5)
    while True:
        frame = read_frame(s)
        if frame is None:
            break
    s.close()
    half = connect(srv)
    half.sendall(PREFACE[:10])  # then gone
    half.close()
    other = connect(srv)
    other.sendall(b"PRIX" + b" " * 40)  # not the preface: HTTP/1.1's 400
    other.settimeout(5)
    assert other.recv(64).startswith(b"HTTP/1.1 400")
    other.close()
    assert healthy(srv)


def test_http2_connections_are_bounded():
    srv = ServerProcess("--in-memory").start()
    try:
        open_ = []
        for _ in range(64):
            s = connect(srv)
            s.sendall(PREFACE + SETTINGS)
            assert read_frame(s)[0] == 0x4
            open_.append(s)
        extra = connect(srv)
        extra.sendall(PREFACE + SETTINGS)
        extra.settimeout(5)
        assert extra.recv(16) == b""  # refused: closed at once
        extra.close()
        assert healthy(srv)  # HTTP/1.1 is not affected
        for s in open_:
            s.close()
        time.sleep(0.2)
        again = connect(srv)
        again.sendall(PREFACE + SETTINGS)
        assert read_frame(again)[0] == 0x4
        again.close()
    finally:
        srv.stop_and_check()
