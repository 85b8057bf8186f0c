"""A ``secure:`` value anywhere inside ``dws:capacity`` stays a Pulumi secret into the dynamic
resources' inputs (and so the state), and ``dws plan`` plans it as a secret value instead of
failing on the text ``[secret]``."""

from __future__ import annotations

from pathlib import Path

from pulumi.runtime import rpc

from pulumi_dws.cli import main
from pulumi_dws.plan import run_plan
from pulumi_dws.testing.mocks import GcpMocks

PROGRAM = "from pulumi_dws.blueprint import deploy_from_config\ndeploy_from_config()\n"
CONFIG = """config:
  gcp:project: p
  dws:capacity:
    flex_start_vms:
      - name: trainer
        zone: us-central1-a
        machine_type: a3-highgpu-8g
        max_run_duration: 1d
        labels:
          team:
            secure: v1:AAAABBBBCCCC
        startup_script:
          secure: v1:DDDDEEEEFFFF
"""


def _project(tmp: Path) -> Path:
    (tmp / "Pulumi.yaml").write_text("name: secure-capacity\nruntime: python\n")
    (tmp / "__main__.py").write_text(PROGRAM)
    (tmp / "Pulumi.dev.yaml").write_text(CONFIG)
    return tmp


def _vm(plan_or_mocks: list) -> dict:
    [vm] = [r for r in plan_or_mocks if r.type == "pulumi-python:dynamic/dws:FlexStartVm"]
    return vm.inputs


def test_a_secure_label_value_plans_and_shows_as_a_secret(tmp_path: Path) -> None:
    plan = run_plan(_project(tmp_path))
    [vm] = [r for r in plan.resources if r.type == "pulumi-python:dynamic/dws:FlexStartVm"]
    assert vm.inputs["body"] == "[secret]"  # shown as a secret, never as its value
    assert main(["plan", str(tmp_path), "--no-policy"]) == 0
    assert "v1:AAAA" not in str(plan.resources)


def test_secure_values_stay_secret_in_the_dynamic_resource_inputs() -> None:
    import pulumi

    from pulumi_dws.blueprint import deploy_from_config

    mocks = GcpMocks(project="p")
    config = {
        "gcp:project": "p",
        "dws:capacity": (
            '{"flex_start_vms": [{"name": "trainer", "zone": "us-central1-a", '
            '"machine_type": "a3-highgpu-8g", "max_run_duration": "1d", '
            '"startup_script": "echo s3cr3t"}]}'
        ),
    }

    def program() -> None:
        deploy_from_config(pulumi.Config("dws"))

    mocks.run_program(program, config=config, secret_keys=["dws:capacity"])
    [vm] = [r for r in mocks.registered if r.type == "pulumi-python:dynamic/dws:FlexStartVm"]
    body = vm.inputs["body"]
    assert rpc.is_rpc_secret(body), body  # into the state as a secret
    assert "s3cr3t" in str(body)
    assert rpc.is_rpc_secret(vm.inputs["zone"])
    [template] = [
        r for r in mocks.registered if r.type == "gcp:compute/instanceTemplate:InstanceTemplate"
    ]
    assert all(rpc.is_rpc_secret(v) for v in template.inputs.values() if v is not None)


def test_without_a_secure_value_nothing_is_made_secret() -> None:
    import pulumi

    from pulumi_dws.blueprint import deploy_from_config

    mocks = GcpMocks(project="p")
    config = {
        "gcp:project": "p",
        "dws:capacity": (
            '{"flex_start_vms": [{"name": "trainer", "zone": "us-central1-a", '
            '"machine_type": "a3-highgpu-8g", "max_run_duration": "1d"}]}'
        ),
    }
    mocks.run_program(lambda: deploy_from_config(pulumi.Config("dws")), config=config)
    [vm] = [r for r in mocks.registered if r.type == "pulumi-python:dynamic/dws:FlexStartVm"]
    assert not rpc.is_rpc_secret(vm.inputs["body"])
