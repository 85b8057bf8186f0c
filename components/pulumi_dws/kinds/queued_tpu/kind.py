"""Cloud TPU queued resources: the ``pulumi-python:dynamic/dws:QueuedTpu`` a ``QueuedTpu``
registers, whose ``body`` is the Cloud TPU ``v2alpha1`` ``QueuedResource``, and pulumi-gcp's
``gcp.tpu.V2QueuedResource`` (the ``v2`` API: no provisioning model, run duration, queue window
or labels; its inputs spell the node list ``nodeSpecs``). Capacity is counted in TPU chips
(never GPUs): the slice's chips times its slices, for the Flex-start run duration (Spot,
standard and reservation-bound requests have none: unbounded; a reservation-bound one is
counted on its reservation).

The rules read a queued resource as its TPU VMs (:class:`~pulumi_dws.policy.shapes.VmSpec`
with the Cloud TPU spelling, :data:`CLOUD_TPU_VM`): the run-duration, queue-window, public-IP
and label rules check it as they check any VM.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ... import catalog
from ...errors import DwsValidationError
from ...plan.summary import duration_text, gpu_hours
from ...policy.capacity import CapacityItem, consumer_item, run_hours
from ...policy.facts import vm_facts
from ...policy.shapes import VmFields, VmSpec, body_of
from ...policy.values import UNKNOWN, as_int, dig, pick
from ...policy.view import ResourceView
from ...registry import CapacityKind, Ref, ResourceType, register
from .component import QueuedTpu, QueuedTpuArgs, QueuedTpuSpec
from .provider import TYPE_TOKEN as QUEUED_TPU

__all__ = ["KIND", "RAW_QUEUED_RESOURCE", "CLOUD_TPU_VM", "tpu_request", "read_queued_tpu"]

_AIDS = "pulumi_dws.kinds.queued_tpu.testing"
RAW_QUEUED_RESOURCE = "gcp:tpu/v2QueuedResource:V2QueuedResource"
_NODE = "tpu.nodeSpec[0].node"


def _cloud_tpu_fields(node: str, *, labels: bool = True) -> VmFields:
    return VmFields(
        machine_type=f"{node}.acceleratorType",
        max_run_duration="runDuration.maxRunDuration",
        max_run_limit="queued_tpu.max_run_duration",
        queue_window="queueingPolicy.validUntilDuration",
        queue_window_limit="queued_tpu.request_valid_for",
        without_window="the request waits as long as Google keeps it",
        labels=f"{node}.labels" if labels else None,
        external_ips=f"{node}.networkConfig.enableExternalIps",
    )


CLOUD_TPU_VM = _cloud_tpu_fields(_NODE)
"""Where a Cloud TPU ``QueuedResource`` keeps its VMs' facts, and the limits that bound them."""
# pulumi-gcp's spelling; its V2QueuedResource (the v2 API) has no labels
_RAW_TPU_VM = _cloud_tpu_fields("tpu.nodeSpecs[0].node", labels=False)


def _raw(view: ResourceView) -> bool:
    return view.type == RAW_QUEUED_RESOURCE


def _node_spec(view: ResourceView) -> Any:
    body = body_of(view)
    if body is UNKNOWN:
        return UNKNOWN
    return dig(pick(dig(body, "tpu"), "nodeSpec", "nodeSpecs"), 0)


def tpu_request(view: ResourceView) -> dict[str, Any]:
    """The facts of a queued resource: ``accelerator_type``, ``generation``, ``chips`` per
    slice, ``slices``, ``model`` (provisioning model), ``max_run``, ``window``,
    ``reservation``, ``zone`` (each UNKNOWN while not known)."""
    body = body_of(view)
    if body is UNKNOWN:
        body = {"tpu": UNKNOWN, "provisioningModel": UNKNOWN}
    spec = _node_spec(view)
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


def _machine_type(accelerator: Any) -> Any:
    """The machine type of the slice's VMs (``ct6e-standard-4t`` for ``v6e-16``), so the rules
    know them for TPU VMs; the accelerator type itself when the catalog does not know it."""
    if not isinstance(accelerator, str):
        return accelerator
    try:
        return catalog.cloud_tpu_slice("acceleratorType", accelerator).machine_type
    except DwsValidationError:
        return accelerator


def read_queued_tpu(view: ResourceView) -> VmSpec:
    """The TPU VMs a queued resource asks for, as the rules read VMs (fields named in the
    Cloud TPU spelling: ``body.runDuration.maxRunDuration``...)."""
    facts = tpu_request(view)
    node = dig(_node_spec(view), "node")
    model = facts["model"]
    return VmSpec(
        prefix="body." if "body" in view.props else "",
        machine_type=_machine_type(facts["accelerator_type"]),
        provisioning_model=model,
        max_run_duration=facts["max_run"],
        queue_window=facts["window"],
        network_interfaces=None,
        accelerators=UNKNOWN if node is UNKNOWN else None,
        labels=dig(node, "labels"),
        reservation_consumer=UNKNOWN if model is UNKNOWN else model == "RESERVATION_BOUND",
        zone=facts["zone"],
        reservation=facts["reservation"],
        external_ips=dig(node, "networkConfig", "enableExternalIps"),
        fields=_RAW_TPU_VM if _raw(view) else CLOUD_TPU_VM,
    )


def _parts(view: ResourceView) -> Iterator[Any]:
    """The queued resource's TPU VMs (:func:`read_queued_tpu`) and the facts the general rules
    check of them."""
    vm = read_queued_tpu(view)
    yield vm
    yield from vm_facts(view, vm)


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
                parts=_parts,
                capacity=_capacity,
                summary=_summary,
                mock=Ref(f"{_AIDS}:queued_tpu"),
            ),
            ResourceType(
                "queued_tpu",
                types=(RAW_QUEUED_RESOURCE,),
                parts=_parts,
                capacity=_capacity,
                summary=_summary,
                mock=Ref(f"{_AIDS}:raw_queued_resource"),
            ),
        ),
        test_aids=_AIDS,
    )
)
