"""What every dynamic provider that calls a Google REST API shares (``FlexStartVm``,
``MigResizeRequest``, ``SlurmCluster``, ``QueuedTpu``): no secret state, the endpoint override
from stack config, and a REST client built inside each call (Application Default Credentials,
or anonymous for a loopback emulator), so the pickled provider holds no client and no
credentials.

Every attribute has a class default, so a provider pickled by an earlier release (whose
instance carries fewer attributes, or others) still loads and runs."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar, TypeVar

import pulumi.dynamic as dyn

from .endpoints import CREDENTIAL_HOSTS_CONFIG, Api
from .host_hooks import install
from .rest import GoogleRestClient

if TYPE_CHECKING:
    from .rest import PollPolicy

__all__ = ["RestProvider", "DEFAULT_TIMEOUT", "shared_provider"]

DEFAULT_TIMEOUT = 7200.0
"""How long a long-running operation or a resource's state is waited for, in seconds."""


class RestProvider(dyn.ResourceProvider):
    """A dynamic provider that calls the Google API :attr:`API`.

    ``sleep`` replaces ``time.sleep`` between retries and polls (tests pass one that advances
    an emulator's virtual clock) and ``poll`` the :class:`~pulumi_dws.providers.rest.PollPolicy`
    (kept as :attr:`poll_policy`); neither is set on the provider a stack pickles.
    """

    API: ClassVar[Api]
    """The API called; its ``config_key`` is the stack config that overrides its endpoint."""

    serialize_as_secret_always = False  # it holds no secret: keep the state readable
    endpoint: str | None = None
    """The endpoint override from stack config (the environment variable still wins)."""
    trusted_hosts: str | None = None
    """Hosts other than Google's that get credentials (stack config ``dws:credentialHosts``;
    set on the instance only when given)."""
    timeout: float = DEFAULT_TIMEOUT
    sleep: Callable[[float], None] | None = None
    poll_policy: PollPolicy | None = None
    """How operations are polled (default: :class:`~pulumi_dws.providers.rest.PollPolicy`)."""

    def __init__(
        self,
        sleep: Callable[[float], None] | None = None,
        poll: PollPolicy | None = None,
        timeout: float | None = None,
    ) -> None:
        super().__init__()
        if sleep is not None:
            self.sleep = sleep
        if poll is not None:
            self.poll_policy = poll
        if timeout is not None:
            self.timeout = timeout

    def configure(self, req: dyn.ConfigureRequest) -> None:
        """Keep the endpoint override from stack config (e.g. ``dws:computeEndpoint``); inside
        Pulumi's dynamic-provider host, let the engine's cancellation reach the waits
        (:func:`~.host_hooks.install`)."""
        self.endpoint = req.config.get(self.API.config_key)
        hosts = req.config.get(CREDENTIAL_HOSTS_CONFIG)
        if hosts:
            self.trusted_hosts = hosts
        install()

    def client(self, location: str | None = None) -> GoogleRestClient:
        """A REST client for this call: the endpoint in force (for a regional API, the one of
        ``location``), this provider's sleep and poll policy."""
        config = {self.API.config_key: self.endpoint} if self.endpoint else None
        client = GoogleRestClient(
            self.API.base(location, config),
            sleep=self.sleep,
            credential_hosts=self.trusted_hosts,
        )
        if self.poll_policy is not None:
            client.poll = self.poll_policy
        return client


P = TypeVar("P", bound=RestProvider)
_SHARED: dict[type[RestProvider], RestProvider] = {}


def shared_provider(cls: type[P]) -> P:
    """The one ``cls()`` every resource of a program that names no provider shares."""
    provider = _SHARED.get(cls)
    if not isinstance(provider, cls):
        provider = _SHARED[cls] = cls()
    return provider
