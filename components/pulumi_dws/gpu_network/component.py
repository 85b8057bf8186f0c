"""``GpuNetwork``: the VPC networks GPU and HPC VMs train across, as Google's Cluster Toolkit
builds them for A3 Ultra, A4, A4X and H4D.

    net = GpuNetwork("a4-net", {"zone": "us-central1-b", "machine_type": "a4-highgpu-8g"})
    FlexStartGroup("trainers", {"zone": "us-central1-b", "machine_type": "a4-highgpu-8g",
                                "count": 2, "run_duration": "1d", "gpu_network": net})

Children (``parent=self``), for a machine type whose layout (:func:`pulumi_dws.catalog.nic_layout`)
is ``G`` gVNIC + ``R`` RDMA NICs:

* ``<name>-net-<i>`` / ``<name>-sub-<i>`` / ``<name>-internal-<i>`` (``i < G``): a regular VPC
  (custom subnet mode, MTU 8896, regional routing as gcloud's default), one subnetwork in the
  zone's region and a firewall rule letting the subnetwork's VMs talk (TCP, UDP, ICMP), as
  Cluster Toolkit's ``modules/network/vpc`` builds each gVNIC network
  (``examples/machine-learning/a4-highgpu-8g/a4high-vm.yaml``);
* ``<name>-rdma`` and ``<name>-rdma-sub-<j>`` (``j < R``): one RDMA VPC with the zone's RDMA
  network profile (``<zone>-vpc-roce`` for MRDMA NICs, ``<zone>-vpc-falcon`` for IRDMA),
  MTU 8896, and ``R`` subnetworks cut from one range (``modules/network/gpu-rdma-vpc``).

RDMA VPCs are zonal: every VM with a NIC on one must be in the profile's zone, and RDMA VPCs
take only RDMA NICs ("RDMA network profiles", https://docs.cloud.google.com/vpc/docs/rdma-network-profiles).
A VM component given ``gpu_network`` gets one NIC per subnetwork, gVNIC first
(:meth:`GpuNetwork.interfaces`), and must be of a machine type with the same layout.

Not a capacity kind: it holds no GPUs, so it has no ``dws:capacity`` entry.
"""

from __future__ import annotations

from typing import Annotated, Any

import pulumi
import pulumi_gcp as gcp
from pydantic import model_validator

from .. import catalog
from ..catalog.series import RDMA_SOURCE, NicLayout
from ..defaults import default_name, resolve_project, type_token
from ..errors import DwsValidationError
from ..fields import Check, Known, MaybeOutput, Name, ProjectId, Zone
from ..models import DwsModel, parse_args
from ..validation import check_name, region_of
from .component_args import GpuNetworkArgs
from .ranges import check_cidr, overlapping, split_range

__all__ = [
    "GpuNetwork",
    "GpuNetworkArgs",
    "GpuNetworkSpec",
    "TYPE",
    "DEFAULT_GVNIC_RANGES",
    "DEFAULT_RDMA_RANGE",
    "RDMA_MTU",
]

TYPE = type_token("GpuNetwork")
RDMA_MTU = 8896
"""The MTU of every network (RDMA_SOURCE: "8896-byte MTU"; Cluster Toolkit sets it on the gVNIC
networks too)."""
DEFAULT_GVNIC_RANGES = ("192.168.0.0/19", "192.168.64.0/18")
"""Cluster Toolkit's ``net0_range`` and ``net1_range`` (a4high-vm.yaml)."""
DEFAULT_RDMA_RANGE = "192.168.128.0/18"
"""Cluster Toolkit's ``rdma_net_range`` (a4high-vm.yaml)."""


class GpuNetworkSpec(DwsModel):
    """Arguments of :class:`GpuNetwork`."""

    # The one declaration of each field: GpuNetworkArgs is generated from it (scripts/generate.py).

    zone: Annotated[Zone, Known("the RDMA network profile is the zone's")]
    """The zone of the RDMA network profile; the VMs must be in it."""
    machine_type: Annotated[str, Known("it decides the NIC layout")]
    """The VMs' machine type: it decides the NIC layout (A3 Ultra, A4: 2 gVNIC + 8 MRDMA; A4X:
    2 + 4 MRDMA; H4D: 1 + 1 IRDMA)."""
    gvnic_nics: Annotated[int, Known("it is checked against the machine type's NICs")] | None = None
    """gVNIC NICs per VM (default: the machine type's); another number is refused."""
    rdma_nics: Annotated[int, Known("it is checked against the machine type's NICs")] | None = None
    """RDMA NICs per VM (default: the machine type's); another number is refused."""
    gvnic_ranges: (
        Annotated[
            list[Annotated[str, Check(check_cidr)]],
            Known("each range is a subnetwork it registers"),
        ]
        | None
    ) = None
    """One IPv4 range per gVNIC network (default ``192.168.0.0/19``, ``192.168.64.0/18``)."""
    rdma_range: Annotated[
        str, Check(check_cidr), Known("it is cut into the RDMA subnetworks' ranges")
    ] = DEFAULT_RDMA_RANGE
    """The range the RDMA subnetworks are cut from (default ``192.168.128.0/18``)."""
    project: MaybeOutput[ProjectId] | None = None
    """Project (default: the ``gcp:project`` stack config)."""
    name_prefix: Annotated[Name, Known("it names the networks")] | None = None
    """Prefix of the networks' names (default: the component's name)."""

    @model_validator(mode="after")
    def _layout(self) -> GpuNetworkSpec:
        layout = catalog.nic_layout("machine_type", self.machine_type)
        for field, given, wanted, kind in (
            ("gvnic_nics", self.gvnic_nics, layout.gvnics, "gVNIC"),
            ("rdma_nics", self.rdma_nics, layout.rdma, layout.rdma_type),
        ):
            if given is not None and given != wanted:
                raise DwsValidationError(
                    field,
                    given,
                    f"does not fit {self.machine_type}: its VMs take {describe(layout)}; use "
                    f"{wanted} {kind} NICs ({layout.source})",
                )
        ranges = self.gvnic_ranges
        if ranges is not None and len(ranges) != layout.gvnics:
            raise DwsValidationError(
                "gvnic_ranges",
                ranges,
                f"must list {layout.gvnics} ranges, one per gVNIC network of {self.machine_type}",
            )
        named = [(f"gvnic_ranges[{i}]", r) for i, r in enumerate(self.ranges)]
        clash = overlapping([*named, ("rdma_range", self.rdma_range)])
        if clash is not None:
            field, cidr, other = clash
            raise DwsValidationError(field, cidr, f"overlaps {other}; give ranges apart")
        split_range("rdma_range", self.rdma_range, layout.rdma)
        return self

    @property
    def layout(self) -> NicLayout:
        return catalog.nic_layout("machine_type", self.machine_type)

    @property
    def ranges(self) -> list[str]:
        """The gVNIC networks' ranges."""
        if self.gvnic_ranges is not None:
            return list(self.gvnic_ranges)
        return list(DEFAULT_GVNIC_RANGES[: self.layout.gvnics])


def describe(layout: NicLayout) -> str:
    """``2 gVNIC + 8 MRDMA NICs``."""
    return f"{layout.gvnics} gVNIC + {layout.rdma} {layout.rdma_type} NICs"


class GpuNetwork(pulumi.ComponentResource):
    """The regular and RDMA networks of one zone for one NIC layout (see the module docstring).

    Children: ``networks`` and ``subnetworks`` (the gVNIC ones, in NIC order),
    ``rdma_network`` and ``rdma_subnetworks``; ``layout`` is the NIC layout
    (:class:`~pulumi_dws.catalog.NicLayout`), ``spec`` the validated args. Outputs: the zone,
    region and machine type, and the networks' and subnetworks' self links in NIC order (what a
    VM outside the library gives its NICs).
    """

    zone: str
    """The zone of the RDMA network profile: every VM on the networks must be in it."""
    region: str
    """The region of the zone, where the subnetworks are."""
    machine_type: str
    """The machine type the networks are built for (its NIC layout)."""
    rdma_nic_type: str
    """The type of the RDMA NICs: ``MRDMA`` (A3 Ultra, A4, A4X) or ``IRDMA`` (H4D)."""
    gvnic_network_links: pulumi.Output[list[str]]
    """The gVNIC networks' self links, in NIC order (``nicType: GVNIC``)."""
    gvnic_subnetwork_links: pulumi.Output[list[str]]
    """The gVNIC subnetworks' self links, in NIC order."""
    rdma_network_link: pulumi.Output[str]
    """The RDMA network's self link."""
    rdma_subnetwork_links: pulumi.Output[list[str]]
    """The RDMA subnetworks' self links, one per RDMA NIC, in NIC order."""

    def __init__(
        self, name: str, args: GpuNetworkArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        spec = parse_args(GpuNetworkSpec, args)
        prefix = default_name("name_prefix", spec.name_prefix, name, check_name)
        super().__init__(TYPE, name, {}, opts)
        project = resolve_project(spec.project, self)
        self.spec = spec
        self.zone = spec.zone
        self.region = region_of(spec.zone)
        self.layout = spec.layout
        self.machine_type = spec.machine_type
        self.rdma_nic_type = self.layout.rdma_type
        child = pulumi.ResourceOptions(parent=self)
        self.networks: list[gcp.compute.Network] = []
        self.subnetworks: list[gcp.compute.Subnetwork] = []
        for i, cidr in enumerate(spec.ranges):
            network = gcp.compute.Network(
                f"{name}-net-{i}",
                name=f"{prefix}-net-{i}",
                project=project,
                auto_create_subnetworks=False,
                mtu=RDMA_MTU,
                routing_mode="REGIONAL",
                opts=child,
            )
            self.networks.append(network)
            self.subnetworks.append(
                gcp.compute.Subnetwork(
                    f"{name}-sub-{i}",
                    name=f"{prefix}-sub-{i}",
                    project=project,
                    region=self.region,
                    ip_cidr_range=cidr,
                    network=network.id,
                    opts=child,
                )
            )
            gcp.compute.Firewall(
                f"{name}-internal-{i}",
                name=f"{prefix}-internal-{i}",
                project=project,
                network=network.name,
                source_ranges=[cidr],
                allows=[{"protocol": "tcp"}, {"protocol": "udp"}, {"protocol": "icmp"}],
                opts=child,
            )
        profile = pulumi.Output.concat(
            "projects/", project, f"/global/networkProfiles/{spec.zone}-{self.layout.profile}"
        )
        self.rdma_network = gcp.compute.Network(
            f"{name}-rdma",
            name=f"{prefix}-rdma",
            project=project,
            auto_create_subnetworks=False,
            mtu=RDMA_MTU,
            network_profile=profile,
            routing_mode="REGIONAL",
            opts=child,
        )
        self.rdma_subnetworks = [
            gcp.compute.Subnetwork(
                f"{name}-rdma-sub-{j}",
                name=f"{prefix}-rdma-sub-{j}",
                project=project,
                region=self.region,
                ip_cidr_range=cidr,
                network=self.rdma_network.id,
                opts=child,
            )
            for j, cidr in enumerate(split_range("rdma_range", spec.rdma_range, self.layout.rdma))
        ]
        self.gvnic_network_links = pulumi.Output.all(*(n.self_link for n in self.networks))
        self.gvnic_subnetwork_links = pulumi.Output.all(*(s.self_link for s in self.subnetworks))
        self.rdma_network_link = self.rdma_network.self_link
        self.rdma_subnetwork_links = pulumi.Output.all(
            *(s.self_link for s in self.rdma_subnetworks)
        )
        self.register_outputs({"zone": self.zone, "region": self.region})

    # ------------------------------------------------------------------ for VM components
    def check_machine(self, field: str, machine_type: Any) -> None:
        """Refuse a machine type whose NIC layout is not this network's."""
        if not isinstance(machine_type, str):
            return
        try:
            layout = catalog.nic_layout("machine_type", machine_type)
        except DwsValidationError as err:
            raise DwsValidationError(field, self._name, err.problem) from None
        if layout != self.layout:
            raise DwsValidationError(
                field,
                self._name,
                f"has {describe(self.layout)} per VM (built for {self.machine_type}); "
                f"{machine_type} VMs take {describe(layout)}: give a GpuNetwork built for "
                f"{machine_type} ({layout.source})",
            )

    def check_zone(self, field: str, zone: Any) -> None:
        """Refuse a VM zone other than the network's (an RDMA VPC is zonal)."""
        if isinstance(zone, str) and zone != self.zone:
            raise DwsValidationError(
                field,
                zone,
                f"is not the zone of gpu_network {self._name} ({self.zone}): RDMA networks are "
                f"zonal, every VM on one must be in its profile's zone ({RDMA_SOURCE})",
            )

    def interfaces(self, *, public_ip: bool = False) -> list[dict[str, Any]]:
        """pulumi-gcp ``network_interfaces`` of a VM on this network: the gVNIC NICs (the
        first one with an external IP when ``public_ip``), then one RDMA NIC per RDMA
        subnetwork, as ``gcloud compute instance-templates create --network-interface=
        network=N,subnet=S,nic-type=GVNIC ... --network-interface=subnet=R,nic-type=MRDMA``."""
        nics: list[dict[str, Any]] = [
            {
                "network": network.self_link,
                "subnetwork": subnetwork.self_link,
                "nic_type": "GVNIC",
                **({"access_configs": [{}]} if public_ip and i == 0 else {}),
            }
            for i, (network, subnetwork) in enumerate(
                zip(self.networks, self.subnetworks, strict=True)
            )
        ]
        nics += [
            {"subnetwork": subnetwork.self_link, "nic_type": self.layout.rdma_type}
            for subnetwork in self.rdma_subnetworks
        ]
        return nics
