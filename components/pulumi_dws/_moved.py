"""Old import paths of moved modules: a :class:`DeprecationWarning` that names the new one."""

from __future__ import annotations

import warnings

__all__ = ["warn_moved"]


def warn_moved(old: str, new: str) -> None:
    """Warn, from the module ``old`` while it is imported, that it moved to ``new``. The
    warning points at the line that imported it (:mod:`warnings` skips the frames of the
    import machinery)."""
    warnings.warn(
        f"{old} moved to {new}: import {new} instead ({old} will be removed)",
        DeprecationWarning,
        stacklevel=3,
    )
