"""Whose a resource is: the stack that made it (organization/project/stack and the resource's
name in it), and the key of the inputs it was made from.

A component passes its stack's identity to its dynamic resource as the ``owner`` input
(:data:`OWNER_INPUT`, :func:`owner_input`: a dynamic provider cannot learn it otherwise: the
Python host reports ``pulumi.get_stack() == "stack"`` and the engine passes the plugin only
``PULUMI_PROJECT`` and ``PULUMI_CONFIG``). A create marks what it makes with two labels:

``dws-create=<key>`` (:data:`~.create_machine.OWNER_LABEL`)
    20 hex digits of HMAC-SHA256, keyed with the stack's identity and the resource's name, over
    the inputs that make the resource what it is (:func:`owner_key`), *secret-bearing inputs
    left out* (:func:`identity`: metadata, labels, descriptions, scripts, environments): the
    same stack running the same create again (after a crash) adopts what it made; another
    stack, or other inputs, never do; and nothing about a startup script can be recovered
    from a label (labels reach billing exports).
``dws-stack=<mark>`` (:data:`STACK_LABEL`)
    the stack, readable (``<project>-<stack>`` made label-safe) and exact (8 hex digits of a
    hash of ``organization/project/stack``): errors name the stack that owns a resource, and
    ``dws leftovers --stack`` finds what a stack marked.

A state written before the ``owner`` input existed has none; such a create keys with an empty
identity (:data:`NO_OWNER`), as a release without stack identity did.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .rest import wire

__all__ = [
    "NO_OWNER",
    "OWNER_INPUT",
    "OWNERSHIP_OUTPUT",
    "Owner",
    "SECRET_BEARING",
    "STACK_LABEL",
    "identity",
    "owner_input",
    "owner_key",
    "sensitive_values",
    "stack_mark",
]

OWNER_INPUT = "owner"
"""The input a component passes: ``{"organization", "project", "stack", "name"}``."""
OWNERSHIP_OUTPUT = "ownership"
"""The output a create records: ``{"key": <dws-create>, "stack": <dws-stack>}`` (what a later
delete checks the live resource against)."""
STACK_LABEL = "dws-stack"
SECRET_BEARING = re.compile(
    r"metadata|labels|description|script|secret|password|token|env|environment", re.IGNORECASE
)
"""Keys (at any depth) whose values never go into an ownership key: they may carry secrets."""
_LABEL_UNSAFE = re.compile(r"[^a-z0-9_-]+")


@dataclass(frozen=True)
class Owner:
    """A stack (``organization/project/stack``) and a resource's name in it."""

    organization: str
    project: str
    stack: str
    name: str

    @classmethod
    def of(cls, props: Mapping[str, Any]) -> Owner | None:
        """The owner ``props`` carry (:data:`OWNER_INPUT`); None when they carry none (a state
        written before it existed, a provider called directly)."""
        value = props.get(OWNER_INPUT)
        if not isinstance(value, Mapping):
            return None
        parts = [value.get(k) for k in ("organization", "project", "stack", "name")]
        if not all(isinstance(p, str) and p for p in parts):
            return None
        return cls(*parts)  # type: ignore[arg-type]

    @property
    def stack_id(self) -> str:
        """``organization/project/stack``."""
        return f"{self.organization}/{self.project}/{self.stack}"

    @property
    def mark(self) -> str:
        """The :data:`STACK_LABEL` value."""
        return stack_mark(self.stack_id)


NO_OWNER = Owner("", "", "", "")


def stack_mark(stack_id: str) -> str:
    """The :data:`STACK_LABEL` value of ``organization/project/stack``: ``<project>-<stack>``,
    label-safe and at most 50 characters, then ``-`` and 8 hex digits of its hash (a label
    value: lowercase letters, digits, ``_`` and ``-``, at most 63)."""
    parts = stack_id.split("/")
    readable = "-".join(parts[-2:]) if len(parts) >= 2 else stack_id
    slug = _LABEL_UNSAFE.sub("-", readable.lower()).strip("-")[:50].strip("-")
    digest = hashlib.sha256(stack_id.encode()).hexdigest()[:8]
    return f"{slug}-{digest}" if slug else digest


def identity(value: Any) -> Any:
    """``value`` as an ownership key covers it: numbers as sent (:func:`~.rest.wire`), and every
    key matching :data:`SECRET_BEARING` left out, at any depth."""
    if isinstance(value, Mapping):
        return {str(k): identity(v) for k, v in value.items() if not SECRET_BEARING.search(str(k))}
    if isinstance(value, (list, tuple)):
        return [identity(v) for v in value]
    return wire(value)


def sensitive_values(value: Any, *, under: bool = False) -> list[str]:
    """The strings in ``value`` (a resource's inputs) that may be secret: every string under a
    key matching :data:`SECRET_BEARING` (metadata, labels, scripts...), at any depth. A dynamic
    provider never learns which inputs were secret (the engine strips the marks: the Python
    host does not accept secrets), so these are kept out of every message it writes."""
    found: list[str] = []
    if isinstance(value, Mapping):
        for key, item in value.items():
            found += sensitive_values(item, under=under or bool(SECRET_BEARING.search(str(key))))
    elif isinstance(value, (list, tuple)):
        for item in value:
            found += sensitive_values(item, under=under)
    elif under and isinstance(value, str):
        found.append(value)
    return found


def owner_key(owner: Owner | None, inputs: Mapping[str, Any]) -> str:
    """The :data:`~.create_machine.OWNER_LABEL` value for ``inputs`` (what makes the resource
    what it is) made by ``owner``: 20 hex digits of HMAC-SHA256 keyed with the owner's stack and
    name, over :func:`identity` of ``inputs``."""
    who = owner or NO_OWNER
    secret = f"dws-create\0{who.stack_id}\0{who.name}".encode()
    text = json.dumps(identity(inputs), sort_keys=True, separators=(",", ":"), default=str)
    return hmac.new(secret, text.encode(), hashlib.sha256).hexdigest()[:20]


def owner_input(name: str) -> dict[str, str]:
    """The :data:`OWNER_INPUT` a component passes for its child resource ``name``, from the
    running program's organization, project and stack."""
    import pulumi

    return {
        "organization": pulumi.get_organization() or "organization",  # the DIY backends' name
        "project": pulumi.get_project(),
        "stack": pulumi.get_stack(),
        "name": name,
    }
