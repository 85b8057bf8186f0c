"""A dynamic provider lives in users' state as a pickle that names its class's module: stacks
deployed with an earlier release must still load theirs after a provider class moves."""

from __future__ import annotations

import base64
import datetime as dt

import dill
import pytest
from pulumi.dynamic.dynamic import serialize_provider

from pulumi_dws import clock
from pulumi_dws.kinds.flex_group.provider import MigResizeRequestProvider
from pulumi_dws.kinds.flex_vm.provider import FlexStartVmProvider
from pulumi_dws.kinds.queued_tpu.provider import QueuedTpuProvider
from pulumi_dws.kinds.slurm.provider import SlurmClusterProvider
from pulumi_dws.providers.stable_time import StableTimeProvider

# ``__provider`` values as pulumi.dynamic serialized them before the classes moved (base64 of
# dill pickles naming e.g. pulumi_dws.relative_time._StableTimeProvider).
STATE_BEFORE_THE_MOVE = {
    "StableTime": (
        "gASVNwAAAAAAAACMGHB1bHVtaV9kd3MucmVsYXRpdmVfdGltZZSME19TdGFibGVUaW1lUHJvdmlkZXKUk5QpgZQu",
        StableTimeProvider,
    ),
    "SlurmCluster": (
        "gASVXgAAAAAAAACMGnB1bHVtaV9kd3MucHJvdmlkZXJzLnNsdXJtlIwUU2x1cm1DbHVzdGVyUHJvdmlkZXKUk5Qp"
        "gZR9lCiMCGVuZHBvaW50lE6MB3RpbWVvdXSUR0C8IAAAAAAAdWIu",
        SlurmClusterProvider,
    ),
    "FlexStartVm": (
        "gASVOwAAAAAAAACMHHB1bHVtaV9kd3MucHJvdmlkZXJzLmZsZXhfdm2UjBNGbGV4U3RhcnRWbVByb3ZpZGVylJOUKYGULg==",
        FlexStartVmProvider,
    ),
    # As its first release writes it: the pickle a later move must keep loading.
    "MigResizeRequest": (
        "gASVQwAAAAAAAACMH3B1bHVtaV9kd3MucHJvdmlkZXJzLm1pZ19yZXNpemWUjBhNaWdSZXNpemVSZXF1ZXN0UHJv"
        "dmlkZXKUk5QpgZQu",
        MigResizeRequestProvider,
    ),
    # As its first release writes it: the pickle a later move must keep loading.
    "QueuedTpu": (
        "gASVYAAAAAAAAACMH3B1bHVtaV9kd3MucHJvdmlkZXJzLnF1ZXVlZF90cHWUjBFRdWV1ZWRUcHVQcm92aWRlcpST"
        "lCmBlH2UKIwIZW5kcG9pbnSUTowHdGltZW91dJRHQLwgAAAAAAB1Yi4=",
        QueuedTpuProvider,
    ),
}


@pytest.mark.parametrize("name", sorted(STATE_BEFORE_THE_MOVE))
def test_a_provider_pickled_before_its_class_moved_still_loads(name: str) -> None:
    text, cls = STATE_BEFORE_THE_MOVE[name]
    provider = dill.loads(base64.b64decode(text))
    assert isinstance(provider, cls)


def test_the_old_stable_time_provider_still_creates_and_diffs() -> None:
    text, _ = STATE_BEFORE_THE_MOVE["StableTime"]
    provider = dill.loads(base64.b64decode(text))
    with clock.frozen(dt.datetime(2030, 1, 1, 12, tzinfo=dt.timezone.utc)):
        created = provider.create({"offset_seconds": 86400, "align_to_day": True})
    assert created.id == "2030-01-02T00:00:00Z"
    assert provider.diff("x", {"offset_seconds": 1}, {"offset_seconds": 2}).replaces == [
        "offset_seconds"
    ]


@pytest.mark.parametrize(
    "cls",
    [
        StableTimeProvider,
        SlurmClusterProvider,
        FlexStartVmProvider,
        MigResizeRequestProvider,
        QueuedTpuProvider,
    ],
)
def test_providers_pickle_by_reference_to_their_module(cls: type) -> None:
    """By reference (the class's module and name), not by value: the state stays small and a
    release's fixes reach providers pickled by an earlier one."""
    pickled = base64.b64decode(serialize_provider(cls()))
    assert cls.__module__.encode() in pickled and cls.__name__.encode() in pickled
    assert isinstance(dill.loads(pickled), cls)


@pytest.mark.parametrize("name", sorted(set(STATE_BEFORE_THE_MOVE) - {"StableTime"}))
def test_an_old_rest_provider_pickle_builds_its_client_from_class_defaults(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pickles written before the REST providers shared a base carry ``endpoint`` and
    ``timeout`` (or nothing at all): what they lack comes from the class."""
    from pulumi.dynamic import ConfigureRequest

    for var in ("DWS_COMPUTE_ENDPOINT", "DWS_AIPLATFORM_ENDPOINT", "DWS_TPU_ENDPOINT"):
        monkeypatch.delenv(var, raising=False)
    text, _ = STATE_BEFORE_THE_MOVE[name]
    provider = dill.loads(base64.b64decode(text))
    assert provider.timeout == 7200.0
    provider.configure(ConfigureRequest({provider.API.config_key: "http://127.0.0.1:9/"}))
    client = provider.client("us-central1")
    assert client.base_url == "http://127.0.0.1:9/" + provider.API.path
    assert client.poll.initial > 0  # the default poll policy
