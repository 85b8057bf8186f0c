"""What the ``FlexStartVm`` provider says when Compute refuses or fails a create or a start:
what was asked, where, why, and what to change."""

from __future__ import annotations

from ... import limits
from ...duration import Duration
from .api import FAIL_FAST_TRY_SECONDS, STOCKOUT_CODES, FlexStartError
from .target import FlexVm

__all__ = ["failure_text", "is_stockout", "rejected_text"]


def rejected_text(vm: FlexVm, err: Exception) -> str:
    """Why Compute refused an insert (nothing was created)."""
    if getattr(err, "ambiguous", False):
        return (
            f"{vm.describe()} could not be created: Compute Engine did not accept the insert "
            f"({err}). Nothing was created. To change: deploy again later."
        )
    return f"{vm.describe()} was rejected by Compute Engine: {err}. Nothing was created."


def is_stockout(exc: Exception) -> bool:
    """Whether a failed operation says Compute found no capacity."""
    codes = getattr(exc, "codes", None) or []
    return any(code.startswith(STOCKOUT_CODES) for code in codes)


def failure_text(vm: FlexVm, exc: Exception) -> str:
    """Why an accepted create (or a start) failed, and what to change."""
    window_row = limits.get("flex_start.request_valid_for")
    if is_stockout(exc) and vm.window:
        return (
            f"{vm.describe()} got no capacity: the queue window of "
            f"{Duration(vm.window).describe()} (request_valid_for) ended before Compute Engine "
            "could place it. To change: deploy again later, pick another zone or machine type "
            "(see `dws advise`), or lengthen request_valid_for (allowed: "
            f"{window_row.allowed()})."
        )
    if is_stockout(exc):
        return (
            f"{vm.describe()} got no capacity: Compute Engine found none in {vm.zone} within "
            f"about {FAIL_FAST_TRY_SECONDS}s and the request was not queued. To change: set "
            f"request_valid_for (allowed: {window_row.allowed()}) to wait in the DWS queue, or "
            "pick another zone or machine type (see `dws advise`)."
        )
    if isinstance(exc, TimeoutError):
        return (
            f"{vm.describe()} was not ready in time ({exc}). To change: deploy again later, or "
            "set wait_for='accepted' to return once the request is queued."
        )
    if isinstance(exc, FlexStartError):
        return str(exc).rstrip(".") + "."
    return f"{vm.describe()} could not be created: {exc}."
