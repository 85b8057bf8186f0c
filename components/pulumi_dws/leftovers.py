"""``dws leftovers --stack S``: what a stack made and does not track, and its removal.

A create marks what it makes with its stack (``dws-stack``, see
:mod:`pulumi_dws.providers.ownership`). When ``pulumi up`` dies mid-create (SIGKILL, a closed
laptop, an OOM kill), what the API had already made is marked but in no state. The next
``pulumi up`` with the same inputs adopts it; with changed inputs it is refused, and the error
names it. This finds every such *leftover* of a stack:

- Flex-start VMs: the project's instances labelled ``dws-stack=<mark>`` (one ``aggregatedList``);
- queued TPUs: the queued resources of each zone (``--zone``; default: every zone the catalog
  knows for TPUs) whose nodes carry the label;
- Slurm clusters, Cloud Batch jobs and Vertex AI custom jobs: those of each region
  (``--region``; default: the regions of the stack's clusters and jobs in its state) that carry
  it (a custom job as ``dws_stack``);
- resize requests: the requests of the stack's managed instance groups (those in its state),
  which carry no labels: a request the state does not hold is a leftover of the stack;

and drops those the stack's state holds (``--state``, the JSON of ``pulumi stack export``;
default: ``pulumi stack export --stack S`` is run). ``--delete`` removes each, entirely: a VM, a
queued TPU (its nodes too), a cluster, a job (cancelled first), a resize request and its VMs.

A model deployed on Flex-start carries no labels (its id derives from the stack's ownership
key): an interrupted deployment is found by the next ``pulumi up`` of the same inputs, not here.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .catalog.availability import TPU_ZONES
from .kinds.batch.provider import BatchJobProvider
from .kinds.flex_group.provider import MigResizeRequestProvider
from .kinds.flex_vm.provider import FlexStartVmProvider
from .kinds.queued_tpu.provider import QueuedTpuProvider
from .kinds.slurm.provider import SlurmClusterProvider
from .kinds.vertex_training.provider import VertexCustomJobProvider
from .providers.ownership import STACK_LABEL, stack_mark
from .providers.rest import pages
from .providers.rest_resource import RestResourceProvider

__all__ = [
    "Leftover",
    "LeftoverError",
    "Search",
    "find_leftovers",
    "remove",
    "stack_export",
    "tracked_ids",
]

_GROUP_TYPES = (
    "gcp:compute/instanceGroupManager:InstanceGroupManager",
    "gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager",
)
_REGIONAL_TYPES = (
    "pulumi-python:dynamic/dws:SlurmCluster",
    "pulumi-python:dynamic/dws:BatchJob",
    "pulumi-python:dynamic/dws:VertexCustomJob",
)


class LeftoverError(Exception):
    """The leftovers could not be listed (the state, or an API, could not be read)."""


@dataclass(frozen=True)
class Leftover:
    """One resource a stack marked and does not track: its kind (``FlexStartVm``), its id
    (its path: what ``pulumi import`` and the providers take) and its state."""

    kind: str
    id: str
    state: str


@dataclass
class Search:
    """Where to look: the Google ``project``, the TPU ``zones`` and Slurm ``regions`` (empty:
    the defaults the module docstring gives), and the stack's ``groups`` (from its state)."""

    project: str
    zones: list[str] = field(default_factory=list)
    regions: list[str] = field(default_factory=list)
    groups: list[dict[str, Any]] = field(default_factory=list)


def full_stack(stack: str) -> str:
    """``organization/project/stack`` of ``project/stack`` (the organization of Pulumi's DIY
    backends, ``organization``) or of an already full name."""
    parts = stack.split("/")
    if len(parts) == 3 and all(parts):
        return stack
    if len(parts) == 2 and all(parts):
        return f"organization/{stack}"
    raise LeftoverError(
        f"--stack {stack!r}: give PROJECT/STACK or ORGANIZATION/PROJECT/STACK (the stack's "
        "Pulumi project and name, as its marks were made)"
    )


def stack_export(stack: str) -> dict[str, Any]:
    """The stack's state: ``pulumi stack export --stack <stack>``."""
    try:
        done = subprocess.run(  # noqa: S603 - the Pulumi CLI, with the user's own stack name
            ["pulumi", "stack", "export", "--stack", stack],  # noqa: S607
            capture_output=True,
            text=True,
            check=False,
            timeout=300,
        )
    except FileNotFoundError:
        raise LeftoverError(
            "the Pulumi CLI is not on PATH: pass --state FILE (the output of `pulumi stack "
            f"export --stack {stack}`)"
        ) from None
    if done.returncode != 0:
        raise LeftoverError(f"`pulumi stack export --stack {stack}` failed: {done.stderr.strip()}")
    loaded: dict[str, Any] = json.loads(done.stdout)
    return loaded


def _resources(export: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    deployment = export.get("deployment") if isinstance(export, Mapping) else None
    found = deployment.get("resources") if isinstance(deployment, Mapping) else None
    return [r for r in found or [] if isinstance(r, Mapping)]


def tracked_ids(export: Mapping[str, Any]) -> set[str]:
    """The ids of every resource the stack's state holds."""
    return {str(r["id"]) for r in _resources(export) if r.get("id")}


def _within(id_: str) -> str:
    """An id without its project (``projects/P/``): Google names a resource by the project's
    id or its number alike."""
    parts = id_.split("/")
    return "/".join(parts[2:]) if len(parts) > 2 and parts[0] == "projects" else id_


def state_search(export: Mapping[str, Any], search: Search) -> Search:
    """``search`` completed from the state: the stack's groups, and (unless given) the regions
    of its clusters and jobs."""
    regions: list[str] = []
    for resource in _resources(export):
        outputs = resource.get("outputs") or {}
        if resource.get("type") in _GROUP_TYPES:
            search.groups.append(dict(outputs))
        elif resource.get("type") in _REGIONAL_TYPES:
            region = outputs.get("region")
            if isinstance(region, str) and region not in regions:
                regions.append(region)
    if not search.regions:
        search.regions = regions
    return search


def find_leftovers(stack: str, search: Search, tracked: set[str]) -> list[Leftover]:
    """What ``stack`` (``organization/project/stack``) marked that ``tracked`` (its state's
    ids) does not hold (see the module docstring)."""
    mark = stack_mark(full_stack(stack))
    found: list[Leftover] = []
    found += _vms(search.project, mark)
    found += _queued_tpus(search.project, mark, search.zones or _tpu_zones())
    found += _regional(
        "SlurmCluster",
        SlurmClusterProvider(),
        (search.project, mark, search.regions),
        ("modelDevelopmentClusters", "modelDevelopmentClusters"),
        lambda cluster: (cluster.get("clusterStatus") or {}).get("state"),
    )
    found += _regional(
        "BatchJob",
        BatchJobProvider(),
        (search.project, mark, search.regions),
        ("jobs", "jobs"),
        lambda job: (job.get("status") or {}).get("state"),
    )
    found += _regional(
        "VertexCustomJob",
        VertexCustomJobProvider(),
        (search.project, mark, search.regions),
        ("customJobs", "customJobs"),
        lambda job: job.get("state"),
    )
    found += _requests(search.groups)
    held = {_within(id_) for id_ in tracked}
    return [left for left in found if _within(left.id) not in held]


def _tpu_zones() -> list[str]:
    return sorted({zone for row in TPU_ZONES for zone in row.zones})


def _pages(provider: RestResourceProvider, path: str, key: str, **params: Any) -> Iterable[Any]:
    client = provider.client(params.pop("location", None))

    def fetch(token: str | None) -> Mapping[str, Any]:
        return client.get(path, **{**params, **({"pageToken": token} if token else {})})

    for page in pages(fetch, path):
        items = page.get(key)
        if isinstance(items, Mapping):  # aggregatedList: by scope
            for scoped in items.values():
                yield from (scoped or {}).get("instances") or []
        else:
            yield from items or []


def _vms(project: str, mark: str) -> list[Leftover]:
    provider = FlexStartVmProvider()
    path = f"projects/{project}/aggregated/instances"
    wanted = f'labels.{STACK_LABEL}="{mark}"'
    found = []
    for vm in _pages(provider, path, "items", filter=wanted):
        zone = str(vm.get("zone", "")).rsplit("/", 1)[-1]
        found.append(
            Leftover(
                "FlexStartVm",
                f"projects/{project}/zones/{zone}/instances/{vm['name']}",
                str(vm.get("status")),
            )
        )
    return found


def _queued_tpus(project: str, mark: str, zones: list[str]) -> list[Leftover]:
    from .kinds.queued_tpu.create import node_labels

    provider = QueuedTpuProvider()
    found = []
    for zone in zones:
        path = f"projects/{project}/locations/{zone}/queuedResources"
        for resource in _pages(provider, path, "queuedResources"):
            if node_labels(resource).get(STACK_LABEL) == mark:
                state = (resource.get("state") or {}).get("state")
                found.append(Leftover("QueuedTpu", str(resource["name"]), str(state)))
    return found


def _regional(
    kind: str,
    provider: RestResourceProvider,
    where: tuple[str, str, list[str]],
    collection: tuple[str, str],
    state_of: Callable[[Mapping[str, Any]], Any],
) -> list[Leftover]:
    """The resources of ``collection`` (its path segment, and the list answer's key) in each
    region of ``where`` (project, the stack's mark, regions) whose labels carry the mark under
    the resource's declared ``stack_label``."""
    project, mark, regions = where
    segment, key = collection
    label = provider.RESOURCE.stack_label
    found = []
    for region in regions:
        path = f"projects/{project}/locations/{region}/{segment}"
        for item in _pages(provider, path, key, location=region):
            if (item.get("labels") or {}).get(label) == mark:
                found.append(Leftover(kind, str(item["name"]), str(state_of(item))))
    return found


def _requests(groups: list[dict[str, Any]]) -> list[Leftover]:
    provider = MigResizeRequestProvider()
    found = []
    for group in groups:
        project, name = group.get("project"), group.get("name")
        where = f"zones/{group['zone']}" if group.get("zone") else f"regions/{group.get('region')}"
        path = f"projects/{project}/{where}/instanceGroupManagers/{name}/resizeRequests"
        for request in _pages(provider, path, "items"):
            found.append(
                Leftover("MigResizeRequest", f"{path}/{request['name']}", str(request["state"]))
            )
    return found


_PROVIDERS: dict[str, type[RestResourceProvider]] = {
    "FlexStartVm": FlexStartVmProvider,
    "QueuedTpu": QueuedTpuProvider,
    "SlurmCluster": SlurmClusterProvider,
    "BatchJob": BatchJobProvider,
    "VertexCustomJob": VertexCustomJobProvider,
    "MigResizeRequest": MigResizeRequestProvider,
}


def remove(leftover: Leftover) -> str:
    """Delete ``leftover`` entirely (a resize request: its VMs too), with its provider's own
    delete; what was done."""
    provider = _PROVIDERS[leftover.kind]()
    target = provider.target_of_id(leftover.id, {})
    gone = provider.delete_and_wait(provider.client(target.location), target)
    return "deleted" if gone is not False else "already gone"
