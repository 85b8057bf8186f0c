"""The ComputeClass kind's policy rules (the kind carries them: :data:`RULES`).

* ``compute-class-flex-start``: a Flex-start priority has a max run duration inside its limit,
  is not Spot, and recycles its nodes before they end.
* ``autopilot-gpu-workload``: on Autopilot, a Pod that requests GPUs selects a ComputeClass with
  a GPU rule or a GPU type, and no node pool (GKE Warden refuses it otherwise:
  GoogleCloudPlatform/ai-on-gke#983).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ...errors import DwsValidationError
from ...policy.rules.base import DURATION_PATTERN, Finding, Option, Rule
from ...policy.rules.common import duration_problem
from ...policy.values import UNKNOWN, as_bool, dig, seconds_of
from ...policy.view import Context, ResourceView
from . import limits as _rows  # noqa: F401 (the rows the rules read)

__all__ = ["RULES", "FLEX_START", "AUTOPILOT_GPU", "pod_specs"]

CLASS_TYPE = "kubernetes:cloud.google.com/v1:ComputeClass"
CLUSTER_TYPE = "gcp:container/cluster:Cluster"
COMPUTE_CLASS_LABEL = "cloud.google.com/compute-class"
ACCELERATOR_LABEL = "cloud.google.com/gke-accelerator"
NODE_POOL_LABEL = "cloud.google.com/gke-nodepool"
GPU_RESOURCE = "nvidia.com/gpu"
_LIMIT = "compute_class.flex_start_max_run_duration"


def _flex_start(view: ResourceView, cfg: dict[str, Any], ctx: Context) -> Iterator[Finding]:
    if view.type != CLASS_TYPE:
        return
    rules = dig(view.props, "spec", "priorities")
    if not isinstance(rules, list):
        return
    for i, rule in enumerate(rules):
        if not isinstance(rule, Mapping) or as_bool(dig(rule, "flexStart", "enabled")) is not True:
            continue
        field = f"spec.priorities[{i}].maxRunDurationSeconds"
        raw = rule.get("maxRunDurationSeconds")
        if raw is None:
            yield Finding(
                f"{view.label}: {field} is missing on a Flex-start priority; its nodes then run "
                "up to GKE's 7-day default: set one (1s to 7d) so the class's GPU-hours are "
                "bounded"
            )
        else:
            problem = duration_problem(raw, field, _LIMIT, cfg.get("maxRunDuration"))
            if problem:
                yield Finding(f"{view.label}: {problem}")
        if as_bool(rule.get("spot")) is True:
            yield Finding(
                f"{view.label}: spec.priorities[{i}] is Flex-start and Spot; the CRD refuses "
                "it (Flex Start provisioning model is incompatible with Spot)"
            )
        lead = dig(rule, "flexStart", "nodeRecycling", "leadTimeSeconds")
        try:
            run = seconds_of(raw, field) if raw is not None else None
            lead_s = seconds_of(lead, "leadTimeSeconds") if lead is not None else None
        except DwsValidationError:
            continue  # reported above
        if isinstance(run, int) and isinstance(lead_s, int) and lead_s >= run:
            yield Finding(
                f"{view.label}: spec.priorities[{i}].flexStart.nodeRecycling.leadTimeSeconds "
                f"({lead_s}) is not shorter than maxRunDurationSeconds ({run}): GKE would look "
                "for a replacement before the node starts"
            )


def pod_specs(value: Any, path: str = "") -> Iterator[tuple[str, Mapping[str, Any]]]:
    """Every Pod spec inside a Kubernetes object (a Job's, a JobSet's replicated jobs', a
    RayJob's head and workers'...): a mapping with a ``containers`` list, with its path."""
    if isinstance(value, Mapping):
        if isinstance(value.get("containers"), list):
            yield path.rstrip("."), value
            return
        for key, item in value.items():
            yield from pod_specs(item, f"{path}{key}.")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from pod_specs(item, f"{path.rstrip('.')}[{i}].")


def _requests_gpus(spec: Mapping[str, Any]) -> Any:
    found: Any = False
    for container in [*(spec.get("containers") or []), *(spec.get("initContainers") or [])]:
        for kind in ("requests", "limits"):
            amounts = dig(container, "resources", kind)
            if amounts is UNKNOWN:
                found = UNKNOWN
            elif isinstance(amounts, Mapping) and amounts.get(GPU_RESOURCE) not in (None, 0, "0"):
                return True
    return found


def _autopilot(views: Sequence[ResourceView], cfg: Mapping[str, Any]) -> bool:
    if cfg.get("autopilot"):
        return True
    return any(
        v.type == CLUSTER_TYPE and as_bool(v.props.get("enableAutopilot")) is True for v in views
    )


def _gpu_classes(views: Sequence[ResourceView]) -> dict[str, bool]:
    """The stack's ComputeClasses by name: whether one has a GPU priority."""
    out: dict[str, bool] = {}
    for v in views:
        if v.type != CLASS_TYPE:
            continue
        name = dig(v.props, "metadata", "name")
        rules = dig(v.props, "spec", "priorities")
        if isinstance(name, str) and isinstance(rules, list):
            out[name] = any(isinstance(r, Mapping) and "gpu" in r for r in rules)
    return out


def _autopilot_gpu(
    views: Sequence[ResourceView], cfg: dict[str, Any], ctx: Context
) -> Iterator[Finding]:
    if not _autopilot(views, cfg):
        return
    classes = _gpu_classes(views)
    for v in views:
        if not v.type.startswith("kubernetes:") or v.type == CLASS_TYPE:
            continue
        for path, spec in pod_specs(v.props):
            if _requests_gpus(spec) is not True:
                continue
            selector = spec.get("nodeSelector")
            if selector is UNKNOWN:
                continue
            selector = selector if isinstance(selector, Mapping) else {}
            where = f"{v.label}: {path}.nodeSelector"
            if NODE_POOL_LABEL in selector:
                yield Finding(
                    f"{where} names a node pool ({NODE_POOL_LABEL}), which Autopilot refuses; "
                    "select a ComputeClass instead",
                    v,
                )
            named = selector.get(COMPUTE_CLASS_LABEL)
            if isinstance(named, str) and classes.get(named) is False:
                yield Finding(
                    f"{where} selects ComputeClass {named}, which has no GPU priority: "
                    "Autopilot refuses GPU Pods on it",
                    v,
                )
            if named is None and ACCELERATOR_LABEL not in selector:
                yield Finding(
                    f"{where} names neither a ComputeClass ({COMPUTE_CLASS_LABEL}) nor a GPU "
                    f"type ({ACCELERATOR_LABEL}): Autopilot refuses a Pod that requests "
                    "nvidia.com/gpu without one (GoogleCloudPlatform/ai-on-gke#983)",
                    v,
                )


FLEX_START = Rule(
    name="compute-class-flex-start",
    description=(
        "A ComputeClass's Flex-start priorities set maxRunDurationSeconds inside the 7-day "
        "Flex-start limit (limits row compute_class.flex_start_max_run_duration), are not "
        "Spot, and recycle nodes before they end."
    ),
    level="mandatory",
    scope="resource",
    check=_flex_start,
    options=(
        Option(
            "maxRunDuration",
            {
                "type": "string",
                "pattern": DURATION_PATTERN,
                "description": "A cap stricter than the limit, e.g. 3d (default: none).",
            },
        ),
    ),
    remediation="Give each flex_start priority a max_run_duration (pulumi_dws ComputeClass).",
    note=(
        "a ComputeClass's Flex-start priorities: a max run duration within 7 da"
        "ys, not Spot, node recycling before the end"
    ),
)

AUTOPILOT_GPU = Rule(
    name="autopilot-gpu-workload",
    description=(
        "On Autopilot (a Cluster with enableAutopilot in the stack, or config autopilot), a "
        "Pod that requests GPUs selects a ComputeClass with a GPU priority or a GPU type "
        "(cloud.google.com/gke-accelerator), and no node pool."
    ),
    level="mandatory",
    scope="stack",
    check=_autopilot_gpu,
    options=(
        Option(
            "autopilot",
            {"type": "boolean", "description": "The stack's workloads run on Autopilot."},
            False,
        ),
    ),
    remediation=(
        "Pass compute_class= (or accelerator_type=) and autopilot=True to the pulumi_dws job "
        "helpers, or set the node selector yourself."
    ),
    note=(
        "on Autopilot a GPU Pod selects a ComputeClass with a GPU rule or a GPU"
        " type, never a node pool"
    ),
)

RULES: tuple[Rule, ...] = (FLEX_START, AUTOPILOT_GPU)
