"""What the Compute Engine dynamic providers (``FlexStartVm``, ``MigResizeRequest``) share: no
secret state, the endpoint override from stack config, and a REST client built inside each call
(Application Default Credentials, or anonymous for a loopback emulator), so the pickled provider
holds no client and no credentials."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pulumi.dynamic as dyn

if TYPE_CHECKING:
    from .rest import GoogleRestClient

__all__ = ["ComputeProvider"]


class ComputeProvider(dyn.ResourceProvider):
    """A dynamic provider that calls the Compute v1 REST API.

    ``sleep`` replaces ``time.sleep`` between retries and polls (tests pass one that advances
    an emulator's virtual clock) and ``poll`` the :class:`~pulumi_dws.providers.rest.PollPolicy`;
    neither is set on the provider a stack pickles.
    """

    serialize_as_secret_always = False  # it holds no secret: keep the state readable
    config: dict[str, Any] | None = None
    sleep: Callable[[float], None] | None = None
    poll: Any = None  # a PollPolicy (default: PollPolicy())

    def __init__(self, sleep: Callable[[float], None] | None = None, poll: Any = None) -> None:
        super().__init__()
        if sleep is not None:
            self.sleep = sleep
        if poll is not None:
            self.poll = poll

    def configure(self, req: dyn.ConfigureRequest) -> None:
        """Keep the endpoint override from stack config (``dws:computeEndpoint``)."""
        from .endpoints import COMPUTE

        self.config = {COMPUTE.config_key: req.config.get(COMPUTE.config_key)}

    def client(self) -> GoogleRestClient:
        """A REST client for this call: the endpoint in force, this provider's sleep and poll
        policy."""
        from .endpoints import COMPUTE
        from .rest import GoogleRestClient

        client = GoogleRestClient(COMPUTE.base(config=self.config), sleep=self.sleep)
        if self.poll is not None:
            client.poll = self.poll
        return client
