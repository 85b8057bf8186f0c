"""``FlexStartInstance`` under GcpMocks: children, the insert body, validation, the stack, the
blueprint kind, and the scheduling block against gcloud's own request."""

from __future__ import annotations

import runpy
from pathlib import Path
from typing import Any

import pulumi
import pytest
import yaml
from component_helpers import stack_default

from pulumi_dws import FlexStartInstance, limits
from pulumi_dws.blueprint import deploy_from_config
from pulumi_dws.duration import Duration
from pulumi_dws.errors import DwsValidationError
from pulumi_dws.kinds.flex_vm.component import TYPE, scheduling_block
from pulumi_dws.kinds.flex_vm.shapes import SHAPE_DESCRIPTION
from pulumi_dws.testing import GcpMocks
from pulumi_dws.testing.emulator.discovery import DiscoverySchema
from pulumi_dws.testing.gcloud import (
    GcloudCommand,
    GcloudRuns,
    field_differences,
    gcloud_unavailable_reason,
)

REPO = Path(__file__).resolve().parent.parent
VM = "pulumi-python:dynamic/dws:FlexStartVm"
TEMPLATE = "gcp:compute/instanceTemplate:InstanceTemplate"
BASE: dict[str, Any] = {
    "project": "proj",
    "zone": "us-central1-a",
    "machine_type": "a3-highgpu-8g",
    "max_run_duration": "3d",
}


def build(args: dict[str, Any], name: str = "trainer", **run: Any) -> tuple[GcpMocks, Any]:
    mocks = GcpMocks(project="mock-project")
    outputs = mocks.run(
        lambda: pulumi.Output.all(
            status=(vm := FlexStartInstance(name, args)).status,
            run_ends_at=vm.run_ends_at,
            instance_name=vm.instance_name,
            internal_ip=vm.internal_ip,
            template=vm.template_self_link,
        ),
        **run,
    )
    return mocks, outputs


def test_registers_component_template_and_dynamic_vm() -> None:
    mocks, outputs = build({**BASE, "request_valid_for": "2h"})
    assert mocks.types() == [TYPE, TEMPLATE, VM]
    component = mocks.one(TYPE, "trainer")
    template = mocks.one(TEMPLATE)
    vm = mocks.one(VM, "trainer-vm")
    # The template holds the shape only, shared by the program's VMs of that shape.
    assert template.name == f"flex-shape-{vm.inputs['templateShape']}"
    assert "::pulumi:pulumi:Stack::" in template.parent and vm.parent == component.urn
    assert template.inputs["description"] == SHAPE_DESCRIPTION
    # the default name is the component's and the stack's: two stacks never share one
    assert vm.id == f"projects/proj/zones/us-central1-a/instances/{stack_default('trainer')}"
    assert outputs["status"] == "RUNNING"
    assert outputs["instance_name"] == stack_default("trainer")
    assert outputs["internal_ip"].startswith("10.128.")
    assert outputs["run_ends_at"]
    assert outputs["template"] == template.outputs["selfLink"]


def test_vms_of_one_shape_share_one_template_per_program() -> None:
    mocks = GcpMocks(project="mock-project")

    def program() -> None:
        for i in range(3):
            FlexStartInstance(f"same-{i}", {**BASE, "labels": {"run": str(i)}})
        FlexStartInstance("bigger-disk", {**BASE, "boot_disk_size_gb": 500})
        FlexStartInstance("late-image", {**BASE, "image": pulumi.Output.from_input("img")})

    mocks.run(program)
    vms = {r.name: r.inputs for r in mocks.resources(VM)}
    templates = {r.name: r for r in mocks.resources(TEMPLATE)}
    shared = f"flex-shape-{vms['same-0-vm']['templateShape']}"
    bigger = f"flex-shape-{vms['bigger-disk-vm']['templateShape']}"
    # Labels are on the VMs, not the shape; another disk size is another shape; a shape with
    # an Output in it gets a template of its own, as a child, and no fingerprint.
    assert sorted(templates) == sorted([shared, bigger, "late-image-template"])
    link = templates[shared].outputs["selfLink"]
    assert [vms[f"same-{i}-vm"]["sourceInstanceTemplate"] for i in range(3)] == [link] * 3
    assert templates[bigger].inputs["disks"][0]["diskSizeGb"] == 500
    assert "templateShape" not in vms["late-image-vm"]
    late = templates["late-image-template"]
    assert late.parent == mocks.one(TYPE, "late-image").urn
    assert late.inputs["disks"][0]["sourceImage"] == "img"

    again = GcpMocks(project="mock-project")  # a new program registers its own templates
    again.run(lambda: FlexStartInstance("same-0", dict(BASE)))
    assert [r.name for r in again.resources(TEMPLATE)] == [shared]


def test_a_vm_with_its_own_gcp_provider_gets_a_template_of_that_provider() -> None:
    import pulumi_gcp as gcp

    mocks = GcpMocks(project="mock-project")

    def program() -> None:
        other = gcp.Provider("other-project", project="other")
        FlexStartInstance("default-provider", dict(BASE))
        FlexStartInstance("own-provider", dict(BASE), pulumi.ResourceOptions(provider=other))

    mocks.run(program)
    shapes = {r.name: r.inputs["templateShape"] for r in mocks.resources(VM)}
    assert shapes["default-provider-vm"] != shapes["own-provider-vm"]
    own = mocks.one(TEMPLATE, f"flex-shape-{shapes['own-provider-vm']}")
    assert "other-project" in own.provider
    assert mocks.one(TEMPLATE, f"flex-shape-{shapes['default-provider-vm']}").provider == ""


@pytest.mark.parametrize(
    "opts",
    [
        pulumi.ResourceOptions(protect=True),
        pulumi.ResourceOptions(transformations=[lambda args: None]),
        pulumi.ResourceOptions(transforms=[lambda args: None]),
    ],
    ids=["protect", "transformations", "transforms"],
)
def test_what_children_inherit_keeps_a_template_of_its_own(opts: pulumi.ResourceOptions) -> None:
    """A shared template is nobody's child: it would not inherit these options."""
    mocks = GcpMocks(project="mock-project")
    mocks.run(lambda: FlexStartInstance("trainer", dict(BASE), opts))
    template = mocks.one(TEMPLATE, "trainer-template")
    assert template.parent == mocks.one(TYPE, "trainer").urn
    assert "templateShape" not in mocks.one(VM).inputs


def test_template_carries_the_shape_and_flex_start_scheduling() -> None:
    mocks, _ = build({**BASE, "termination_action": "DELETE", "boot_disk_size_gb": 500})
    template = mocks.one(TEMPLATE).inputs
    assert template["machineType"] == "a3-highgpu-8g"
    assert template["scheduling"] == {
        "provisioningModel": "FLEX_START",
        "maxRunDuration": {"seconds": 259200},
        "instanceTerminationAction": "DELETE",
        "automaticRestart": False,
        "onHostMaintenance": "TERMINATE",
    }
    disk = template["disks"][0]
    assert disk["boot"] is True and disk["autoDelete"] is True
    assert disk["diskSizeGb"] == 500 and disk["diskType"] == "pd-balanced"
    assert disk["sourceImage"] == "projects/debian-cloud/global/images/family/debian-12"
    assert template["networkInterfaces"] == [{"network": "default"}]  # no public IP
    assert template["serviceAccount"]["scopes"] == [
        "https://www.googleapis.com/auth/cloud-platform"
    ]
    assert "labels" not in template and "metadata" not in template  # updated in place instead
    # A Flex-start VM consumes no reservation (gcloud --reservation-affinity=none).
    assert template["reservationAffinity"] == {"type": "NO_RESERVATION"}


def test_public_ip_accelerators_and_hyperdisk_families() -> None:
    mocks, _ = build(
        {
            **BASE,
            "machine_type": "n1-standard-8",
            "accelerators": [{"type": "nvidia-tesla-t4", "count": 1}],
            "public_ip": True,
            "subnetwork": "projects/proj/regions/us-central1/subnetworks/gpu",
            "service_account": "trainer@proj.iam.gserviceaccount.com",
        }
    )
    template = mocks.one(TEMPLATE).inputs
    assert template["guestAccelerators"] == [{"type": "nvidia-tesla-t4", "count": 1}]
    assert template["networkInterfaces"][0]["accessConfigs"] == [{}]
    assert template["networkInterfaces"][0]["subnetwork"].endswith("/gpu")
    assert template["serviceAccount"]["email"] == "trainer@proj.iam.gserviceaccount.com"
    body = mocks.one(VM).inputs["body"]
    assert body["guestAccelerators"] == [
        {
            "acceleratorType": "zones/us-central1-a/acceleratorTypes/nvidia-tesla-t4",
            "acceleratorCount": 1,
        }
    ]
    mocks, _ = build({**BASE, "machine_type": "a4-highgpu-8g"})
    assert mocks.one(TEMPLATE).inputs["disks"][0]["diskType"] == "hyperdisk-balanced"


def test_a_subnetwork_alone_picks_its_own_network() -> None:
    """Compute rejects a subnetwork outside the named network: with only ``subnetwork`` given,
    the template must not name ``default`` (as ``gcloud --subnet`` does not)."""
    subnet = "projects/proj/regions/us-central1/subnetworks/gpu"
    mocks, _ = build({**BASE, "subnetwork": subnet})
    nic = mocks.one(TEMPLATE).inputs["networkInterfaces"][0]
    assert nic.get("network") is None and nic["subnetwork"] == subnet
    mocks, _ = build({**BASE, "network": "ml-vpc", "subnetwork": subnet})
    nic = mocks.one(TEMPLATE).inputs["networkInterfaces"][0]
    assert nic["network"] == "ml-vpc" and nic["subnetwork"] == subnet


def test_insert_body_of_a_queued_vm() -> None:
    mocks, _ = build(
        {
            **BASE,
            "request_valid_for": "2h",
            "labels": {"team": "ml"},
            "metadata": {"enable-oslogin": "TRUE"},
            "startup_script": "nvidia-smi",
            "instance_name": "trainer-0",
        }
    )
    vm = mocks.one(VM).inputs
    template = mocks.one(TEMPLATE)
    assert vm["sourceInstanceTemplate"] == template.outputs["selfLink"]
    assert vm["project"] == "proj" and vm["zone"] == "us-central1-a" and vm["name"] == "trainer-0"
    assert vm["desiredStatus"] == "RUNNING" and vm["waitFor"] == "running"
    assert vm["body"] == {
        "name": "trainer-0",
        "machineType": "zones/us-central1-a/machineTypes/a3-highgpu-8g",
        "scheduling": scheduling_block(Duration.parse("3d"), "STOP"),
        "reservationAffinity": {"consumeReservationType": "NO_RESERVATION"},
        "params": {"requestValidForDuration": {"seconds": "7200"}},
        "labels": {"team": "ml"},
        "metadata": {
            "items": [
                {"key": "enable-oslogin", "value": "TRUE"},
                {"key": "startup-script", "value": "nvidia-smi"},
            ]
        },
    }
    # the body is valid Compute v1 JSON for instances.insert
    compute = DiscoverySchema.load("compute", "v1")
    assert compute.validate("Instance", vm["body"], method="compute.instances.insert") == []


def test_fail_fast_vm_has_no_queue_params() -> None:
    mocks, _ = build(BASE)
    assert "params" not in mocks.one(VM).inputs["body"]


@pytest.mark.parametrize(
    ("extra", "status"),
    [
        ({"request_valid_for": "2h", "wait_for": "accepted"}, "PENDING"),
        ({"request_valid_for": "2h", "wait_for": "running"}, "RUNNING"),
        ({"desired_status": "TERMINATED"}, "TERMINATED"),
    ],
)
def test_status_output(extra: dict[str, Any], status: str) -> None:
    _, outputs = build({**BASE, **extra})
    assert outputs["status"] == status
    assert (outputs["run_ends_at"] is None) == (status != "RUNNING")


@pytest.mark.parametrize(
    ("extra", "field", "text"),
    [
        ({"max_run_duration": "8d"}, "max_run_duration", "7d (604800s)"),
        ({"max_run_duration": "10s"}, "max_run_duration", "10m (600s) to 7d (604800s)"),
        ({"max_run_duration": "599s"}, "max_run_duration", "minimum of 10m (600s)"),
        ({"request_valid_for": "60s"}, "request_valid_for", "90s to 2h (7200s)"),
        ({"request_valid_for": "3h"}, "request_valid_for", "90s to 2h (7200s)"),
        ({"request_valid_for": "soon"}, "request_valid_for", "not a duration"),
        ({"termination_action": "PAUSE"}, "termination_action", "STOP"),
        ({"desired_status": "STOPPED"}, "desired_status", "TERMINATED"),
        ({"wait_for": "forever"}, "wait_for", "accepted"),
        ({"zone": "us-central1"}, "zone", "that is a region"),
        ({"machine_type": "n2-standard-8"}, "machine_type", "not a known GPU machine type"),
        (
            {"accelerators": [{"type": "nvidia-h100-80gb", "count": 8}]},
            "accelerators",
            "comes with its GPUs attached",
        ),
        (
            {"machine_type": "n1-standard-8", "accelerators": [{"type": "t4", "count": 3}]},
            "accelerators[0].count",
            "use 1 or 2 or 4 or 8",
        ),
        ({"labels": {"Team": "ml"}}, "labels key", "label key"),
        ({"metadata": {"bad key": "x"}}, "metadata key", "letters"),
        ({"instance_name": "Trainer"}, "instance_name", "RFC 1035"),
        ({"boot_disk_size_gb": 5}, "boot_disk_size_gb", "10 to 65536"),
        ({"colour": "blue"}, "colour", "unknown argument; known: zone, machine_type"),
        (
            {"startup_script": "a", "metadata": {"startup-script": "b"}},
            "startup_script",
            "not both",
        ),
    ],
)
def test_validation_names_field_value_and_range(
    extra: dict[str, Any], field: str, text: str
) -> None:
    mocks = GcpMocks()
    with pytest.raises(DwsValidationError) as info:
        mocks.run(lambda: FlexStartInstance("trainer", {**BASE, **extra}))
    assert info.value.field == field
    assert text in str(info.value)
    assert mocks.registered == []  # nothing registered before validation passed


def test_component_name_must_be_a_vm_name_unless_instance_name_is_given() -> None:
    with pytest.raises(DwsValidationError, match="pass instance_name"):
        GcpMocks().run(lambda: FlexStartInstance("Trainer_1", BASE))
    mocks, outputs = build({**BASE, "instance_name": "trainer-1"}, name="Trainer_1")
    assert outputs["instance_name"] == "trainer-1"


def test_limits_override_is_honoured() -> None:
    with limits.overridden("flex_start.request_valid_for", maximum="3h"):
        mocks, _ = build({**BASE, "request_valid_for": "3h"})
    assert mocks.one(VM).inputs["body"]["params"]["requestValidForDuration"] == {"seconds": "10800"}


def test_output_valued_inputs_are_checked_once_known() -> None:
    mocks, outputs = build(
        {
            **BASE,
            "zone": pulumi.Output.from_input("us-east1-b"),
            "labels": {"run": pulumi.Output.from_input("r42")},
        }
    )
    body = mocks.one(VM).inputs["body"]
    assert body["machineType"] == "zones/us-east1-b/machineTypes/a3-highgpu-8g"
    assert body["labels"] == {"run": "r42"}
    with pytest.raises(DwsValidationError, match="zone: us-east1 "):
        build({**BASE, "zone": pulumi.Output.from_input("us-east1")})
    with pytest.raises(DwsValidationError, match="labels"):
        build({**BASE, "labels": {"run": pulumi.Output.from_input("R42")}})


def test_project_defaults_to_the_provider_project() -> None:
    base = {k: v for k, v in BASE.items() if k != "project"}
    mocks, _ = build(base)
    assert mocks.one(VM).inputs["project"] == "mock-project"
    mocks, _ = build(base, config={"gcp:project": "from-config"})
    assert mocks.one(VM).inputs["project"] == "from-config"
    assert not [t for t, _ in mocks.invokes if "getClientConfig" in t]


def _stack_config(path: Path) -> dict[str, Any]:
    return yaml.safe_load(path.read_text())["config"]


def test_flex_start_vm_stack() -> None:
    stack = REPO / "stacks" / "flex-start-vm"
    project_file = yaml.safe_load((stack / "Pulumi.yaml").read_text())
    assert project_file["runtime"] == {
        "name": "python",
        "options": {"toolchain": "pip", "virtualenv": "../../.venv"},
    }
    mocks = GcpMocks(project="my-ml-project")
    exports = mocks.run_program(
        lambda: runpy.run_path(str(stack / "__main__.py")),
        project="flex-start-vm",
        config=_stack_config(stack / "Pulumi.dev.yaml"),
    )
    body = mocks.one(VM).inputs["body"]
    assert body["params"] == {"requestValidForDuration": {"seconds": "7200"}}
    assert body["scheduling"]["instanceTerminationAction"] == "STOP"
    assert mocks.one(VM).inputs["project"] == "my-ml-project"
    named = stack_default("trainer", project="flex-start-vm")
    assert exports["status"] == "RUNNING" and exports["instance"] == named
    assert exports["run_ends_at"]


def test_blueprint_kind() -> None:
    mocks = GcpMocks(project="my-ml-project")
    config = _stack_config(REPO / "Pulumi.dev.yaml")
    built = mocks.run(lambda: sorted(deploy_from_config()), config=config)
    assert "flex_start_vms/trainer" in built
    vm = mocks.one(VM, "trainer-vm").inputs
    assert vm["body"]["params"]["requestValidForDuration"] == {"seconds": "7200"}
    assert vm["body"]["labels"] == {"team": "research"}


def test_blueprint_rejects_a_bad_entry_with_its_path() -> None:
    config = {
        "dws:capacity": {"flex_start_vms": [{**BASE, "name": "x", "request_valid_for": "3h"}]}
    }
    with pytest.raises(DwsValidationError) as info:
        GcpMocks().run(deploy_from_config, config=config)
    assert info.value.field == "dws:capacity.flex_start_vms[0].request_valid_for"


# ---------------------------------------------------------------------- gcloud oracle
GCLOUD_CASES = [("3d", "STOP"), ("7d", "DELETE"), ("90m", "STOP")]
GCLOUD_SCHEDULING = {
    (run, action): GcloudCommand.of(
        [
            "alpha",
            "compute",
            "instances",
            "create",
            "vm-1",
            "--zone=us-central1-a",
            "--machine-type=a3-highgpu-8g",
            "--provisioning-model=FLEX_START",
            f"--max-run-duration={run}",
            f"--instance-termination-action={action}",
            "--no-restart-on-failure",
            "--on-host-maintenance=TERMINATE",
        ]
    )
    for run, action in GCLOUD_CASES
}


@pytest.mark.gcloud(*GCLOUD_SCHEDULING.values())
def test_scheduling_block_equals_what_gcloud_sends(gcloud_runs: GcloudRuns) -> None:
    reason = gcloud_unavailable_reason("alpha")
    if reason:
        pytest.skip(reason)

    def capture(case: tuple[str, str]) -> dict[str, Any]:
        cap = gcloud_runs.run(GCLOUD_SCHEDULING[case].args)
        assert cap.ok, cap.describe()
        return cap.create_request().body

    bodies = [capture(case) for case in GCLOUD_CASES]
    for (run, action), body in zip(GCLOUD_CASES, bodies, strict=True):
        ours = scheduling_block(Duration.parse(run), action)
        assert ours == body["scheduling"], (run, action)
        # and what the component sends is exactly that block
        mocks, _ = build({**BASE, "max_run_duration": run, "termination_action": action})
        assert mocks.one(VM).inputs["body"]["scheduling"] == body["scheduling"]


# Fields gcloud puts in the insert body that the component sends through the instance
# template (``sourceInstanceTemplate``) instead, each with its reason.
FROM_TEMPLATE = {
    "disks": "the boot disk comes from the template (disks, image, size, type)",
    "networkInterfaces": "the network comes from the template",
    "serviceAccounts": "the service account and scopes come from the template",
    "canIpForward": "gcloud spells out the default (false)",
    "deletionProtection": "gcloud spells out the default (false)",
    "machineType": "compared separately: gcloud sends a full URL, the body a zonal path",
}
_VM_FLAGS = [
    "--zone=us-central1-a",
    "--machine-type=a3-highgpu-8g",
    "--provisioning-model=FLEX_START",
    "--max-run-duration=3d",
    "--instance-termination-action=STOP",
    "--no-restart-on-failure",
    "--maintenance-policy=TERMINATE",
    "--reservation-affinity=none",
    "--labels=team=ml",
    "--metadata=enable-oslogin=TRUE",
]


GCLOUD_VM = GcloudCommand.of(["alpha", "compute", "instances", "create", "trainer", *_VM_FLAGS])
GCLOUD_TEMPLATE = GcloudCommand.of(
    ["alpha", "compute", "instance-templates", "create", "t-1", *_VM_FLAGS[1:]]
)


@pytest.mark.gcloud(GCLOUD_VM, GCLOUD_TEMPLATE)
def test_insert_body_and_template_equal_what_gcloud_sends(gcloud_runs: GcloudRuns) -> None:
    """Field for field: gcloud's ``instances create ... --reservation-affinity=none`` body
    against the FlexStartVm body (plus what the template carries), and gcloud's
    ``instance-templates create`` with the same flags against the template's inputs."""
    reason = gcloud_unavailable_reason("alpha")
    if reason:
        pytest.skip(reason)
    vm_cap = gcloud_runs.run(GCLOUD_VM.args)
    template_cap = gcloud_runs.run(GCLOUD_TEMPLATE.args)
    assert vm_cap.ok, vm_cap.describe()
    assert template_cap.ok, template_cap.describe()
    sent = vm_cap.canonical(vm_cap.create_request().body)

    mocks, _ = build(
        {
            **BASE,
            "instance_name": "trainer",  # gcloud's name
            "labels": {"team": "ml"},
            "metadata": {"enable-oslogin": "TRUE"},
        }
    )
    ours = mocks.one(VM).inputs["body"]
    assert field_differences(ours, sent, allowed=FROM_TEMPLATE) == []
    assert sent["reservationAffinity"] == {"consumeReservationType": "NO_RESERVATION"}
    assert sent["machineType"].endswith("/projects/demo-project/" + ours["machineType"])
    assert set(sent) - set(ours) == set(FROM_TEMPLATE) - {"machineType"}

    # The template: pulumi-gcp's reservation_affinity.type is the API's consumeReservationType
    # (terraform-provider-google expandReservationAffinity); scheduling maps one to one, the
    # int64 seconds travelling as a string.
    properties = template_cap.create_request().body["properties"]
    template = mocks.one(TEMPLATE).inputs
    affinity = {"consumeReservationType": template["reservationAffinity"]["type"]}
    assert field_differences(affinity, properties["reservationAffinity"]) == []
    scheduling = dict(template["scheduling"])
    scheduling["maxRunDuration"] = {"seconds": str(int(scheduling["maxRunDuration"]["seconds"]))}
    assert field_differences(scheduling, properties["scheduling"]) == []
    assert properties["machineType"] == template["machineType"]


def test_vm_run_duration_and_slurm_flex_duration_are_separate_limits() -> None:
    """A Flex-start VM runs 10 minutes to 7 days; 30 s is managed Slurm's
    ``flex_start_max_duration`` minimum, a different limit with its own row and source."""
    vm, slurm = (
        limits.get("flex_start.max_run_duration"),
        limits.get("slurm.flex_start_max_duration"),
    )
    assert (vm.minimum, vm.maximum) == (600, 604800)
    assert (slurm.minimum, slurm.maximum) == (30, 604800)
    assert "between 10 minutes and seven days" in vm.source and "cluster-toolkit" in vm.source
    assert "seed 002" in slurm.source
    with pytest.raises(DwsValidationError, match="minimum of 10m"):
        GcpMocks().run(lambda: FlexStartInstance("trainer", {**BASE, "max_run_duration": "5m"}))
    build({**BASE, "max_run_duration": "10m"})  # the minimum itself is fine
