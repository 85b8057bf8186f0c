"""What the Compute Engine dynamic providers (``FlexStartVm``, ``MigResizeRequest``) share:
:class:`~.rest_provider.RestProvider` pointed at the Compute v1 API (``dws:computeEndpoint``)."""

from __future__ import annotations

from typing import ClassVar

from .endpoints import COMPUTE, Api
from .rest_provider import RestProvider

__all__ = ["ComputeProvider"]


class ComputeProvider(RestProvider):
    """A dynamic provider that calls the Compute v1 REST API."""

    API: ClassVar[Api] = COMPUTE
