"""Where each Google API lives, how a user points it at a local server, and which hosts get
credentials.

Precedence: the environment variable (``DWS_COMPUTE_ENDPOINT``, ``DWS_AIPLATFORM_ENDPOINT``,
``DWS_TPU_ENDPOINT``, and those a kind's own :class:`Api` declares, such as
``DWS_BATCH_ENDPOINT``), then stack config (``dws:computeEndpoint``, ...), then Google's
endpoint. Overrides are root URLs such as ``http://127.0.0.1:8765/``; the API path
(``compute/v1/``, ``v1beta1/``, ``v2alpha1/``) is appended as it is to Google's root.

Every :class:`Api` is recorded when it is declared: :func:`declared_apis` lists them, so what
points every endpoint at a local server (``dws emulator``, the test aids) covers a kind's API
without naming it.

Credentials (:func:`credentials_for`): the bearer token goes only to Google API hosts, every
host under ``googleapis.com`` (``compute.googleapis.com``, the regional
``us-central1-aiplatform.googleapis.com`` and ``*.rep.googleapis.com``, the mTLS
``*.mtls.googleapis.com``, Private Service Connect's ``*.p.googleapis.com``, Private Google
Access's ``private.googleapis.com`` and ``restricted.googleapis.com``). Any other HTTPS endpoint
is called without one, unless the user names that host in ``DWS_CREDENTIAL_HOSTS`` or the stack
config ``dws:credentialHosts`` (comma-separated host names): whoever can edit an endpoint in
stack config can't collect the token by pointing it at their own host. A loopback endpoint (a
local emulator) never gets one; plain HTTP off this machine is refused.
"""

from __future__ import annotations

import ipaddress
import os
import re
import socket
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlsplit

__all__ = [
    "CREDENTIAL_HOSTS_CONFIG",
    "CREDENTIAL_HOSTS_ENV",
    "Api",
    "COMPUTE",
    "AIPLATFORM",
    "TPU",
    "InsecureEndpointError",
    "check_endpoint",
    "credentials_for",
    "declared_apis",
    "is_google_host",
    "resolve_root",
    "is_loopback",
]

_REGION = re.compile(r"[a-z]+-[a-z]+[0-9]+")
CREDENTIAL_HOSTS_ENV = "DWS_CREDENTIAL_HOSTS"
CREDENTIAL_HOSTS_CONFIG = "dws:credentialHosts"
GOOGLE_API_DOMAIN = "googleapis.com"
_LABEL = r"[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?"
_HOST_NAME = re.compile(rf"(?:{_LABEL}\.)*{_LABEL}\.?", re.IGNORECASE)
"""A host name as DNS spells it (letters, digits, ``-``; ``_`` as some private names have it).
Anything else in a host (``\\``, ``%``, ``;``...) is read differently by Python's ``urlsplit``,
which judges the host, and by urllib3, which connects: ``https://evil.example\\.googleapis.com/``
is a host under googleapis.com to the one and ``evil.example`` to the other."""


class InsecureEndpointError(ValueError):
    """An endpoint that credentials must not be sent to (plain HTTP off this machine), or that is
    not an HTTP(S) URL at all."""


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

    def __post_init__(self) -> None:
        _DECLARED.setdefault(self.env_var, self)


_DECLARED: dict[str, Api] = {}


def declared_apis() -> tuple[Api, ...]:
    """Every :class:`Api` declared so far, in the order they were (a kind's own is declared when
    its ``api`` module is imported: :func:`pulumi_dws.kinds.load_apis` imports them all)."""
    return tuple(_DECLARED.values())


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
TPU = Api(
    "tpu",
    "https://tpu.googleapis.com/",
    "v2alpha1/",  # the only version with provisioningModel, runDuration and queueingPolicy
    "DWS_TPU_ENDPOINT",
    "dws:tpuEndpoint",
)


def resolve_root(
    api: Api, region: str | None = None, config: Mapping[str, Any] | None = None
) -> str:
    """Env var, then stack config, then Google's default root for ``api``."""
    value = os.environ.get(api.env_var) or (config or {}).get(api.config_key)
    if not value:
        if "{region}" in api.default_root:
            if not region:
                raise ValueError(f"{api.name}: a region is needed to build the regional endpoint")
            if not isinstance(region, str) or not _REGION.fullmatch(region):
                raise ValueError(
                    f"{api.name}: region {region!r} is not a region like us-central1; it would "
                    "become part of the API's host name"
                )
        value = api.default_root.format(region=region or "")
    value = value if value.endswith("/") else value + "/"
    check_endpoint(value, source=f"{api.env_var} / {api.config_key}")
    return value


def _host_of(url: str) -> str:
    try:
        return (urlsplit(url).hostname or "").rstrip(".").lower()
    except ValueError:
        return ""


def is_loopback(url: str) -> bool:
    """True when ``url``'s host is this machine's loopback interface, however it is spelled:
    ``localhost`` (and ``*.localhost``), any address of ``127.0.0.0/8`` (``127.1``,
    ``2130706433``, ``0x7f.1``), ``::1`` and ``::ffff:127.0.0.1``. Names are never looked up."""
    host = _host_of(url)
    if not host:
        return False
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        pass
    else:
        mapped = getattr(address, "ipv4_mapped", None)
        return address.is_loopback or bool(mapped and mapped.is_loopback)
    if all(part and part.replace("x", "").isalnum() for part in host.split(".")):
        try:  # the shorthand forms the C resolver accepts: 127.1, 0x7f000001, 2130706433
            return socket.inet_aton(host)[0] == 127
        except OSError:
            return False
    return False


def check_endpoint(url: str, *, source: str = "endpoint") -> Literal["loopback", "remote"]:
    """Where ``url`` may be called from, and with what: ``"loopback"`` (a local server: no
    credentials) or ``"remote"`` (HTTPS with Application Default Credentials). A plain
    ``http://`` endpoint off this machine is refused, so no token ever travels unencrypted."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as err:
        raise InsecureEndpointError(f"{source}: {url!r} is not a URL ({err})") from None
    del port
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InsecureEndpointError(
            f"{source}: {url!r} is not an http(s) URL such as http://127.0.0.1:8765/"
        )
    if parts.username or parts.password or parts.query or parts.fragment:
        raise InsecureEndpointError(
            f"{source}: {url!r} must be a plain root URL (no user, query or fragment)"
        )
    if not _is_host(parts.hostname) or "\\" in parts.netloc:
        raise InsecureEndpointError(
            f"{source}: {url!r}: {parts.hostname!r} is not a host name or an IP address"
        )
    if is_loopback(url):
        return "loopback"
    if parts.scheme != "https":
        raise InsecureEndpointError(
            f"{source}: refusing {url!r}: Google credentials are never sent over plain HTTP. "
            "Use https://, or a loopback address (127.0.0.1, localhost, [::1]) for a local "
            "emulator, which is called without credentials."
        )
    return "remote"


def _is_host(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return len(host) <= 254 and bool(_HOST_NAME.fullmatch(host))
    return True


def is_google_host(url: str) -> bool:
    """Whether ``url``'s host is a Google API host: ``googleapis.com`` or a name under it (the
    global, regional, mTLS, Private Service Connect and Private Google Access endpoints all
    are)."""
    host = _host_of(url)
    return host == GOOGLE_API_DOMAIN or host.endswith("." + GOOGLE_API_DOMAIN)


def _named_hosts(value: Any) -> set[str]:
    if not isinstance(value, str):
        return set()
    return {part.strip().rstrip(".").lower() for part in value.split(",") if part.strip()}


def credentials_for(url: str, config_hosts: Any = None) -> tuple[bool, str]:
    """Whether a call to ``url`` carries Application Default Credentials, and why not when it
    does not: a loopback endpoint never; a Google API host (:func:`is_google_host`) always;
    any other HTTPS host only when named in ``DWS_CREDENTIAL_HOSTS`` or ``config_hosts`` (the
    stack config ``dws:credentialHosts``)."""
    kind = check_endpoint(url)
    if kind == "loopback":
        return False, "a loopback endpoint is called without credentials"
    if is_google_host(url):
        return True, ""
    host = _host_of(url)
    named = _named_hosts(os.environ.get(CREDENTIAL_HOSTS_ENV)) | _named_hosts(config_hosts)
    if host in named:
        return True, ""
    return False, (
        f"no credentials were sent to {host}: it is not a Google API host (*.googleapis.com); "
        f"to send them there, name it in {CREDENTIAL_HOSTS_ENV} or the stack config "
        f"{CREDENTIAL_HOSTS_CONFIG}"
    )
