"""The emulator never hangs or drops a connection on a malformed request: it answers 400 in
Google's error shape; names and path parameters must match the discovery patterns."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator

import pytest
import requests

from pulumi_dws.testing.emulator import Emulator


@pytest.fixture
def emu() -> Iterator[Emulator]:
    with Emulator() as emulator:
        yield emulator


def raw(emu: Emulator, request: bytes) -> tuple[int, dict]:
    host, port = emu.url.split("//")[1].strip("/").split(":")
    with socket.create_connection((host, int(port)), timeout=5) as sock:
        sock.sendall(request)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(65536)
            assert chunk, "the emulator dropped the connection"
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        length = int(
            next(
                line.split(b":")[1]
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length")
            )
        )
        while len(body) < length:
            body += sock.recv(65536)
    return int(head.split(b" ")[1]), json.loads(body)


@pytest.mark.parametrize("length", [b"abc", b"-5", b"1e3", b"  "])
def test_a_bad_content_length_is_a_400(emu: Emulator, length: bytes) -> None:
    status, body = raw(
        emu,
        b"POST /compute/v1/projects/p/zones/us-central1-a/instances HTTP/1.1\r\nHost: x\r\n"
        b"Content-Length: " + length + b"\r\n\r\n{}",
    )
    assert status == 400 and body["error"]["code"] == 400


@pytest.mark.parametrize("seconds", ["abc", "inf", "nan", 1e300, -1, None, [1], True])
def test_a_clock_advance_that_is_not_a_finite_number_is_a_400(
    emu: Emulator, seconds: object
) -> None:
    before = emu.clock.now()
    answer = requests.post(emu.clock_url, data=json.dumps({"seconds": seconds}), timeout=5)
    assert answer.status_code == 400 and answer.json()["error"]["code"] == 400
    assert emu.clock.now() == before


def test_malformed_json_is_a_400(emu: Emulator) -> None:
    url = f"{emu.url}compute/v1/projects/p/zones/us-central1-a/instances"
    for payload in (b"{not json", b"\xff\xfe", b'{"name": '):
        answer = requests.post(url, data=payload, timeout=5)
        assert answer.status_code == 400, payload


@pytest.mark.parametrize("name", ["UPPER_case", "vm-1\n", "-vm", "vm_1", "a" * 64])
def test_names_must_match_the_discovery_pattern(emu: Emulator, name: str) -> None:
    emu["compute"].add_capacity("us-central1-a", "a3-highgpu-8g", 1)
    url = f"{emu.url}compute/v1/projects/p/zones/us-central1-a/instances"
    body = {
        "name": name,
        "machineType": "zones/us-central1-a/machineTypes/a3-highgpu-8g",
        "scheduling": {
            "provisioningModel": "FLEX_START",
            "maxRunDuration": {"seconds": "3600"},
            "onHostMaintenance": "TERMINATE",
            "automaticRestart": False,
        },
    }
    answer = requests.post(url, json=body, timeout=5)
    assert answer.status_code == 400 and "regex" in answer.json()["error"]["message"]
    assert emu["compute"].instances() == []


@pytest.mark.parametrize("segment", ["vm-1%0A", "VM", "vm%2Fx"])
def test_path_parameters_must_match_the_discovery_pattern(emu: Emulator, segment: str) -> None:
    url = f"{emu.url}compute/v1/projects/p/zones/us-central1-a/instances/{segment}"
    answer = requests.get(url, timeout=5)
    assert answer.status_code == 400 and "regex" in answer.json()["error"]["message"]


def test_answers_carry_the_virtual_date(emu: Emulator) -> None:
    emu.clock.advance(86400)
    answer = requests.get(emu.url + "_emulator/clock", timeout=5)
    assert answer.headers["Date"] == "Tue, 06 Jan 2026 00:00:00 GMT"
