"""What the Compute Engine dynamic providers (``FlexStartVm``, ``MigResizeRequest``) share:
the declared base (:class:`~.rest_resource.RestResourceProvider`) pointed at the Compute v1 API
(``dws:computeEndpoint``)."""

from __future__ import annotations

from typing import ClassVar

from .endpoints import COMPUTE, Api
from .rest_resource import RestResourceProvider

__all__ = ["ComputeProvider"]


class ComputeProvider(RestResourceProvider):
    """A declared dynamic provider that calls the Compute v1 REST API (its operations:
    :mod:`~pulumi_dws.providers.compute_ops`)."""

    API: ClassVar[Api] = COMPUTE
    GONE_ID: ClassVar[str | None] = ""
