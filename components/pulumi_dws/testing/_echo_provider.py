"""A tiny, stateless dynamic provider for exercising :mod:`pulumi_dws.testing.dynamic_host`.

It lives in an importable module on purpose: dill pickles a provider whose class is importable
*by reference* (module and class name), so the ``python -m pulumi.dynamic`` host process must be
able to import this module to unpickle it. Nothing is stored anywhere; every answer is computed
from the request, which makes what came back over the wire easy to assert on:

* ``configure`` records ``dws:computeEndpoint`` and the project-scoped ``flavor`` key;
* ``check`` requires a Compute Engine zone in ``zone`` (unknown values pass);
* ``create`` derives the id from the inputs and returns them with computed outputs, among them
  ``inputTypes`` (the Python type name of every input as the provider received it);
* ``diff`` reports changed inputs and asks for a replacement when ``zone`` changes;
* ``update`` returns the full outputs for the new inputs; ``read`` returns the given state;
* ``delete`` refuses ids it cannot have created.

Set the input ``failCreate``/``failUpdate`` to a message to make ``create``/``update`` raise
:class:`EchoProviderError` with it.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

import pulumi
from pulumi.dynamic import (
    CheckFailure,
    CheckResult,
    ConfigureRequest,
    CreateResult,
    DiffResult,
    ReadResult,
    ResourceProvider,
    UpdateResult,
)
from pulumi.output import Unknown

__all__ = ["COMPUTED_OUTPUTS", "EchoProvider", "EchoProviderError", "ZONE_PATTERN"]

ZONE_PATTERN = re.compile(r"^[a-z]+-[a-z]+[0-9]+-[a-z]\Z")
"""What ``check`` accepts as a zone (``us-central1-a``)."""

COMPUTED_OUTPUTS = frozenset({"computeEndpoint", "flavor", "hostProject", "inputTypes"})
"""Output names the provider adds to the inputs."""

_PROVIDER_KEY = "__provider"
_CONTROL_INPUTS = frozenset({"failCreate", "failUpdate"})


class EchoProviderError(RuntimeError):
    """Raised by :class:`EchoProvider` on request (``failCreate``/``failUpdate``) or misuse."""


class EchoProvider(ResourceProvider):
    """Echoes its inputs back as outputs; see the module docstring."""

    def __init__(self, id_prefix: str = "echo") -> None:
        super().__init__()
        self.id_prefix = id_prefix
        self.compute_endpoint: str | None = None
        self.flavor: str | None = None

    def configure(self, req: ConfigureRequest) -> None:
        """Record configuration values so tests can see them in the outputs."""
        self.compute_endpoint = req.config.get("dws:computeEndpoint")
        self.flavor = req.config.get("flavor")  # resolves to "<PULUMI_PROJECT>:flavor"

    def check(self, _olds: dict[str, Any], news: dict[str, Any]) -> CheckResult:
        """Require a well-formed zone; unknown values (previews) are accepted as they are."""
        failures: list[CheckFailure] = []
        zone = news.get("zone")
        if zone is None:
            failures.append(CheckFailure("zone", "zone is required"))
        elif not isinstance(zone, Unknown) and not (
            isinstance(zone, str) and ZONE_PATTERN.match(zone)
        ):
            failures.append(CheckFailure("zone", f"{zone!r} is not a zone such as 'us-central1-a'"))
        return CheckResult(dict(news), failures)

    def create(self, props: dict[str, Any]) -> CreateResult:
        """Return an id derived from the inputs, and the outputs."""
        if props.get("failCreate"):
            raise EchoProviderError(str(props["failCreate"]))
        return CreateResult(self.resource_id(props), self._outputs(props))

    def diff(self, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> DiffResult:
        """Compare inputs (``olds`` are the old outputs); a new ``zone`` forces replacement."""
        keys = (set(olds) | set(news)) - COMPUTED_OUTPUTS - {_PROVIDER_KEY}
        changed = sorted(k for k in keys if olds.get(k) != news.get(k))
        replaces = [k for k in changed if k == "zone"]
        return DiffResult(
            changes=bool(changed),
            replaces=replaces,
            stables=["hostProject"],
            delete_before_replace=bool(replaces),
        )

    def read(self, id_: str, props: dict[str, Any]) -> ReadResult:
        """Return the given state unchanged."""
        return ReadResult(id_, dict(props))

    def update(self, _id: str, _olds: dict[str, Any], news: dict[str, Any]) -> UpdateResult:
        """Return the full outputs for the new inputs."""
        if news.get("failUpdate"):
            raise EchoProviderError(str(news["failUpdate"]))
        return UpdateResult(self._outputs(news))

    def delete(self, id_: str, _props: dict[str, Any]) -> None:
        """Nothing to delete; refuse ids this provider cannot have returned."""
        if not id_.startswith(f"{self.id_prefix}-"):
            raise EchoProviderError(f"{id_!r} was not created by this provider")

    def resource_id(self, props: dict[str, Any]) -> str:
        """The id ``create`` returns for ``props``: prefix, zone and a digest of the inputs."""
        inputs = {k: v for k, v in props.items() if k != _PROVIDER_KEY and k not in _CONTROL_INPUTS}
        canonical = json.dumps(_canonical(inputs), sort_keys=True, default=str)
        digest = hashlib.sha256(canonical.encode("utf-8")).hexdigest()
        return f"{self.id_prefix}-{inputs.get('zone', 'nozone')}-{digest[:12]}"

    def _outputs(self, props: dict[str, Any]) -> dict[str, Any]:
        inputs = {k: v for k, v in props.items() if k != _PROVIDER_KEY}
        return {
            **inputs,
            "computeEndpoint": self.compute_endpoint,
            "flavor": self.flavor,
            "hostProject": pulumi.get_project(),
            "inputTypes": {k: type(v).__name__ for k, v in sorted(inputs.items())},
        }


def _canonical(value: Any) -> Any:
    """Numbers travel as doubles: make ``2`` and ``2.0`` hash alike."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: _canonical(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_canonical(v) for v in value]
    return value
