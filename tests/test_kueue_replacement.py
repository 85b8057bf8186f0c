"""A deployed queue changed: Kueue freezes a Topology's levels, a topology-aware
ResourceFlavor's spec and a LocalQueue's clusterQueue (its CRDs' CEL rules), and its finalizers
keep a flavor while a ClusterQueue lists it and a Topology while a flavor uses it. So a
Topology and a topology-aware flavor are named after what Kueue freezes in them (a change is
a new object, created before the old one goes, once nothing uses it), and a LocalQueue, which
has no finalizer and whose name jobs use, is deleted and made again."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from kueue_helpers import frozen_change, kueue_versions

from pulumi_dws import KueueQueue, QueuedNodePool
from pulumi_dws.errors import DwsValidationError
from pulumi_dws.kinds.kueue.component import kueue_manifests
from pulumi_dws.testing import GcpMocks

MERGE = "IdenticalWorkloadSchedulingRequirements"
BLOCK = "cloud.google.com/gce-topology-block"
HOST = "kubernetes.io/hostname"

# What a team changes on a deployed queue.
TOPOLOGIES: list[Any] = [False, True, [BLOCK, HOST], [BLOCK, "cloud.google.com/gce-topology-host"]]
MERGES: list[Any] = [None, MERGE]
POOLS = ["h200-queued", "h200-queued-b"]
NAMES: list[dict[str, Any]] = [{}, {"name": "renamed"}]


def objects(topology: Any, merge: Any, pool: str, naming: dict[str, Any]) -> list[dict[str, Any]]:
    options = {"pod_set_merge_policy": merge} if merge else {}
    return kueue_manifests(
        None,
        ["ml"],
        name=naming.get("name", "train"),
        local_queue_name="train",
        flavors=[{"node_pool": "h200-reserved", "gpu_quota": 16, "provisioning_request": False},
                 {"node_pool": pool, "gpu_quota": 32}],
        topology=topology,
        **options,
    )  # fmt: skip


CONFIGS = list(itertools.product(TOPOLOGIES, MERGES, POOLS, NAMES))
BUILT = [objects(*config) for config in CONFIGS]


@pytest.mark.parametrize("kueue_version", [v for v in kueue_versions() if v >= "0.12"])
def test_no_change_of_a_deployed_queue_updates_what_kueue_freezes(kueue_version: str) -> None:
    """Every pair of configurations: an object kept under its name is updated only where
    Kueue allows it; the LocalQueue, whose clusterQueue moves with the queue's name, is
    replaced (see the next test)."""
    replaced_local_queues = 0
    for (before, old_objects), (after, new_objects) in itertools.permutations(
        zip(CONFIGS, BUILT, strict=True), 2
    ):
        old = {(o["kind"], o["metadata"]["name"]): o for o in old_objects}
        for obj in new_objects:
            key = (obj["kind"], obj["metadata"]["name"])
            if key not in old:
                continue  # a new object: created before the old one is deleted
            why = frozen_change(old[key], obj, kueue_version)
            if why == "LocalQueue clusterQueue":
                replaced_local_queues += 1
                continue
            assert why is None, (before, after, why)
    assert replaced_local_queues  # the case the LocalQueue's options are for


def test_a_local_queue_is_replaced_and_nothing_else_is_deleted_first() -> None:
    """The LocalQueue keeps its name (jobs use it), so a new clusterQueue needs the old object
    gone first (it has no finalizer). A flavor or a Topology is never deleted before its
    replacement: its finalizer holds it while the ClusterQueue (or a flavor) still uses it."""
    mocks = GcpMocks()

    def program() -> None:
        pool = QueuedNodePool(
            "h200-queued",
            {"cluster": "ml-cluster", "location": "us-central1", "machine_type": "a3-ultragpu-8g",
             "max_nodes": 4},
        )  # fmt: skip
        KueueQueue(
            "train",
            {"flavors": [{"node_pool": pool}], "namespaces": ["ml", "eval"], "topology": True,
             "pod_set_merge_policy": MERGE},
        )  # fmt: skip

    mocks.run(program)
    kueue = [r for r in mocks.resources() if r.type.startswith("kubernetes:kueue.x-k8s.io/")]
    local = [r for r in kueue if r.inputs["kind"] == "LocalQueue"]
    assert len(local) == 2
    for r in local:
        assert r.replace_on_changes == ["spec.clusterQueue"] and r.delete_before_replace
    for r in kueue:
        if r.inputs["kind"] != "LocalQueue":
            assert not r.delete_before_replace and not r.replace_on_changes, r.name


def test_topology_aware_objects_are_named_after_what_kueue_freezes() -> None:
    def names(topology: Any, merge: Any = None, pool: str = "h200-queued") -> dict[str, Any]:
        objs = objects(topology, merge, pool, {})
        flavors = [o for o in objs if o["kind"] == "ResourceFlavor"]
        [queue] = [o for o in objs if o["kind"] == "ClusterQueue"]
        listed = [f["name"] for f in queue["spec"]["resourceGroups"][0]["flavors"]]
        assert listed == [f["metadata"]["name"] for f in flavors]
        topology_names = [o["metadata"]["name"] for o in objs if o["kind"] == "Topology"]
        for flavor in flavors:
            assert flavor["spec"].get("topologyName") == (topology_names or [None])[0]
        return {"topology": topology_names, "flavors": listed}

    plain = names(False)
    assert plain == {"topology": [], "flavors": ["train-pool", "train-queued"]}
    assert names(False, MERGE) == plain  # no topologyName: Kueue lets the spec change
    gke = names(True)
    assert names(True) == gke  # the same spec, the same names: nothing changes
    assert gke["topology"][0].startswith("train-topology-")
    pairs = zip(plain["flavors"], gke["flavors"], strict=True)
    assert all(a != b and b.startswith(a + "-") for a, b in pairs)
    custom = names([BLOCK, HOST])
    assert custom["topology"] != gke["topology"]
    assert not set(custom["flavors"]) & set(gke["flavors"])
    merged = names(True, MERGE)  # the queued flavor's tolerations change; the other's do not
    assert merged["flavors"][0] == gke["flavors"][0] and merged["flavors"][1] != gke["flavors"][1]
    other_pool = names(True, pool="h200-queued-b")
    assert other_pool["flavors"][0] == gke["flavors"][0]
    assert other_pool["flavors"][1] != gke["flavors"][1]


def test_a_pool_name_known_only_later_cannot_name_a_topology_aware_flavor() -> None:
    import pulumi

    def program() -> None:
        KueueQueue(
            "train",
            {"flavors": [{"node_pool": pulumi.Output.from_input("p"), "gpu_quota": 8}],
             "namespaces": ["ml"], "topology": True, "cluster": "c", "location": "us-central1"},
        )  # fmt: skip

    with pytest.raises(DwsValidationError) as info:
        GcpMocks().run(program)
    assert info.value.field == "flavors[0].node_pool"
    assert "topology" in str(info.value)


def test_another_kueue_api_version_is_the_same_object() -> None:
    """``api_version`` v1beta1 -> v1beta2 (Kueue 0.15 and later), or a Kueue upgrade that moves
    the Topology from v1alpha1 to v1beta1, changes each object's Pulumi type. Without an alias
    Pulumi would make a second object of the same name and then delete the old one, which is
    the same Kueue object; with one, it is an update (pulumi-kubernetes does not replace on an
    apiVersion change)."""
    mocks = GcpMocks()

    def program() -> None:
        KueueQueue(
            "train",
            {"node_pool": "h200-queued", "gpu_quota": 32, "namespaces": ["ml"], "topology": True,
             "cluster": "ml-cluster", "location": "us-central1"},
        )  # fmt: skip

    mocks.run(program)
    kueue = [r for r in mocks.resources() if r.type.startswith("kubernetes:kueue.x-k8s.io/")]
    assert {r.inputs["kind"] for r in kueue} == {
        "Topology", "ResourceFlavor", "ProvisioningRequestConfig", "AdmissionCheck",
        "ClusterQueue", "LocalQueue",
    }  # fmt: skip
    for r in kueue:
        kind = r.inputs["kind"]
        versions = ["v1alpha1", "v1beta1"] if kind == "Topology" else ["v1beta1"]
        assert r.type == f"kubernetes:kueue.x-k8s.io/v1beta2:{kind}"
        assert sorted(a["type"] for a in r.alias_specs) == [
            f"kubernetes:kueue.x-k8s.io/{v}:{kind}" for v in versions
        ], r.name
