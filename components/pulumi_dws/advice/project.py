"""Which project to ask about when the user names none.

Order: the explicit value; then ``GOOGLE_CLOUD_PROJECT``; then Application Default Credentials'
project (``google.auth.default()``); then gcloud's (``gcloud config get-value project``). With a
loopback endpoint override (a local emulator) ADC is not consulted: there are no Google
credentials to use there, so only an explicit project or gcloud's config count.
"""

from __future__ import annotations

import os
import shutil
import subprocess

from ..providers.endpoints import is_loopback
from .errors import AdviceError

__all__ = ["resolve_project", "adc_project", "gcloud_project"]


def adc_project() -> str | None:
    """The project Application Default Credentials name, or ``None``."""
    try:
        import google.auth
        from google.auth.exceptions import DefaultCredentialsError
    except ImportError:  # pragma: no cover - google-auth is a dependency
        return None
    try:
        _, project = google.auth.default()
    except DefaultCredentialsError:
        return None
    return project or None


def gcloud_project(timeout: float = 30.0) -> str | None:
    """``gcloud config get-value project``, or ``None`` (no gcloud, unset, or failure)."""
    exe = shutil.which("gcloud")
    if exe is None:
        return None
    try:
        proc = subprocess.run(
            [exe, "config", "get-value", "project"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    value = proc.stdout.strip().splitlines()[-1].strip() if proc.stdout.strip() else ""
    if proc.returncode != 0 or not value or value == "(unset)":
        return None
    return value


def resolve_project(explicit: str | None, base_url: str) -> str:
    """The project to use, or an :class:`AdviceError` (``no_project``) saying how to set one."""
    if explicit:
        return explicit
    if os.environ.get("GOOGLE_CLOUD_PROJECT"):  # set by hand, or by `dws emulator`'s exports
        return os.environ["GOOGLE_CLOUD_PROJECT"]
    local = is_loopback(base_url)
    project = None if local else adc_project()
    project = project or gcloud_project()
    if project:
        return project
    if local:
        raise AdviceError(
            "no_project",
            f"No project given. The Compute endpoint is a local server ({base_url}), so "
            "Application Default Credentials are not consulted: pass --project, or set one "
            "with `gcloud config set project PROJECT`.",
        )
    raise AdviceError(
        "no_project",
        "No project given, and neither Application Default Credentials nor gcloud name one: "
        "pass --project, run `gcloud config set project PROJECT`, or set "
        "GOOGLE_CLOUD_PROJECT.",
    )
