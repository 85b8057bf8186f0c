"""What the emulated APIs share about operations: the request ids that make a mutation happen
once, the long-running operations of one-platform APIs (Cloud TPU, Vertex AI), whatever
resource type they carry, and the answers a test asks to lose.

Compute's operations have a shape of their own (``compute/operations.py``) but keep their
request ids the same way.
"""

from __future__ import annotations

import copy
import datetime as dt
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .base import Request, Response
from .routing import Api
from .store import Store

__all__ = ["EMPTY", "LostAnswers", "Lro", "LroOperations", "RequestIds"]

EMPTY = "type.googleapis.com/google.protobuf.Empty"
"""The ``@type`` of an operation's response when the method returns nothing (a delete)."""


class RequestIds:
    """The request ids an API remembers for ``ttl`` seconds, each with the operation it
    answered: a repeat within that time is answered with the same operation and does nothing
    twice; afterwards the id is forgotten and a repeat is a new request."""

    def __init__(self, ttl: float) -> None:
        self.ttl = ttl
        self._seen: dict[Any, tuple[str, dt.datetime]] = {}

    def known(self, key: Any, now: dt.datetime) -> str | None:
        """The operation ``key`` answered, if it is still remembered at ``now``."""
        horizon = now - dt.timedelta(seconds=self.ttl)
        for old in [k for k, (_, at) in self._seen.items() if at <= horizon]:
            del self._seen[old]
        found = self._seen.get(key)
        return found[0] if found else None

    def remember(self, key: Any, operation: str, now: dt.datetime) -> None:
        self._seen[key] = (operation, now)


@dataclass
class Lro:
    """One ``google.longrunning.Operation``: its name, metadata, and once ``done`` its
    response or error."""

    name: str
    metadata: dict[str, Any]
    done: bool = False
    response: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    details: dict[str, Any] = field(default_factory=dict)
    """What the store that started it keeps about it (the change it applies, when it is due)."""

    @property
    def id(self) -> str:
        return self.name.rsplit("/", 1)[-1]


class LroOperations(Store):
    """The long-running operations of a one-platform API, for resources of any type.

    Args:
        type_prefix: the API's proto package as ``@type`` values name it
            (``type.googleapis.com/google.cloud.tpu.v2alpha1.``).
        pending_done: whether a running operation says ``"done": false`` (Cloud TPU does;
            Vertex AI leaves the field out).
    """

    def __init__(self, type_prefix: str, *, pending_done: bool = True) -> None:
        self.type_prefix = type_prefix
        self.pending_done = pending_done
        self.operations: dict[str, Lro] = {}
        self._lock = threading.RLock()

    def start(self, name: str, metadata_type: str, **metadata: Any) -> Lro:
        """A new running operation called ``name`` whose metadata is of ``metadata_type``
        (``OperationMetadata``)."""
        with self._lock:
            op = Lro(name, {"@type": self.type_prefix + metadata_type, **metadata})
            self.operations[name] = op
            return op

    def finish(
        self,
        op: Lro | None,
        *,
        resource: Mapping[str, Any] | None = None,
        resource_type: str = "",
        error: Mapping[str, Any] | None = None,
        **metadata: Any,
    ) -> None:
        """End ``op`` (once): with ``error`` (a ``google.rpc.Status``), else with ``resource``
        of ``resource_type`` (``QueuedResource``) as its response, or ``Empty``. ``metadata``
        is added to its metadata (``endTime``)."""
        if op is None or op.done:
            return
        with self._lock:
            op.done = True
            op.metadata.update(metadata)
            if error is not None:
                op.error = dict(error)
            elif resource is None:
                op.response = {"@type": EMPTY}
            else:
                op.response = {
                    "@type": self.type_prefix + resource_type,
                    **copy.deepcopy(dict(resource)),
                }

    def find(self, name: str) -> Lro | None:
        """The operation of that full name, or (a bare id) of that id."""
        with self._lock:
            if "/" in name:
                return self.operations.get(name)
            return next((op for op in self.operations.values() if op.id == name), None)

    def render(self, op: Lro) -> dict[str, Any]:
        """The operation as the API returns it."""
        with self._lock:
            body: dict[str, Any] = {"name": op.name, "metadata": copy.deepcopy(op.metadata)}
            if op.done:
                body["done"] = True
                if op.error is not None:
                    body["error"] = copy.deepcopy(op.error)
                else:
                    body["response"] = copy.deepcopy(op.response or {})
            elif self.pending_done:
                body["done"] = False
            return body


class LostAnswers:
    """Answers a test asks to lose: the next ``count`` requests of a method are carried out
    but answered ``503``, as when Google's front end fails after its backend committed."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self._lock = threading.Lock()

    def lose(self, method: str, count: int = 1) -> None:
        with self._lock:
            self.counts[method] = self.counts.get(method, 0) + count

    def answering(self, method: str) -> bool:
        """False when this request's answer is to be lost (one of those asked for is used)."""
        with self._lock:
            if self.counts.get(method, 0) > 0:
                self.counts[method] -= 1
                return False
            return True

    def clear(self) -> None:
        with self._lock:
            self.counts.clear()


class LocationOperationsApi(Api):
    """``projects.locations.operations``: ``get`` of a one-platform API's operation by its full
    name (``projects/P/locations/L/operations/ID``), answered by ``find(name)`` (which raises
    the API's 404 for a name it does not know)."""

    resources: ClassVar[tuple[str, ...]] = ("projects.locations.operations",)

    def __init__(self, find: Callable[[str], dict[str, Any]]) -> None:
        self.find = find

    def get(self, req: Request) -> Response:
        p = req.params
        name = f"projects/{p['project']}/locations/{p['location']}/operations/{p['operation']}"
        return Response(200, self.find(name))
