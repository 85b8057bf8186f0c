"""The emulated Compute Engine v1 API: the subset pulumi-dws calls, with DWS Flex-start behaviour.

    with Emulator() as emu:
        compute = emu["compute"]
        compute.add_capacity("us-central1-a", "a3-highgpu-8g", 1, after=3600)  # arrives in 1 h
        ...  # insert a FLEX_START VM with params.requestValidForDuration = 2 h: it is PENDING
        emu.clock.advance(3600)                                              # now RUNNING

Laid out like every emulated service (see ``docs/emulator-services.md``): ``models.py`` holds
the state and what the virtual clock does to it (:class:`ComputeBackend`, whose helpers tests
call), ``responses.py`` the HTTP handlers, ``urls.py`` the route table.

Behaviour (all on the virtual clock):

* ``instances.insert`` validates the body against the discovery schema ``Instance`` (400 on an
  unknown field or a wrong type), merges ``sourceInstanceTemplate`` properties under the body,
  and enforces the Flex-start rules (``maxRunDuration``, ``onHostMaintenance: TERMINATE``, no
  automatic restart, the queue window limits). With ``params.requestValidForDuration`` the VM
  is ``PENDING`` and its insert operation ``RUNNING`` until capacity arrives (then ``RUNNING``,
  operation ``DONE``) or the window ends (operation ``DONE`` with a
  ``ZONE_RESOURCE_POOL_EXHAUSTED`` error; the VM is removed, or kept ``TERMINATED`` with
  ``keep_failed_instances``). Without it: ``RUNNING`` if capacity is free now, else Compute
  keeps trying for ``fail_fast_seconds`` (about 90 s) and then fails the same way.
* ``maxRunDuration`` ends a run: ``instanceTerminationAction`` ``STOP`` leaves the VM
  ``TERMINATED`` (kept), ``DELETE`` removes it; either way its capacity is given back.
* ``stop`` releases capacity; ``start`` places a new capacity request (queued for the VM's
  original window, or fail-fast) and restarts the run clock once placed.
* ``get``, ``list``, ``delete``, ``setLabels`` / ``setMetadata`` (fingerprints checked: 412 on a
  stale one), ``setMachineType`` (stopped VMs only), zone operations ``get`` / ``wait``,
  instance templates ``insert`` / ``get`` / ``delete`` and global operations ``get``.
* ``suspend`` / ``resume``; :meth:`~ComputeBackend.set_status` gives a VM a status as Compute
  would on its own, :meth:`~ComputeBackend.transition` a passing state (``STOPPING``,
  ``SUSPENDING``, ``PENDING_STOP``...) that settles later on the virtual clock.
* ``requestId`` (a UUID) makes every mutation idempotent: the same id answers the same
  operation and does nothing twice, for ``request_id_ttl`` seconds (Compute keeps them "at
  least 60 minutes"); afterwards the id is forgotten and a repeat is a new request. Note what
  that means after a deliberate delete: an insert repeated with the id of the insert that made
  the deleted VM is answered with that old, finished operation, while no VM exists.
  :attr:`~ComputeBackend.inserted` logs each VM really created, with its request id, and
  :attr:`~ComputeBackend.created` with its instance id and time, so tests can prove there were
  no duplicate creates and count orphans from the emulator's own records.
* Path parameters (project, zone, instance, operation) and name fields must match the
  ``pattern`` of the discovery document, as Google checks them.
* Managed instance groups (zonal and regional), regional instance templates and resize
  requests (``CREATING`` -> ``ACCEPTED`` -> ``SUCCEEDED`` when capacity for the whole set
  arrives, all or nothing; ``FAILED``/``CANCELLED`` roll the VMs back; the VMs are deleted at the
  run's end), with region operations: see :mod:`.models_mig` and its test hooks
  (``fail_resize_request``, ``fail_next_resize_request``, ``remove_resize_request``,
  ``mig_accept_seconds``, ``mig_boot_seconds``); :attr:`~ComputeBackend.resize_inserted` logs
  each request really created.
"""

from __future__ import annotations

from ..base import Route, bind_routes
from .models import COMPUTE_SELF_LINK_ROOT, STOCKOUT_CODE, ComputeBackend
from .responses import ComputeResponses
from .urls import ROUTES

__all__ = ["COMPUTE_SELF_LINK_ROOT", "STOCKOUT_CODE", "ComputeBackend", "ComputeService"]


class ComputeService(ComputeBackend):
    """The Compute backend served at its routes: what the emulator plugs in as ``compute``."""

    def routes(self) -> list[Route]:
        """The Compute v1 paths this service answers (under ``/compute/v1/``)."""
        responses = ComputeResponses(self)
        return bind_routes(ROUTES, responses, responses.check_path)
