"""The emulated Compute ``advice`` methods, answered from the shared :class:`CapacityModel`.

- ``POST /compute/v1/projects/{p}/regions/{r}/advice/calendarMode``: recommends, per zone of
  the region, the earliest window inside a Calendar-mode block (``capacity.offer_calendar``)
  that fits the machine type, count, duration range and start range; zones that do not fit
  are listed under ``otherLocations`` (``NO_CAPACITY``, ``NOT_SUPPORTED``, ``RECOMMENDED``).
  Nothing fits: one recommendation with no ``location``, only ``otherLocations``, as Google
  documents it (or ``{}`` when the region has no zones at all).
- ``POST .../advice/capacity``: one recommendation from what is free now
  (``capacity.free``), shaped by ``distributionPolicy.targetShape``; ``{}`` when nothing is
  free.

Scenario knobs: ``ineligible`` (projects refused with a 403 "not eligible"), and
:meth:`AdviceService.fail_next` (queue any Google error for the next advice call).

Laid out like every emulated service (``docs/emulator-services.md``): ``models.py`` computes the
answers from the capacity model, ``responses.py`` holds the HTTP handlers, ``urls.py`` the
route table.
"""

from __future__ import annotations

from ..base import Route, bind_routes
from .models import AdviceBackend
from .responses import AdviceResponses
from .urls import ROUTES

__all__ = ["AdviceBackend", "AdviceService"]


class AdviceService(AdviceBackend):
    """The advice backend served at its routes: what the emulator plugs in as ``advice``."""

    def routes(self) -> list[Route]:
        return bind_routes(ROUTES, AdviceResponses(self))
