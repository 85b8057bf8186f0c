"""The TPU half of the catalog: machine types, topologies, chips and VMs, and the names each API
gives a slice; checked against Google's published tables and against gcloud itself."""

from __future__ import annotations

import pytest

from pulumi_dws import catalog, limits
from pulumi_dws.errors import DwsValidationError
from pulumi_dws.testing.gcloud import GcloudCommand, GcloudRuns, gcloud_unavailable_reason

# (machine type, topology, chips, VMs, Cloud TPU accelerator type or None), as Google's
# system architecture pages list them (docs.cloud.google.com/tpu/docs/v6e, /v5e, /v5p).
DOCUMENTED = [
    ("ct6e-standard-1t", "1x1", 1, 1, "v6e-1"),
    ("ct6e-standard-4t", "2x2", 4, 1, "v6e-4"),
    ("ct6e-standard-8t", "2x4", 8, 1, "v6e-8"),
    ("ct6e-standard-4t", "2x4", 8, 2, None),  # "only supported when using the GKE API"
    ("ct6e-standard-4t", "4x4", 16, 4, "v6e-16"),
    ("ct6e-standard-4t", "4x8", 32, 8, "v6e-32"),
    ("ct6e-standard-4t", "8x8", 64, 16, "v6e-64"),
    ("ct6e-standard-4t", "8x16", 128, 32, "v6e-128"),
    ("ct6e-standard-4t", "16x16", 256, 64, "v6e-256"),
    ("ct5lp-hightpu-1t", "1x1", 1, 1, "v5litepod-1"),
    ("ct5lp-hightpu-4t", "2x2", 4, 1, "v5litepod-4"),
    ("ct5lp-hightpu-8t", "2x4", 8, 1, "v5litepod-8"),
    ("ct5lp-hightpu-4t", "4x4", 16, 4, "v5litepod-16"),
    ("ct5lp-hightpu-4t", "16x16", 256, 64, "v5litepod-256"),
    ("ct5p-hightpu-4t", "2x2x1", 4, 1, "v5p-8"),
    ("ct5p-hightpu-4t", "2x2x2", 8, 2, "v5p-16"),
    ("ct5p-hightpu-4t", "2x2x4", 16, 4, "v5p-32"),
    ("ct5p-hightpu-4t", "4x4x4", 64, 16, "v5p-128"),
    ("ct5p-hightpu-4t", "8x8x16", 1024, 256, "v5p-2048"),
    ("ct5p-hightpu-4t", "16x16x24", 6144, 1536, "v5p-12288"),
]


@pytest.mark.parametrize(("machine", "topology", "chips", "vms", "cloud_tpu"), DOCUMENTED)
def test_each_documented_slice_has_its_chips_vms_and_cloud_tpu_name(
    machine: str, topology: str, chips: int, vms: int, cloud_tpu: str | None
) -> None:
    tpu = catalog.tpu_slice(machine, topology)
    assert (tpu.chips, tpu.vms, tpu.hosts) == (chips, vms, vms)
    assert tpu.multi_host is (vms > 1)
    assert tpu.cloud_tpu_type == cloud_tpu
    if cloud_tpu is not None:
        back = catalog.cloud_tpu_slice("accelerator_type", cloud_tpu)
        assert (back.machine_type, back.topology, back.chips, back.vms) == (
            machine,
            topology,
            chips,
            vms,
        )


@pytest.mark.parametrize(
    ("machine", "label", "vm_family", "version", "config_type", "runtime"),
    [
        (
            "ct6e-standard-4t",
            "tpu-v6e-slice",
            "VM_FAMILY_CLOUD_TPU_LITE_POD_SLICE_CT6E",
            "V6E",
            "V6E",
            "v2-alpha-tpuv6e",
        ),
        (
            "ct5lp-hightpu-4t",
            "tpu-v5-lite-podslice",
            "VM_FAMILY_CLOUD_TPU_LITE_POD_SLICE_CT5LP",
            "V5E",
            "V5LITE_POD",
            "v2-alpha-tpuv5-lite",
        ),
        (
            "ct5p-hightpu-4t",
            "tpu-v5p-slice",
            "VM_FAMILY_CLOUD_TPU_POD_SLICE_CT5P",
            "V5P",
            "V5P",
            "v2-alpha-tpuv5",
        ),
    ],
)
def test_each_generation_has_the_name_every_api_uses(
    machine: str, label: str, vm_family: str, version: str, config_type: str, runtime: str
) -> None:
    gen = catalog.tpu_machine("machine_type", machine).generation
    assert gen.gke_accelerator == label
    assert gen.vm_family == vm_family
    assert gen.calendar_version == version
    assert gen.accelerator_config_type == config_type
    assert gen.runtime_version == runtime
    # Any of its names finds it again (gcloud's V6E, the vmFamily, the Cloud TPU prefix).
    for name in (gen.name, version, version.lower(), vm_family, gen.cloud_tpu_prefix):
        assert catalog.tpu_generation("tpu_version", name) is gen


def test_the_gke_node_labels_of_a_slice() -> None:
    assert catalog.tpu_slice("ct6e-standard-4t", "4x4").gke_node_labels() == {
        "cloud.google.com/gke-tpu-accelerator": "tpu-v6e-slice",
        "cloud.google.com/gke-tpu-topology": "4x4",
    }
    assert catalog.TPU_RESOURCE == "google.com/tpu"
    assert catalog.TPU_TAINT == {
        "key": "google.com/tpu",
        "value": "present",
        "effect": "NoSchedule",
    }


def test_a_machine_type_without_topology_is_one_vm() -> None:
    for machine, shape in [
        ("ct6e-standard-4t", "2x2"),
        ("ct6e-standard-8t", "2x4"),
        ("ct5p-hightpu-4t", "2x2x1"),
        ("tpu7x-standard-4t", "2x2x1"),
    ]:
        tpu = catalog.tpu_slice(machine)
        assert (tpu.topology, tpu.vms, tpu.multi_host) == (shape, 1, False)


def test_v5p_takes_shapes_of_multiples_of_four_up_to_the_cube_limit() -> None:
    tpu = catalog.tpu_slice("ct5p-hightpu-4t", "4x8x12")
    assert (tpu.chips, tpu.vms, tpu.cloud_tpu_type) == (384, 96, None)
    with pytest.raises(DwsValidationError, match=r"^tpu_topology: 16x16x28 is 112 cubes .*1 to 96"):
        catalog.tpu_slice("ct5p-hightpu-4t", "16x16x28")
    with limits.overridden("tpu.v5p_cubes", maximum=140):
        assert catalog.tpu_slice("ct5p-hightpu-4t", "16x16x28").vms == 1792


@pytest.mark.parametrize(
    ("machine", "topology", "fragment"),
    [
        ("ct6e-standard-4t", "4x4x", "2 or 3 whole numbers separated by 'x'"),
        ("ct6e-standard-4t", "four", "2 or 3 whole numbers"),
        ("ct6e-standard-4t", "0x4", "no dimension may be 0"),
        ("ct6e-standard-4t", "2x2x2", "TPU v6e (Trillium) topologies have 2"),
        ("ct6e-standard-4t", "3x3", "not a topology of ct6e-standard-4t (4 chips per VM)"),
        ("ct6e-standard-8t", "4x4", "use one of 2x4"),
        ("ct5p-hightpu-4t", "4x4", "TPU v5p topologies have 3"),
        ("ct5p-hightpu-4t", "8x4x4", "ascending order (4x4x8)"),
        ("ct5p-hightpu-4t", "3x3x3", "multiples of 4 with A <= B <= C"),
        ("tpu7x-standard-4t", "2x2x4", "workload policy"),
    ],
)
def test_a_bad_topology_names_the_topology_field(
    machine: str, topology: str, fragment: str
) -> None:
    with pytest.raises(DwsValidationError) as info:
        catalog.tpu_slice(machine, topology, topology_field="tpu_topology")
    assert info.value.field == "tpu_topology" and fragment in str(info.value), str(info.value)


def test_an_unknown_tpu_machine_type_names_the_machine_field() -> None:
    with pytest.raises(
        DwsValidationError, match=r"^machine_type: ct6e-standard-2t is not a known TPU"
    ):
        catalog.tpu_slice("ct6e-standard-2t", "4x4")


@pytest.mark.parametrize(
    ("accelerator_type", "fragment"),
    [
        ("v6e-3", "offers v6e-N with N one of 1, 4, 8, 16, 32, 64, 128, 256"),
        ("v5litepod-512", "N one of 1, 4, 8, 16, 32, 64, 128, 256"),
        ("v5p-4", "counts TensorCores (2 per chip)"),
        ("tpu7x-8", "not available through the Cloud TPU API"),
        ("v7-8", "version one of v6e, v5litepod, v5p"),
        ("v6e", "not a Cloud TPU accelerator type"),
        ("ct6e-standard-4t", "not a Cloud TPU accelerator type"),
    ],
)
def test_a_bad_cloud_tpu_accelerator_type_names_the_field(
    accelerator_type: str, fragment: str
) -> None:
    with pytest.raises(DwsValidationError) as info:
        catalog.cloud_tpu_slice("accelerator_type", accelerator_type)
    assert info.value.field == "accelerator_type" and fragment in str(info.value), str(info.value)


def test_every_cloud_tpu_type_round_trips_and_counts_its_chips() -> None:
    names = catalog.cloud_tpu_types()
    assert {"v6e-16", "v5litepod-16", "v5p-8"} <= set(names)
    assert catalog.cloud_tpu_types("v6e") == [f"v6e-{n}" for n in (1, 4, 8, 16, 32, 64, 128, 256)]
    for name in names:
        tpu = catalog.cloud_tpu_slice("accelerator_type", name)
        assert tpu.cloud_tpu_type == name
        number = int(name.rsplit("-", 1)[1])
        assert number == tpu.chips * tpu.generation.cores_per_chip
        assert tpu.vms * tpu.chips_per_vm == tpu.chips


def test_runtime_versions_of_another_generation_are_refused() -> None:
    assert catalog.check_runtime_version("runtime_version", "v6e-16", "v2-alpha-tpuv6e")
    # Other runtimes (TensorFlow's, base images) are the API's to judge.
    assert catalog.check_runtime_version("runtime_version", "v5p-8", "tpu-vm-tf-2.16.1-pjrt")
    with pytest.raises(
        DwsValidationError,
        match=r"^runtime_version: v2-alpha-tpuv5-lite is the runtime of TPU v5e; v6e-16 "
        r"\(TPU v6e \(Trillium\)\) uses v2-alpha-tpuv6e",
    ):
        catalog.check_runtime_version("runtime_version", "v6e-16", "v2-alpha-tpuv5-lite")
    for bad in ("", "V2-ALPHA", "v2 alpha"):
        with pytest.raises(DwsValidationError, match="^runtime_version: .*not a Cloud TPU runtime"):
            catalog.check_runtime_version("runtime_version", "v6e-16", bad)


def test_register_tpu_topology_teaches_a_new_shape() -> None:
    with pytest.raises(DwsValidationError, match="^tpu_topology: 4x16"):
        catalog.tpu_slice("ct6e-standard-4t", "4x16")
    saved = catalog.tpu_machine("machine_type", "ct6e-standard-4t")
    try:
        catalog.register_tpu_topology("ct6e-standard-4t", "4x16")
        assert catalog.tpu_slice("ct6e-standard-4t", "4x16").vms == 16
    finally:
        catalog.tpus._MACHINES["ct6e-standard-4t"] = saved
    with pytest.raises(DwsValidationError, match="^topology: 3x3 does not fit ct6e-standard-4t"):
        catalog.register_tpu_topology("ct6e-standard-4t", "3x3")


def test_gpus_and_tpu_chips_are_counted_apart() -> None:
    tpu = catalog.machine_accelerators("ct6e-standard-4t")
    gpu = catalog.machine_accelerators("a3-highgpu-8g")
    assert tpu == catalog.MachineAccelerators("tpu", "v6e", 4)
    assert gpu == catalog.MachineAccelerators("gpu", "nvidia-h100-80gb", 8)
    assert catalog.machine_accelerators("n2-standard-8") is None
    # A GPU field given a TPU machine type says so, instead of "not a known GPU type".
    with pytest.raises(
        DwsValidationError, match="^machine_type: ct6e-standard-4t is a TPU machine"
    ):
        catalog.machine_shape("machine_type", "ct6e-standard-4t")


# ----------------------------------------------------------------------- gcloud oracle
# gcloud computes a TPU pool's node count from its topology when --num-nodes is not given
# (api_adapter.TpuTopologyToNumNodes) and refuses a malformed topology before sending anything.
_SKIP = gcloud_unavailable_reason("beta")
_ORACLE = [
    ("ct6e-standard-4t", "4x4"),
    ("ct5lp-hightpu-4t", "8x8"),
    ("ct5p-hightpu-4t", "4x4x8"),
    ("ct6e-standard-8t", "2x4"),
]


_POOL = ["beta", "container", "node-pools", "create", "p", "--cluster=c", "--location=us-east5"]
GCLOUD_POOLS = {
    (machine, topology): GcloudCommand.of(
        [
            *_POOL,
            "--node-locations=us-east5-b",
            f"--machine-type={machine}",
            f"--tpu-topology={topology}",
        ]
    )
    for machine, topology in _ORACLE
}
GCLOUD_MALFORMED = GcloudCommand.of(
    [*_POOL, "--machine-type=ct6e-standard-4t", "--tpu-topology=4x4x"]
)


@pytest.mark.skipif(_SKIP is not None, reason=_SKIP or "")
@pytest.mark.gcloud(*GCLOUD_POOLS.values())
def test_vms_per_slice_equal_the_node_count_gcloud_derives(gcloud_runs: GcloudRuns) -> None:
    def node_count(machine: str, topology: str) -> object:
        capture = gcloud_runs.run(GCLOUD_POOLS[(machine, topology)].args)
        assert capture.ok, capture.describe()
        pool = capture.create_request().body["nodePool"]
        assert pool["placementPolicy"] == {"tpuTopology": topology}
        return pool["initialNodeCount"]

    counts = [node_count(m, t) for m, t in _ORACLE]
    assert counts == [catalog.tpu_slice(m, t).vms for m, t in _ORACLE]


@pytest.mark.skipif(_SKIP is not None, reason=_SKIP or "")
@pytest.mark.gcloud(GCLOUD_MALFORMED)
def test_gcloud_refuses_the_malformed_topology_the_catalog_refuses(gcloud_runs: GcloudRuns) -> None:
    capture = gcloud_runs.run(GCLOUD_MALFORMED.args)
    assert not capture.ok and not capture.requests
    assert "Must provide 2-3 integers separated by 'x'" in capture.stderr
    with pytest.raises(DwsValidationError, match="2 or 3 whole numbers separated by 'x'"):
        catalog.parse_topology("tpu_topology", "4x4x")
