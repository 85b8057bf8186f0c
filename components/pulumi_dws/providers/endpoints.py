"""Where each Google API lives, and how a user points it at a local server.

Precedence: the environment variable (``DWS_COMPUTE_ENDPOINT``, ``DWS_AIPLATFORM_ENDPOINT``),
then stack config (``dws:computeEndpoint``, ``dws:aiplatformEndpoint``), then Google's
endpoint. Overrides are root URLs such as ``http://127.0.0.1:8765/``; the API path
(``compute/v1/``, ``v1beta1/``) is appended as it is to Google's root.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

__all__ = ["Api", "COMPUTE", "AIPLATFORM", "resolve_root", "is_loopback"]


@dataclass(frozen=True)
class Api:
    """One Google API: its default root, its path prefix and its override knobs."""

    name: str
    default_root: str  # may contain {region}
    path: str
    env_var: str
    config_key: str

    def root(self, region: str | None = None, config: Mapping[str, Any] | None = None) -> str:
        """The root URL in force (always ending in ``/``)."""
        return resolve_root(self, region, config)

    def base(self, region: str | None = None, config: Mapping[str, Any] | None = None) -> str:
        """Root plus API path, e.g. ``https://compute.googleapis.com/compute/v1/``."""
        return self.root(region, config) + self.path


COMPUTE = Api(
    "compute",
    "https://compute.googleapis.com/",
    "compute/v1/",
    "DWS_COMPUTE_ENDPOINT",
    "dws:computeEndpoint",
)
AIPLATFORM = Api(
    "aiplatform",
    "https://{region}-aiplatform.googleapis.com/",
    "v1beta1/",
    "DWS_AIPLATFORM_ENDPOINT",
    "dws:aiplatformEndpoint",
)


def resolve_root(
    api: Api, region: str | None = None, config: Mapping[str, Any] | None = None
) -> str:
    """Env var, then stack config, then Google's default root for ``api``."""
    value = os.environ.get(api.env_var) or (config or {}).get(api.config_key)
    if not value:
        if "{region}" in api.default_root and not region:
            raise ValueError(f"{api.name}: a region is needed to build the regional endpoint")
        value = api.default_root.format(region=region or "")
    return value if value.endswith("/") else value + "/"


def is_loopback(url: str) -> bool:
    """True when ``url`` points at this machine (then anonymous credentials are used)."""
    host = urlparse(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
