"""The rules Google documents for an ``instances.insert`` body, each with its source (see
:mod:`pulumi_dws.testing.emulator.rules`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .... import limits
from ..base import GoogleError
from ..rules import Rules

__all__ = ["ABOUT_FLEX_START", "INSERT_RULES", "NewInstance", "duration_seconds"]

ABOUT_FLEX_START = "https://cloud.google.com/compute/docs/instances/about-flex-start-vms"
CREATE_FLEX_START = "https://cloud.google.com/compute/docs/instances/create-flex-start-vm"
CREATE_VM = "https://docs.cloud.google.com/ai-hypercomputer/docs/create/create-vm"


@dataclass(frozen=True)
class NewInstance:
    """An ``instances.insert`` body (its template's properties merged in) and its zone."""

    zone: str
    body: dict[str, Any]

    @property
    def scheduling(self) -> dict[str, Any]:
        return self.body.get("scheduling") or {}

    @property
    def flex_start(self) -> bool:
        return self.scheduling.get("provisioningModel") == "FLEX_START"

    @property
    def queue_window(self) -> Any:
        """``params.requestValidForDuration``, or None."""
        return ((self.body.get("params") or {}).get("requestValidForDuration")) or None


INSERT_RULES: Rules[NewInstance] = Rules("compute.instances.insert")


def _invalid(field: str, message: str) -> GoogleError:
    return GoogleError(400, f"Invalid value for field 'resource.{field}': {message}", "invalid")


@INSERT_RULES.rule("https://cloud.google.com/compute/docs/reference/rest/v1/instances/insert")
def machine_type_in_the_zone(new: NewInstance) -> None:
    """A machine type is required, and a zonal one must be of the instance's zone."""
    machine_url = new.body.get("machineType")
    if not machine_url:
        raise _invalid("machineType", "''.")
    if "zones/" in machine_url and f"zones/{new.zone}/" not in machine_url:
        raise _invalid("machineType", f"'{machine_url}'. Machine type must be in zone {new.zone}.")


@INSERT_RULES.rule(CREATE_FLEX_START)
def queue_window_only_with_flex_start(new: NewInstance) -> None:
    """``params.requestValidForDuration`` queues a Flex-start request: other models have none."""
    if new.queue_window is not None and not new.flex_start:
        raise _invalid(
            "params.requestValidForDuration",
            "it is only supported with provisioningModel FLEX_START.",
        )


@INSERT_RULES.rule(ABOUT_FLEX_START)
def flex_start_needs_a_max_run_duration(new: NewInstance) -> None:
    """Flex-start VMs run for a limited time (up to seven days): ``maxRunDuration`` is set."""
    if new.flex_start and not new.scheduling.get("maxRunDuration"):
        raise GoogleError(400, "FLEX_START instances require scheduling.maxRunDuration.", "invalid")


@INSERT_RULES.rule(ABOUT_FLEX_START)
def flex_start_terminates_on_host_maintenance(new: NewInstance) -> None:
    """A Flex-start VM stops on host maintenance and is not restarted by Compute."""
    if not new.flex_start:
        return
    rules = [
        ("onHostMaintenance", new.scheduling.get("onHostMaintenance") != "TERMINATE", "TERMINATE"),
        ("automaticRestart", new.scheduling.get("automaticRestart") is True, "false"),
    ]
    for field_name, bad, wanted in rules:
        if bad:
            raise _invalid(
                f"scheduling.{field_name}",
                f"FLEX_START instances require {field_name} {wanted}.",
            )


@INSERT_RULES.rule(f"{CREATE_VM} (Flex-start: between 10 minutes and seven days)")
def flex_start_run_inside_its_limits(new: NewInstance) -> None:
    """The run duration is inside limits row ``flex_start.max_run_duration``."""
    if new.flex_start:
        within(
            "scheduling.maxRunDuration",
            new.scheduling["maxRunDuration"],
            "flex_start.max_run_duration",
        )


@INSERT_RULES.rule(f"{CREATE_FLEX_START} (requestValidForDuration: 90 seconds to 2 hours)")
def queue_window_inside_its_limits(new: NewInstance) -> None:
    """The queue window is inside limits row ``flex_start.request_valid_for``."""
    if new.flex_start and new.queue_window is not None:
        within("params.requestValidForDuration", new.queue_window, "flex_start.request_valid_for")


def duration_seconds(duration: dict[str, Any]) -> int:
    """The whole seconds of a ``{"seconds": ...}`` duration."""
    return int(duration.get("seconds", 0))


def within(field_name: str, duration: dict[str, Any], key: str) -> int:
    """Google's 400 unless ``duration`` is inside limits row ``key``; its seconds."""
    seconds = duration_seconds(duration)
    row = limits.get(key)
    if (row.minimum is not None and seconds < row.minimum) or (
        row.maximum is not None and seconds > row.maximum
    ):
        raise _invalid(field_name, f"{seconds}s. Allowed: {row.allowed()}.")
    return seconds
