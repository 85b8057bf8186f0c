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
answers from the capacity model, ``api.py`` holds the handlers of the two methods, whose paths
come from the Compute discovery document.
"""

from __future__ import annotations

from ..base import Route
from ..discovery import DiscoverySchema
from ..routing import discovered_routes
from .api import AdviceApi
from .models import AdviceBackend

__all__ = ["AdviceBackend", "AdviceService"]


class AdviceService(AdviceBackend):
    """The advice backend served at its routes: what the emulator plugs in as ``advice``."""

    def routes(self) -> list[Route]:
        return discovered_routes(DiscoverySchema.load("compute", "v1"), [AdviceApi(self)])
