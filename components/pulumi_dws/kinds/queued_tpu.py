"""Cloud TPU queued resources (``QueuedTpu``): the ``pulumi-python:dynamic/dws:QueuedTpu`` it
registers, whose ``body`` is the Cloud TPU ``v2alpha1`` ``QueuedResource``. Capacity is counted
in TPU chips (never GPUs): the slice's chips times its slices, for the Flex-start run duration
(Spot and reservation-bound requests have none: unbounded; a reservation-bound one is counted
on its reservation)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from .. import catalog
from ..errors import DwsValidationError
from ..plan.summary import duration_text, gpu_hours
from ..policy.capacity import CapacityItem, consumer_item, run_hours
from ..policy.shapes import body_of
from ..policy.values import UNKNOWN, as_int, dig
from ..policy.view import ResourceView
from ..providers.queued_tpu import TYPE_TOKEN as QUEUED_TPU
from ..queued_tpu import QueuedTpu, QueuedTpuArgs, QueuedTpuSpec
from ..registry import CapacityKind, Ref, ResourceType, register

__all__ = ["KIND", "tpu_request"]

_AIDS = "pulumi_dws.testing.kinds.queued_tpu"


def tpu_request(view: ResourceView) -> dict[str, Any]:
    """The facts of a queued resource's body: ``generation``, ``chips`` per slice, ``slices``,
    ``model`` (provisioning model), ``max_run``, ``window``, ``reservation``, ``zone`` (each
    UNKNOWN while not known)."""
    body = body_of(view)
    if body is UNKNOWN:
        body = {"tpu": UNKNOWN, "provisioningModel": UNKNOWN}
    spec = dig(body, "tpu", "nodeSpec", 0)
    accelerator = dig(spec, "node", "acceleratorType")
    generation: Any = UNKNOWN
    chips: Any = UNKNOWN
    if isinstance(accelerator, str):
        try:
            tpu = catalog.cloud_tpu_slice("acceleratorType", accelerator)
            generation, chips = tpu.generation.name, tpu.chips
        except DwsValidationError:
            generation, chips = accelerator, None
    elif accelerator is None:
        generation = chips = None
    slices = as_int(dig(spec, "multiNodeParams", "nodeCount"))  # a float through the engine
    return {
        "accelerator_type": accelerator,
        "generation": generation,
        "chips": chips,
        "slices": 1 if slices is None else slices,
        "model": dig(body, "provisioningModel"),
        "max_run": dig(body, "runDuration", "maxRunDuration"),
        "window": dig(body, "queueingPolicy", "validUntilDuration"),
        "reservation": dig(body, "reservationName"),
        "zone": view.props.get("zone"),
    }


def _capacity(view: ResourceView) -> Iterator[CapacityItem]:
    facts = tpu_request(view)
    if facts["chips"] is None:
        return
    model = facts["model"]
    flex = UNKNOWN if model is UNKNOWN else model == "FLEX_START"
    notes: list[str] = []
    hours, bounded = run_hours(
        facts["max_run"], "runDuration.maxRunDuration", flex, "queued_tpu.max_run_duration", notes
    )
    consumer = UNKNOWN if model is UNKNOWN else model == "RESERVATION_BOUND"
    slices = facts["slices"]
    yield consumer_item(
        view,
        "queued_tpu",
        "",
        consumer,
        notes,
        tpu_chips=(facts["generation"], facts["chips"]),
        machine=None,
        units=slices if isinstance(slices, int) else None,  # UNKNOWN or not a number
        hours=hours,
        bounded=bounded,
    )


def _summary(view: ResourceView) -> dict[str, Any]:
    facts = tpu_request(view)
    return {
        "zone": facts["zone"],
        "accelerator_type": facts["accelerator_type"],
        "slices": facts["slices"],
        "provisioning_model": facts["model"],
        "max_run_duration": duration_text(facts["max_run"]),
        "queue_window": duration_text(facts["window"]),
        "reservation": facts["reservation"],
        "state": view.props.get("state"),
        **gpu_hours(view),
    }


def _looks_like_a_queued_resource(view: ResourceView) -> bool:
    body = body_of(view)
    return isinstance(body, Mapping) and isinstance(body.get("tpu"), Mapping)


KIND = register(
    CapacityKind(
        name="QueuedTpu",
        component=QueuedTpu,
        args=QueuedTpuArgs,
        spec=QueuedTpuSpec,
        key="queued_tpus",
        resources=(
            ResourceType(
                "queued_tpu",
                types=(QUEUED_TPU,),
                dynamic_names=("queuedtpu", "queuedresource"),
                recognise=_looks_like_a_queued_resource,
                capacity=_capacity,
                summary=_summary,
                mock=Ref(f"{_AIDS}:queued_tpu"),
            ),
        ),
        test_aids=_AIDS,
    )
)
