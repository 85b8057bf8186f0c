"""No error, warning or log line shows a secret value: ``[secret]`` stands for it.

- A component's argument that is a secret Output and fails its check once known (a label value,
  a zone, a duration) is reported ``[secret]``, with what a message derives from it too.
- A dynamic provider never learns which inputs were secret (Pulumi's Python host takes none:
  the engine strips the marks), so what may be secret (metadata, labels, scripts...) never
  shows in its errors, even when Google's own answer echoes it; through the real host.
- The ownership label is a keyed hash that leaves secret-bearing inputs out: two bodies that
  differ only in a startup script get the same label, so the label tells nothing about it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pulumi
import pytest
from emulator_helpers import host_inputs as vm_inputs
from queued_tpu_helpers import props as tpu_inputs

from pulumi_dws import CalendarReservation, FlexStartGroup, FlexStartInstance
from pulumi_dws.errors import DwsValidationError
from pulumi_dws.kinds.flex_vm.provider import FlexStartVmProvider
from pulumi_dws.kinds.queued_tpu.create import create_key
from pulumi_dws.testing import GcpMocks
from pulumi_dws.testing.dynamic_host import DynamicProviderError, DynamicProviderHost, secret, urn
from pulumi_dws.testing.emulator import Emulator

SCRIPT = "curl -H 'Authorization: s3cr3t-token-42' https://internal.example/boot"
BASE: dict[str, Any] = {
    "zone": "us-central1-a",
    "machine_type": "a3-highgpu-8g",
    "max_run_duration": "1d",
}


@pytest.mark.parametrize(
    ("args", "secret_text"),
    [
        (lambda: {"labels": {"team": pulumi.Output.secret("Secret Team Name")}}, "Secret Team"),
        (lambda: {"zone": pulumi.Output.secret("us-moon1-z")}, "moon1"),
        (lambda: {"max_run_duration": pulumi.Output.secret("9d")}, "9d"),
    ],
    ids=["label-value", "zone", "duration"],
)
def test_a_secret_argument_that_fails_once_known_is_shown_as_secret(
    args: Any, secret_text: str
) -> None:
    """(The Outputs are made inside the program, on its event loop.)"""
    with pytest.raises(DwsValidationError) as info:
        GcpMocks().run(lambda: FlexStartInstance("t", {**BASE, **args()}))
    message = str(info.value)
    assert "[secret]" in message and secret_text not in message


@pytest.mark.parametrize(
    ("zone", "hints"),
    [
        ("us-eest5-a", ("did you mean", "us-east5")),  # a suggestion made from the secret
        ("us-west4-q", ("zones are", "us-west4")),  # the zones of the secret's region
    ],
    ids=["suggestion", "zones-of-its-region"],
)
def test_nothing_built_from_a_secret_is_suggested(zone: str, hints: tuple[str, ...]) -> None:
    """A secret zone refused by the table gets no ``did you mean us-east5-a?`` and no list of
    its region's zones: either tells the value as well as the value itself. The same zone not
    secret gets them."""
    with pytest.raises(DwsValidationError) as info:
        GcpMocks().run(lambda: FlexStartInstance("t", {**BASE, "zone": pulumi.Output.secret(zone)}))
    message = str(info.value)
    assert message.startswith("zone: [secret] is not a")
    for hint in hints:
        assert hint not in message, message
    with pytest.raises(DwsValidationError) as plain:
        GcpMocks().run(lambda: FlexStartInstance("t", {**BASE, "zone": zone}))
    assert all(hint in str(plain.value) for hint in hints)


CALENDAR: dict[str, Any] = {
    "zone": "us-central1-a",
    "machine_type": "a3-highgpu-8g",
    "count": 2,
    "start_time": "2027-03-01T00:00:00Z",
}
GROUP: dict[str, Any] = {"machine_type": "a3-highgpu-8g", "count": 4, "run_duration": "3d"}


@pytest.mark.parametrize(
    ("make", "secret_text"),
    [
        (
            lambda: CalendarReservation(
                "c", {**CALENDAR, "end_time": pulumi.Output.secret("2027-02-11T09:30:00Z")}
            ),
            "2027-02-11",
        ),
        (
            lambda: FlexStartGroup(
                "g",
                {**GROUP, "region": pulumi.Output.secret("us-west4"), "zones": ["us-east1-b"]},
            ),
            "us-west4",
        ),
    ],
    ids=["calendar-end-time", "group-region-quoted-by-a-zone"],
)
def test_a_secret_checked_with_another_value_is_shown_as_secret(
    make: Any, secret_text: str
) -> None:
    """A check of two values (a window's end against its start, a zone against its region):
    the secret one is ``[secret]`` even where the error is about the other."""
    with pytest.raises(DwsValidationError) as info:
        GcpMocks().run(make)
    message = str(info.value)
    assert "[secret]" in message and secret_text not in message


def test_the_same_value_not_secret_is_shown() -> None:
    with pytest.raises(DwsValidationError) as info:
        GcpMocks().run(
            lambda: FlexStartInstance("t", {**BASE, "zone": pulumi.Output.from_input("us-moon1-z")})
        )
    assert "us-moon1-z" in str(info.value)


@pytest.fixture
def world() -> Iterator[tuple[Emulator, DynamicProviderHost]]:
    with Emulator() as emu:
        env = {"DWS_COMPUTE_ENDPOINT": emu.url, "DWS_VIRTUAL_CLOCK_URL": emu.clock_url}
        with DynamicProviderHost(FlexStartVmProvider(), env=env) as host:
            yield emu, host


def test_googles_answer_that_echoes_a_secret_startup_script_is_redacted_through_the_host(
    world: tuple[Emulator, DynamicProviderHost],
) -> None:
    emu, host = world
    inputs = vm_inputs()
    inputs["body"]["metadata"] = {"items": [{"key": "startup-script", "value": secret(SCRIPT)}]}
    emu.lie(
        lambda r: r.method == "POST" and r.path.endswith("/instances"),
        status=400,
        message=f"Invalid value for field 'resource.metadata.items[0].value': '{SCRIPT}'.",
        acted=False,
    )
    with pytest.raises(DynamicProviderError) as info:
        host.create(urn("pulumi-python:dynamic/dws:FlexStartVm", "vm"), inputs)
    message = info.value.message
    assert "rejected by Compute Engine" in message and "[secret]" in message
    for text in (message, host.stderr, host.stdout):
        assert "s3cr3t-token-42" not in text


def test_a_secret_inside_a_longer_word_takes_the_whole_word_through_the_host(
    world: tuple[Emulator, DynamicProviderHost],
) -> None:
    """A short secret (a label value ``serve``, a script ``hunter2``) inside a longer word of the
    message (``reserved``, Google's echo ``hunter2x``): the whole word is ``[secret]``. Scrubbing
    only the secret's letters left ``re[secret]d`` and ``[secret]x``: what stays of the word
    tells the reader the secret (the message's words are known)."""
    emu, host = world
    inputs = vm_inputs()
    inputs["body"]["labels"] = {**inputs["body"].get("labels", {}), "purpose": "serve"}
    inputs["body"]["metadata"] = {"items": [{"key": "startup-script", "value": secret("hunter2")}]}
    emu.lie(
        lambda r: r.method == "POST" and r.path.endswith("/instances"),
        status=400,
        message="Invalid value 'hunter2x' for field 'resource.metadata'; that name is reserved.",
        acted=False,
    )
    with pytest.raises(DynamicProviderError) as info:
        host.create(urn("pulumi-python:dynamic/dws:FlexStartVm", "vm"), inputs)
    message = info.value.message
    assert "Invalid value '[secret]' for field" in message
    assert "that name is [secret]." in message
    assert not re.search(r"\w\[secret\]|\[secret\]\w", message), message


def test_the_ownership_label_says_nothing_about_a_startup_script() -> None:
    plain = tpu_inputs()
    scripted = tpu_inputs()
    scripted["body"]["tpu"]["nodeSpec"][0]["node"]["metadata"] = {"startup-script": SCRIPT}
    other = tpu_inputs()
    other["body"]["tpu"]["nodeSpec"][0]["node"]["acceleratorType"] = "v6e-8"
    assert create_key(plain) == create_key(scripted)  # the script shapes no label
    assert create_key(plain) != create_key(other)  # what makes the slice does
    owned = {**plain, "owner": {"organization": "o", "project": "p", "stack": "dev", "name": "q"}}
    assert create_key(owned) != create_key(plain)  # keyed with the stack that creates
