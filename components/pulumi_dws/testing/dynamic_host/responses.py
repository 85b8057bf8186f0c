"""What a dynamic-provider host answers, as Python values, and the errors it raises."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final, Literal

import grpc
from pulumi.runtime.proto import provider_pb2

__all__ = [
    "CheckFailure",
    "ConfigureResponse",
    "DiffChanges",
    "DiffResponse",
    "DynamicHostError",
    "DynamicProviderError",
    "PropertyDiff",
]

DiffChanges = Literal["unknown", "none", "some"]
"""``DiffResponse.changes``: ``DIFF_UNKNOWN``, ``DIFF_NONE`` or ``DIFF_SOME``."""

_CHANGES: Final[dict[int, DiffChanges]] = {
    provider_pb2.DiffResponse.DIFF_UNKNOWN: "unknown",
    provider_pb2.DiffResponse.DIFF_NONE: "none",
    provider_pb2.DiffResponse.DIFF_SOME: "some",
}

_DIFF_KINDS: Final[dict[int, str]] = {
    provider_pb2.PropertyDiff.ADD: "add",
    provider_pb2.PropertyDiff.ADD_REPLACE: "add-replace",
    provider_pb2.PropertyDiff.DELETE: "delete",
    provider_pb2.PropertyDiff.DELETE_REPLACE: "delete-replace",
    provider_pb2.PropertyDiff.UPDATE: "update",
    provider_pb2.PropertyDiff.UPDATE_REPLACE: "update-replace",
}


@dataclass(frozen=True)
class CheckFailure:
    """One validation failure returned by ``Check`` (a ``pulumi.dynamic.CheckFailure``)."""

    property: str
    reason: str


@dataclass(frozen=True)
class PropertyDiff:
    """One entry of a detailed diff: ``kind`` is ``add``, ``update``, ``delete-replace``, ..."""

    kind: str
    input_diff: bool


@dataclass(frozen=True)
class DiffResponse:
    """What the host answered to ``Diff``.

    The Python host only ever fills ``changes``, ``replaces`` and ``delete_before_replace``:
    ``stables`` from a ``pulumi.dynamic.DiffResult`` are dropped, and it never sends ``diffs`` or
    a detailed diff (the engine then diffs the inputs itself to show what changed).
    """

    changes: DiffChanges
    replaces: list[str] = field(default_factory=list)
    stables: list[str] = field(default_factory=list)
    delete_before_replace: bool = False
    diffs: list[str] = field(default_factory=list)
    detailed_diff: dict[str, PropertyDiff] = field(default_factory=dict)
    has_detailed_diff: bool = False

    @property
    def replace(self) -> bool:
        """True if the engine would replace the resource (some property forces replacement)."""
        return bool(self.replaces)

    @classmethod
    def from_message(cls, response: Any) -> DiffResponse:
        """The Python view of a ``provider_pb2.DiffResponse``."""
        return cls(
            changes=_CHANGES.get(response.changes, "unknown"),
            replaces=list(response.replaces),
            stables=list(response.stables),
            delete_before_replace=response.deleteBeforeReplace,
            diffs=list(response.diffs),
            detailed_diff={
                key: PropertyDiff(_DIFF_KINDS.get(d.kind, str(d.kind)), d.inputDiff)
                for key, d in response.detailedDiff.items()
            },
            has_detailed_diff=response.hasDetailedDiff,
        )


@dataclass(frozen=True)
class ConfigureResponse:
    """Protocol options the host negotiated in its ``Configure`` answer."""

    accept_secrets: bool
    supports_preview: bool
    accept_resources: bool
    accept_outputs: bool


class DynamicHostError(Exception):
    """The host process could not be started, or it broke the protocol."""


class DynamicProviderError(Exception):
    """A gRPC call to the host failed, usually because the provider raised.

    The Python host aborts the call with ``StatusCode.UNKNOWN`` and the full Python traceback as
    details. ``message`` is the final exception line(s) of that traceback without the type
    (``"zone must be set"``), ``exception_type`` the exception's (possibly dotted) type name
    (``"ValueError"``), ``details`` the raw details, ``code`` the gRPC status code and ``method``
    the RPC that failed (``"Create"``).
    """

    def __init__(self, method: str, code: grpc.StatusCode, details: str) -> None:
        self.method = method
        self.code = code
        self.details = details
        self.exception_type, self.message = _parse_traceback(details)
        shown = f"{self.exception_type}: {self.message}" if self.exception_type else self.message
        super().__init__(f"{method} failed ({code.name}): {shown}")


def _parse_traceback(details: str) -> tuple[str | None, str]:
    """Split the last exception of a formatted traceback into (type, message)."""
    lines = details.rstrip().splitlines()
    if not lines:
        return None, ""
    start = 0
    if lines[0].startswith("Traceback"):
        # The final exception block starts after the last indented (frame/source/caret) line.
        for index, line in enumerate(lines):
            if line.startswith((" ", "\t")):
                start = index + 1
        start = min(start, len(lines) - 1)
    block = "\n".join(lines[start:])
    head, sep, rest = block.partition(": ")
    if sep and head and " " not in head and head.replace(".", "").replace("_", "").isalnum():
        return head, rest
    if " " not in block and block.replace(".", "").replace("_", "").isalnum():
        return block, ""  # ``raise SomeError()`` without a message
    return None, block
