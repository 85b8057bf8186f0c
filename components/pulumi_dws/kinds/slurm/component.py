"""``SlurmCluster``: a managed Slurm cluster on Vertex AI whose GPU partitions are filled by DWS
Flex-start VMs (seed 002, ``modelDevelopmentClusters`` v1beta1).

It declares, as children named ``<name>-<role>``:

* ``<name>-agent-instance-admin`` / ``<name>-agent-sa-user``: the least-privilege IAM grants the
  Google APIs service agent (``PROJECT_NUMBER@cloudservices.gserviceaccount.com``) needs to run the
  cluster's managed instance groups (``roles/compute.instanceAdmin.v1`` and
  ``roles/iam.serviceAccountUser``, never ``roles/editor``), ordered before the cluster; turn
  them off with ``grant_service_agent_roles: False`` when they are managed elsewhere. They are
  kept when the cluster is destroyed (``retain_on_delete``): the binding they add is shared with
  every other cluster of the project, and may have existed before;
* ``<name>-home``: a ``gcp.filestore.Instance`` for ``/home``, unless ``home_directory_storage``
  names an existing one;
* ``<name>-cluster``: the cluster itself, a dynamic resource
  (``pulumi-python:dynamic/dws:SlurmCluster``) whose ``body`` input is the create request,
  field for field the ``cluster_config.json`` of seed 002.

Node pools: a GPU pool is Flex-start by default, a CPU-only pool ``ON_DEMAND`` (the API's own
default for CPU pools); ``RESERVATION`` pools consume a reservation, e.g. a Calendar-mode one
(``reservation``: a :class:`~pulumi_dws.CalendarReservation`, a name or a path), through
``machine_spec.reservation_affinity``. Every machine type (the login pool's too) must be known
to :mod:`pulumi_dws.catalog`. The definitions checked are Google's create-cluster docs and the
``ModelDevelopmentCluster`` resource of magic-modules (see the docs table "How we know").

Example (the seed's cluster)::

    SlurmCluster("flexvm", {
        "project": "my-project", "region": "us-central1", "display_name": "flexvm",
        "login": {"machine_type": "n2-standard-8", "zone": "us-central1-b", "public_ips": True,
                  "boot_disk_type": "pd-standard", "boot_disk_size_gb": 120},
        "node_pools": [{"id": "a3u", "machine_type": "a3-ultragpu-8g", "max_nodes": 2,
                        "public_ips": True, "boot_disk_type": "hyperdisk-balanced",
                        "boot_disk_size_gb": 400}],
        "partitions": [{"id": "a3u", "node_pool_ids": ["a3u"]}],
    })
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Annotated, Any, Literal

import pulumi
import pulumi_gcp as gcp
from pydantic import model_validator

from ... import catalog, limits
from ...defaults import resolve_project, stack_default_name, type_token
from ...duration import Duration
from ...errors import DwsValidationError
from ...fields import (
    Check,
    DurationWithin,
    Known,
    Labels,
    MaybeOutput,
    Name,
    Network,
    ProjectId,
    Subnetwork,
    Within,
)
from ...models import DwsModel, parse_args
from ...providers.ownership import OWNER_INPUT, owner_input
from ...validation import (
    check_name,
    check_region,
    check_subnetwork_region,
    check_zone,
    check_zone_in_region,
    is_output,
    region_of,
)
from ..calendar.consumers import check_vm_consumer, reservation_spec
from . import limits as _rows  # noqa: F401 (registers this kind's limit rows)
from .args import (
    HomeFilestoreArgs,
    SlurmClusterArgs,
    SlurmLoginArgs,
    SlurmNodePoolArgs,
    SlurmPartitionArgs,
)
from .provider import SlurmClusterResource

__all__ = [
    "TYPE",
    "SlurmCluster",
    "SlurmClusterArgs",
    "SlurmLoginArgs",
    "SlurmNodePoolArgs",
    "SlurmPartitionArgs",
    "HomeFilestoreArgs",
    "SlurmClusterSpec",
    "SlurmClusterResource",
    "build_cluster_body",
    "SERVICE_AGENT_ROLES",
]

TYPE = type_token("SlurmCluster")
RESERVATION_NAME_KEY = "compute.googleapis.com/reservation-name"
ProvisioningModel = Literal["FLEX_START", "ON_DEMAND", "SPOT", "RESERVATION"]
SERVICE_AGENT_ROLES: dict[str, str] = {
    "agent-instance-admin": "roles/compute.instanceAdmin.v1",
    "agent-sa-user": "roles/iam.serviceAccountUser",
}
"""Child-name suffix -> role granted to the Google APIs service agent (least privilege)."""

# The API's default when flex_start_max_duration is omitted (dws-facts.md §3).
DEFAULT_FLEX_START_MAX_DURATION = Duration.parse("7d")
_CLUSTER_ID = re.compile(r"^[a-z][a-z0-9]*\Z")  # length: limits "slurm.cluster_id_length"
# Google's create-cluster docs: lowercase alphanumerics, starting with a letter (length: limits
# "slurm.display_name_length").
_DISPLAY_NAME = re.compile(r"^[a-z][a-z0-9]*\Z")
_RESERVATION_PATH = re.compile(
    r"^projects/(?P<project>[^/]+)/zones/(?P<zone>[^/]+)/reservations/[^/]+"
    r"(/reservationBlocks/[^/]+(/reservationSubBlocks/[^/]+)?)?\Z"
)
_SHARED_RESERVATION = re.compile(r"^projects/(?P<project>[^/]+)/reservations/(?P<name>[^/]+)\Z")
_FILESTORE_ID = re.compile(r"^projects/[^/]+/locations/[^/]+/instances/[^/]+\Z")
_COMPUTE_PREFIX = re.compile(r"^https://(www|compute)\.googleapis\.com/compute/(v1|beta)/")


# ---------------------------------------------------------------------------- args
# ---------------------------------------------------------------------------- validation
def _reservation(field: str, value: Any) -> Any:
    if value is None or hasattr(value, "reservation_name"):
        return value
    if isinstance(value, str) and (
        _RESERVATION_PATH.match(value) or _SHARED_RESERVATION.match(value) or "/" not in value
    ):
        check_name(field, value.rsplit("/", 1)[-1])
        return value
    raise DwsValidationError(
        field,
        value if isinstance(value, str) else type(value).__name__,
        "must be a CalendarReservation, a reservation name, projects/P/reservations/NAME "
        "or projects/P/zones/Z/reservations/NAME",
    )


def _display_name(field: str, value: str) -> str:
    row = limits.get("slurm.display_name_length")
    low, high = row.minimum or 0, row.maximum or 0
    if not low <= len(value) <= high or not _DISPLAY_NAME.match(value):
        raise DwsValidationError(
            field,
            value,
            f"must be {row.allowed()} lowercase letters or digits, starting with a letter "
            "(Google's create-cluster docs)",
        )
    return value


_COUNTS = "node counts are checked against each other"
_BY_SHAPE = "it is checked against the machine type's GPUs"


class _SlurmLoginSpec(DwsModel):
    """The login node pool (Slurm's submit host)."""

    outputs_within = True  # its fields take Outputs as they declare

    zone: str
    """Zone of the login nodes (the cluster's region is this zone's unless ``region`` is given)."""
    machine_type: Annotated[str, Known("it is checked against the machine catalog")] = (
        "n2-standard-8"
    )
    """Default ``n2-standard-8``."""
    count: Annotated[int, Within("slurm.node_count", minimum=1)] = 1  # a cluster needs one
    """Login nodes (min = max = count; default 1)."""
    public_ips: bool = False
    """Default False (reach it through IAP; give the subnet Cloud NAT for egress)."""
    boot_disk_type: str | None = None
    """Boot disk type of the login nodes (default: the API's)."""
    boot_disk_size_gb: int | None = None
    """Boot disk size of the login nodes in GB (default: the API's)."""
    id: Name = "login"
    """Node pool id (default ``login``)."""


class _SlurmNodePoolSpec(DwsModel):
    """A compute node pool; with Flex-start its VMs come from DWS."""

    outputs_within = True

    id: Annotated[Name, Known("partitions refer to node pools by id")]
    """Node pool id, which partitions name (a lowercase RFC 1035 name)."""
    machine_type: Annotated[str, Known("it decides the pool's GPUs (accelerator type and count)")]
    """A machine type of the catalog (``a3-ultragpu-8g``; a CPU type for a CPU pool)."""
    # A pool has at least one node.
    max_nodes: Annotated[int, Within("slurm.node_count", minimum=1), Known(_COUNTS)]
    """The most nodes of the pool (at least 1)."""
    accelerator_type: Annotated[str | None, Known(_BY_SHAPE)] = None
    """``nvidia-h200-141gb`` or ``NVIDIA_H200_141GB``; default: the machine type's GPU."""
    accelerator_count: Annotated[int | None, Known(_BY_SHAPE)] = None
    """Default: the machine type's GPU count."""
    provisioning_model: Annotated[
        ProvisioningModel | None, Known("it decides which settings the pool takes")
    ] = None
    """Default ``FLEX_START`` for a pool with GPUs, ``ON_DEMAND`` for a CPU-only pool,
    ``RESERVATION`` with ``reservation``."""
    reservation: Annotated[Any, Check(_reservation)] = None
    """The reservation a ``RESERVATION`` pool consumes: a
    :class:`~pulumi_dws.CalendarReservation` (or any object with ``reservation_name``), a name
    in the cluster's project and the pool's zone, ``projects/P/reservations/NAME`` (shared), or
    ``projects/P/zones/Z/reservations/NAME[/reservationBlocks/B...]``."""
    flex_start_max_duration: Annotated[
        Annotated[Duration, DurationWithin("slurm.flex_start_max_duration")] | None,
        Known("it is written into the cluster's request as it is built"),
    ] = None
    """How long a Flex-start VM may live (30s to 7d; default 7d)."""
    min_nodes: Annotated[int, Within("slurm.node_count"), Known(_COUNTS)] = 0
    """Static nodes kept up (default 0: nodes come only for PENDING jobs)."""
    zone: str | None = None
    """Default: the login zone."""
    public_ips: bool = False
    """Default False."""
    boot_disk_type: str | None = None
    """Boot disk type of the nodes (default: the API's)."""
    boot_disk_size_gb: int | None = None
    """Boot disk size of the nodes in GB (default: the API's)."""


class _SlurmPartitionSpec(DwsModel):
    """A Slurm partition over node pools."""

    id: Name
    """Partition name (a lowercase RFC 1035 name)."""
    node_pool_ids: list[str]
    """The compute node pools of the partition, by id."""


class _HomeFilestoreSpec(DwsModel):
    """The Filestore created for ``/home`` when ``home_directory_storage`` is omitted."""

    outputs_within = True

    tier: str = "BASIC_HDD"
    """Default ``BASIC_HDD``."""
    capacity_gb: int = 1024
    """Default 1024."""
    zone: str | None = None
    """Default: the login zone."""
    connect_mode: Literal["DIRECT_PEERING", "PRIVATE_SERVICE_ACCESS"] = "DIRECT_PEERING"
    """How the Filestore connects to the network (default ``DIRECT_PEERING``)."""
    share_name: str = "home"
    """Default ``home``."""


def _checked_cluster_id(field: str, value: str) -> str:
    """``value`` when it is a cluster id the API takes (see :data:`_CLUSTER_ID`)."""
    longest = limits.get("slurm.cluster_id_length").maximum or 10
    if not _CLUSTER_ID.match(value) or len(value) > longest:
        raise DwsValidationError(
            field, value, "must be a lowercase letter, then lowercase letters or digits"
        )
    return value


class SlurmClusterSpec(DwsModel):
    """Arguments of :class:`SlurmCluster`."""

    # The one declaration of each field: SlurmClusterArgs is generated from it (python
    # scripts/generate.py). Also the shape of this kind's dws:capacity entries.

    display_name: Annotated[
        str,
        Check(_display_name, before=False),
        Known("it is the cluster id unless cluster_id is given"),
    ]
    """The cluster's display name: lowercase letters or digits, starting with a letter (its
    length: limits row ``slurm.display_name_length``); the cluster id unless ``cluster_id`` is
    given."""
    login: Annotated[
        _SlurmLoginSpec, Known("its zone and machine type are checked as the cluster is built")
    ]
    """The login node pool."""
    node_pools: Annotated[
        list[_SlurmNodePoolSpec],
        Known("each pool is checked against the others and the login pool"),
    ]
    """The compute node pools (at least one)."""
    project: MaybeOutput[ProjectId] | None = None
    """Default: ``gcp:project`` config."""
    region: Annotated[
        str | None, Known("it places the cluster and is checked against every zone")
    ] = None
    """Default: the login zone's region."""
    cluster_id: Annotated[str | None, Known("it names the cluster")] = None
    """The API's ``model_development_cluster_id`` (1-10 lowercase letters/digits); default
    ``display_name``."""
    network: MaybeOutput[Network] = "default"
    """Network name or ``projects/P/global/networks/N`` (default ``default``)."""
    subnetwork: MaybeOutput[Subnetwork] | None = None
    """Subnetwork name or path (default: the network's name when it is a short name)."""
    home_directory_storage: MaybeOutput[str] | None = None
    """Existing Filestore ``projects/P/locations/ZONE/instances/ID``; omitted: one is created."""
    home_filestore: Annotated[_HomeFilestoreSpec, Known("its zone defaults to the login zone")] = (
        _HomeFilestoreSpec()
    )
    """The Filestore created for ``/home`` when ``home_directory_storage`` is omitted."""
    partitions: Annotated[
        list[_SlurmPartitionSpec] | None, Known("they refer to node pools by id")
    ] = None
    """Default: one partition per node pool, named after it."""
    labels: MaybeOutput[Labels] = {}
    """Google Cloud labels on the cluster and its Filestore."""
    grant_service_agent_roles: bool = True
    """Grant the service agent its two roles (default True)."""
    protect: bool = False
    """Protect the cluster and its Filestore from delete and replace (default False)."""

    @model_validator(mode="wrap")
    @classmethod
    def _whole(cls, data: Any, handler: Any) -> SlurmClusterSpec:
        """The rules across fields; the defaults that depend on other fields filled in."""
        given: SlurmClusterSpec = handler(data)
        region = given.region or region_of(check_zone("login.zone", given.login.zone))
        check_region("region", region)
        spec = given.model_copy(update={"region": region})
        return spec.model_copy(update=spec._checked(region))

    def _checked(self, region: str) -> dict[str, Any]:
        """The fields the rules settle: ``cluster_id``, ``partitions``, each pool's
        provisioning model."""
        cluster_id = self.cluster_id or self.display_name
        id_length = limits.get("slurm.cluster_id_length")
        if not _CLUSTER_ID.match(cluster_id) or len(cluster_id) > id_length.maximum:  # type: ignore[operator]
            field = "cluster_id" if self.cluster_id else "cluster_id (defaults to display_name)"
            raise DwsValidationError(
                field,
                cluster_id,
                f"must be {id_length.allowed()} characters: a lowercase letter, then lowercase "
                "letters or digits (the Slurm API allows no hyphens)",
            )
        check_zone_in_region("login.zone", self.login.zone, region)
        check_subnetwork_region("subnetwork", self.subnetwork, region)
        catalog.machine_kind("login.machine_type", self.login.machine_type)
        if not self.node_pools:
            raise DwsValidationError("node_pools", [], "needs at least one compute node pool")
        ids = {self.login.id}
        pools = []
        for i, given in enumerate(self.node_pools):
            pool = _check_pool(f"node_pools[{i}]", given, region, ids)
            _check_reservation(f"node_pools[{i}]", pool, self.pool_zone(pool), self.project)
            pools.append(pool)
        partitions = self.partitions
        if partitions is None:
            partitions = [_SlurmPartitionSpec(id=p.id, node_pool_ids=[p.id]) for p in pools]
        _check_partitions(partitions, {p.id for p in pools}, self.login.id)
        if self.home_directory_storage is None and self.home_filestore.zone is not None:
            _check_home_location("home_filestore.zone", self.home_filestore.zone, region)
        home = self.home_directory_storage
        if isinstance(home, str) and not _FILESTORE_ID.match(home):
            raise DwsValidationError(
                "home_directory_storage",
                home,
                "is not a Filestore instance id projects/PROJECT/locations/ZONE/instances/ID",
            )
        return {"cluster_id": cluster_id, "node_pools": pools, "partitions": partitions}

    # ------------------------------------------------------------------ derived values
    def pool_zone(self, pool: _SlurmNodePoolSpec) -> str:
        return pool.zone or self.login.zone


def _check_home_location(where: str, location: str, region: str) -> None:
    """The /home Filestore's location: a zone of the cluster's region, or the region itself
    (regional and enterprise tiers)."""
    if location != region:
        check_zone_in_region(where, location, region)


def _check_pool(
    where: str, pool: _SlurmNodePoolSpec, region: str, ids: set[str]
) -> _SlurmNodePoolSpec:
    """Check one compute pool; return it with its provisioning model (the default one when it
    gives none)."""
    if pool.id in ids:
        raise DwsValidationError(
            f"{where}.id", pool.id, "is used twice (node pool ids include the login pool's)"
        )
    ids.add(pool.id)
    if pool.zone is not None:
        check_zone_in_region(f"{where}.zone", pool.zone, region)
    if pool.min_nodes > pool.max_nodes:
        raise DwsValidationError(
            f"{where}.min_nodes", pool.min_nodes, f"is above max_nodes ({pool.max_nodes})"
        )
    if pool.max_nodes < 1:
        raise DwsValidationError(f"{where}.max_nodes", pool.max_nodes, "must be at least 1")
    gpus = _accelerator(where, pool) is not None
    model = pool.provisioning_model
    if model is None:
        model = "RESERVATION" if pool.reservation is not None else None
        model = model or ("FLEX_START" if gpus else "ON_DEMAND")
        pool = pool.model_copy(update={"provisioning_model": model})
    if pool.reservation is not None and model != "RESERVATION":
        raise DwsValidationError(
            f"{where}.reservation",
            _shown(pool.reservation),
            f"only applies to RESERVATION pools, not {model} (the API refuses a "
            "reservation_affinity with ON_DEMAND, SPOT or FLEX_START)",
        )
    if model == "RESERVATION" and pool.reservation is None:
        raise DwsValidationError(
            f"{where}.reservation", "(missing)", "is required with provisioning_model RESERVATION"
        )
    if model == "FLEX_START":
        catalog.check_flex_start(f"{where}.machine_type", pool.machine_type)
    if pool.flex_start_max_duration is not None and model != "FLEX_START":
        raise DwsValidationError(
            f"{where}.flex_start_max_duration",
            pool.flex_start_max_duration.human(),
            f"only applies to FLEX_START pools, not {model}",
        )
    return pool


def _shown(value: Any) -> Any:
    return value if isinstance(value, str) else type(value).__name__


def _check_reservation(where: str, pool: _SlurmNodePoolSpec, zone: str, project: Any) -> None:
    """A reservation's zone must be the pool's; a Calendar-mode reservation's machine type the
    pool's; a reservation of another project must be shared with this one."""
    reservation = pool.reservation
    if reservation is None or is_output(reservation):
        return
    if isinstance(reservation, str):
        path = _RESERVATION_PATH.match(reservation)
        if path and path["zone"] != zone:
            raise DwsValidationError(
                f"{where}.reservation",
                reservation,
                f"is in zone {path['zone']}, not the pool's zone {zone}; set the pool's zone",
            )
        return
    spec = getattr(reservation, "spec", None)
    res_zone = getattr(spec, "zone", None)
    if isinstance(res_zone, str) and res_zone != zone:
        raise DwsValidationError(
            f"{where}.zone",
            zone,
            f"must be {res_zone}, the zone of the reservation the pool consumes",
        )
    machine = getattr(spec, "machine_type", None)
    if isinstance(machine, str) and machine != pool.machine_type:
        raise DwsValidationError(
            f"{where}.machine_type",
            pool.machine_type,
            f"does not match the reservation, which holds {machine} VMs; use {machine}",
        )
    if reservation_spec(reservation) is not None:
        check_vm_consumer(
            reservation,
            machine_type=pool.machine_type,
            count=pool.max_nodes,
            zone=zone,
            fields=(f"{where}.machine_type", f"{where}.max_nodes", f"{where}.zone"),
            reservation_field=f"{where}.reservation",
        )
    owner = getattr(spec, "project", None)
    shared = tuple(getattr(spec, "share_with", ()) or ())
    foreign = isinstance(owner, str) and isinstance(project, str) and owner != project
    if foreign and project not in shared:
        raise DwsValidationError(
            f"{where}.reservation",
            type(reservation).__name__,
            f"belongs to project {owner} and is not shared with {project}; add it to the "
            "reservation's share_with",
        )


def _accelerator(where: str, pool: _SlurmNodePoolSpec) -> tuple[str, int] | None:
    """The pool's ``(Vertex AI accelerator name, count)``, or None for a CPU pool. The machine
    type must be known to the catalog (a GPU type or a CPU series)."""
    shape = catalog.machine_kind(f"{where}.machine_type", pool.machine_type)
    if pool.accelerator_type is None:
        if shape is None:
            return None
        acc, gpus = shape.accelerator, shape.gpus
    else:
        acc = catalog.accelerator(f"{where}.accelerator_type", pool.accelerator_type)
        if shape is not None and acc != shape.accelerator:
            raise DwsValidationError(
                f"{where}.accelerator_type",
                pool.accelerator_type,
                f"does not match {pool.machine_type}, "
                f"which carries {shape.accelerator.vertex_name}",
            )
        gpus = shape.gpus if shape is not None else 0
    count = pool.accelerator_count if pool.accelerator_count is not None else gpus
    if count < 1 or (shape is not None and count != shape.gpus):
        raise DwsValidationError(
            f"{where}.accelerator_count",
            pool.accelerator_count,
            f"must be {shape.gpus} for {pool.machine_type}"
            if shape is not None
            else "is required (at least 1) with accelerator_type",
        )
    return acc.vertex_name, count


def _check_partitions(partitions: list[_SlurmPartitionSpec], pools: set[str], login: str) -> None:
    seen: set[str] = set()
    if not partitions:
        raise DwsValidationError("partitions", [], "needs at least one partition")
    for i, part in enumerate(partitions):
        where = f"partitions[{i}]"
        if part.id in seen:
            raise DwsValidationError(f"{where}.id", part.id, "is used twice")
        seen.add(part.id)
        if not part.node_pool_ids:
            raise DwsValidationError(f"{where}.node_pool_ids", [], "needs at least one node pool")
        for j, pool_id in enumerate(part.node_pool_ids):
            if pool_id not in pools:
                problem = (
                    "is the login pool; partitions hold compute pools"
                    if pool_id == login
                    else f"is not a node pool id; known: {', '.join(sorted(pools))}"
                )
                raise DwsValidationError(f"{where}.node_pool_ids[{j}]", pool_id, problem)


# ---------------------------------------------------------------------------- the body
def _network_path(value: str, project: str, kind: str, region: str) -> str:
    value = _COMPUTE_PREFIX.sub("", value)
    if "/" in value:
        return value
    if kind == "networks":
        return f"projects/{project}/global/networks/{value}"
    return f"projects/{project}/regions/{region}/subnetworks/{value}"


def _flag(value: bool) -> str:
    """Booleans as the seed writes them (``"true"``); Google's JSON parser takes both forms."""
    return "true" if value else "false"


def _boot_disk(disk_type: str | None, size_gb: int | None) -> dict[str, Any] | None:
    disk: dict[str, Any] = {}
    if disk_type is not None:
        disk["boot_disk_type"] = disk_type
    if size_gb is not None:
        disk["boot_disk_size_gb"] = size_gb
    return disk or None


def _login_pool(spec: SlurmClusterSpec) -> dict[str, Any]:
    login = spec.login
    pool: dict[str, Any] = {
        "id": login.id,
        "machine_spec": {"machine_type": login.machine_type},
        "scaling_spec": {"min_node_count": login.count, "max_node_count": login.count},
        "enable_public_ips": _flag(login.public_ips),
        "zone": login.zone,
    }
    disk = _boot_disk(login.boot_disk_type, login.boot_disk_size_gb)
    if disk:
        pool["boot_disk"] = disk
    return pool


def reservation_path(reservation: str, project: str, zone: str) -> str:
    """The reservation as ``machine_spec.reservation_affinity.values`` names it (Google's
    create-cluster docs): ``projects/P/zones/Z/reservations/NAME`` (or a block under it)."""
    if _RESERVATION_PATH.match(reservation):
        return reservation
    shared = _SHARED_RESERVATION.match(reservation)
    if shared:
        return f"projects/{shared['project']}/zones/{zone}/reservations/{shared['name']}"
    return f"projects/{project}/zones/{zone}/reservations/{reservation}"


def _compute_pool(
    spec: SlurmClusterSpec, i: int, pool: _SlurmNodePoolSpec, project: str, reservation: Any
) -> dict[str, Any]:
    machine: dict[str, Any] = {"machine_type": pool.machine_type}
    acc = _accelerator(f"node_pools[{i}]", pool)
    if acc is not None:
        machine["accelerator_type"], machine["accelerator_count"] = acc
    if pool.provisioning_model == "RESERVATION":
        if not isinstance(reservation, str) or not reservation:
            raise DwsValidationError(
                f"node_pools[{i}].reservation",
                _shown(reservation),
                "must be known (a reservation name or path) to build the body",
            )
        machine["reservation_affinity"] = {
            "reservation_affinity_type": "SPECIFIC_RESERVATION",
            "key": RESERVATION_NAME_KEY,
            "values": [reservation_path(reservation, project, spec.pool_zone(pool))],
        }
    body: dict[str, Any] = {
        "id": pool.id,
        "machine_spec": machine,
        "provisioning_model": pool.provisioning_model,
    }
    if pool.provisioning_model == "FLEX_START":
        duration = pool.flex_start_max_duration or DEFAULT_FLEX_START_MAX_DURATION
        body["flex_start_max_duration"] = duration.to_proto_string()
    body["scaling_spec"] = {"min_node_count": pool.min_nodes, "max_node_count": pool.max_nodes}
    body["zone"] = spec.pool_zone(pool)
    body["enable_public_ips"] = _flag(pool.public_ips)
    disk = _boot_disk(pool.boot_disk_type, pool.boot_disk_size_gb)
    if disk:
        body["boot_disk"] = disk
    return body


def _known_text(field: str, value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise DwsValidationError(field, value, "must be a known string to build the body")
    return value


def build_cluster_body(
    args: SlurmClusterArgs | SlurmClusterSpec,
    *,
    project: str | None = None,
    home_directory_storage: str | None = None,
    reservations: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The ``modelDevelopmentClusters`` create request body (``snake_case``, seed 002's shape).

    Pure: every value must be known (``network``, ``subnetwork``, ``project`` and
    ``home_directory_storage`` plain strings; the keyword arguments override the args).
    ``reservations`` maps a RESERVATION pool's id to its reservation name or path when the
    args hold an object or an Output there. Raises :class:`DwsValidationError` for invalid args.
    """
    spec = args if isinstance(args, SlurmClusterSpec) else parse_args(SlurmClusterSpec, args)
    project = _known_text("project", project or spec.project)
    home = _known_text(
        "home_directory_storage", home_directory_storage or spec.home_directory_storage
    )
    if not _FILESTORE_ID.match(home):
        raise DwsValidationError(
            "home_directory_storage", home, "is not projects/PROJECT/locations/ZONE/instances/ID"
        )
    region = spec.region
    assert region is not None
    network: dict[str, Any] = {
        "network": _network_path(str(spec.network), project, "networks", region)
    }
    subnetwork = spec.subnetwork
    if subnetwork is None and "/" not in _COMPUTE_PREFIX.sub("", str(spec.network)):
        subnetwork = spec.network
    if subnetwork is not None:
        network["subnetwork"] = _network_path(str(subnetwork), project, "subnetworks", region)
    body: dict[str, Any] = {
        "display_name": spec.display_name,
        "name": f"projects/{project}/locations/{region}/modelDevelopmentClusters/",
        "network": network,
        "node_pools": [_login_pool(spec)]
        + [
            _compute_pool(
                spec, i, pool, project, (reservations or {}).get(pool.id, pool.reservation)
            )
            for i, pool in enumerate(spec.node_pools)
        ],
        "orchestrator_spec": {
            "slurm_spec": {
                "home_directory_storage": home,
                "partitions": [
                    {"id": p.id, "node_pool_ids": list(p.node_pool_ids)}
                    for p in spec.partitions or []
                ],
                "login_node_pool_id": spec.login.id,
            }
        },
    }
    if spec.labels:
        body["labels"] = dict(spec.labels)
    return body


# ---------------------------------------------------------------------------- resources
class SlurmCluster(pulumi.ComponentResource):
    """A managed Slurm cluster with Flex-start GPU partitions; see the module docstring.

    Outputs: ``name`` (the resource name Google reports), ``id`` (the Pulumi id,
    ``projects/P/locations/R/modelDevelopmentClusters/ID``), ``cluster_id``, ``state``,
    ``login_address`` (``<login-vm>.<zone>.c.<project>.internal`` once the login node runs, else
    None), ``login_nodes``, ``partitions`` and ``home_directory_storage``.
    """

    cluster: SlurmClusterResource
    home: gcp.filestore.Instance | None
    iam_members: list[gcp.projects.IAMMember]
    spec: SlurmClusterSpec
    body: pulumi.Output[dict[str, Any]]
    """The cluster as sent to the API."""
    name: pulumi.Output[str]
    """The cluster's resource name, as Google reports it."""
    id: pulumi.Output[str]
    cluster_id: str
    """The cluster's id."""
    state: pulumi.Output[str]
    """The cluster's state (``ACTIVE`` once it is up)."""
    login_address: pulumi.Output[str | None]
    """``<login-vm>.<zone>.c.<project>.internal`` once the login node runs, else None."""
    login_nodes: pulumi.Output[list[str]]
    """The login nodes' names."""
    partitions: pulumi.Output[list[dict[str, Any]]]
    """The Slurm partitions, as the API reports them."""
    home_directory_storage: pulumi.Output[str]
    """The Filestore instance that holds ``/home``."""

    def __init__(
        self, name: str, args: SlurmClusterArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        spec = parse_args(SlurmClusterSpec, args)
        super().__init__(TYPE, name, {}, opts)
        project = resolve_project(spec.project, self)
        self.spec = spec
        child = pulumi.ResourceOptions(parent=self)
        self.iam_members = (
            self._service_agent_grants(name, project) if spec.grant_service_agent_roles else []
        )
        self.home = None
        if spec.home_directory_storage is None:
            self.home = self._home_filestore(name, project)
            home: Any = self.home.id
        else:
            home = spec.home_directory_storage
        self.home_directory_storage = pulumi.Output.from_input(home)

        reserved = {
            pool.id: _reservation_ref(pool.reservation, project) for pool in spec.node_pools
        }
        reserved = {k: v for k, v in reserved.items() if v is not None}

        def body(values: list[Any]) -> dict[str, Any]:
            proj, network, subnetwork, home_id, labels, *names = values
            known = spec.model_copy(
                update={"network": network, "subnetwork": subnetwork, "labels": labels}
            )
            return build_cluster_body(
                known,
                project=proj,
                home_directory_storage=home_id,
                reservations=dict(zip(reserved, names, strict=True)),
            )

        self.body = pulumi.Output.all(
            project, spec.network, spec.subnetwork, home, spec.labels, *reserved.values()
        ).apply(body)
        assert spec.cluster_id is not None and spec.region is not None
        named = stack_default_name(
            "cluster_id",
            args.get("cluster_id"),
            spec.cluster_id[:6],  # display_name, checked: a lowercase letter, then letters/digits
            _checked_cluster_id,
            arg="cluster_id",
            limit=10,
            separator="",
            suffix_length=4,
        )
        self.cluster_id = named.value
        self.cluster = SlurmClusterResource(
            f"{name}-cluster",
            {
                "project": project,
                "region": spec.region,
                "cluster_id": self.cluster_id,
                "body": self.body,
                OWNER_INPUT: owner_input(f"{name}-cluster"),
            },
            pulumi.ResourceOptions.merge(
                child,
                pulumi.ResourceOptions(
                    depends_on=list(self.iam_members),
                    protect=spec.protect,
                    custom_timeouts=pulumi.CustomTimeouts(create="2h", update="2h", delete="2h"),
                    ignore_changes=named.kept("cluster_id"),
                ),
            ),
        )
        self.id = self.cluster.id
        self.name = self.cluster.name
        self.state = self.cluster.state
        self.login_address = self.cluster.login_address
        self.login_nodes = self.cluster.login_nodes
        self.partitions = self.cluster.partitions
        self.register_outputs(
            {
                "name": self.name,
                "id": self.id,
                # a cluster made before defaults carried the stack keeps its own id
                "cluster_id": self.cluster.cluster_id if named.defaulted else self.cluster_id,  # type: ignore[attr-defined]
                "state": self.state,
                "login_address": self.login_address,
                "partitions": self.partitions,
                "home_directory_storage": self.home_directory_storage,
            }
        )

    def _service_agent_grants(self, name: str, project: Any) -> list[gcp.projects.IAMMember]:
        number = gcp.organizations.get_project_output(
            project_id=project, opts=pulumi.InvokeOptions(parent=self)
        ).number
        member = number.apply(lambda n: f"serviceAccount:{n}@cloudservices.gserviceaccount.com")
        # Retained on delete: an IAMMember's delete removes the (role, member) binding itself,
        # which other clusters of the project (another SlurmCluster, a grant made by hand
        # before) still need. The grants are a once-per-project prerequisite (seed 002).
        return [
            gcp.projects.IAMMember(
                f"{name}-{suffix}",
                project=project,
                role=role,
                member=member,
                opts=pulumi.ResourceOptions(parent=self, retain_on_delete=True),
            )
            for suffix, role in SERVICE_AGENT_ROLES.items()
        ]

    def _home_filestore(self, name: str, project: Any) -> gcp.filestore.Instance:
        spec = self.spec
        opts = spec.home_filestore
        zone = opts.zone or spec.login.zone
        network = pulumi.Output.all(project, spec.network).apply(
            lambda v: _filestore_network(v[0], str(v[1]))
        )
        return gcp.filestore.Instance(
            f"{name}-home",
            project=project,
            location=zone,
            tier=opts.tier,
            file_shares={"name": opts.share_name, "capacity_gb": opts.capacity_gb},
            networks=[
                {"network": network, "modes": ["MODE_IPV4"], "connect_mode": opts.connect_mode}
            ],
            labels=spec.labels if is_output(spec.labels) else (dict(spec.labels) or None),
            opts=pulumi.ResourceOptions(parent=self, protect=spec.protect),
        )


def _reservation_ref(reservation: Any, project: Any) -> Any:
    """What a pool's ``reservation`` names, as an Input: a string or Output as given; for an
    object with ``reservation_name`` (a CalendarReservation), its name, as
    ``projects/OWNER/reservations/NAME`` when it belongs to another project."""
    if reservation is None or isinstance(reservation, str) or is_output(reservation):
        return reservation
    owner = getattr(getattr(reservation, "spec", None), "project", None)
    name = reservation.reservation_name
    if not isinstance(owner, str):
        return name

    def named(values: list[Any]) -> str:
        consumer, reservation_name = values
        return (
            reservation_name
            if owner == consumer
            else f"projects/{owner}/reservations/{reservation_name}"
        )

    return pulumi.Output.all(project, name).apply(named)


def _filestore_network(project: str, network: str) -> str:
    """Filestore wants the network's name, or its full path when it is in another project."""
    path = _network_path(network, project, "networks", "")
    owner = path.split("/")[1]
    return path.rsplit("/", 1)[-1] if owner == project else path
