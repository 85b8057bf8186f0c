"""Vertex AI custom training jobs on Flex-start: ``VertexTrainingJob`` and its dynamic resource.

The kind's package: ``component`` (the component, its args and spec), ``kind`` (its
declaration to :mod:`pulumi_dws.registry`), ``vertex`` (what the Vertex AI doors share),
``api`` / ``create`` / ``provider`` (its dynamic resource), ``limits`` (its rows) and
``testing`` (its test aids, loaded only by :mod:`pulumi_dws.testing`)."""

from .component import *  # noqa: F403
from .component import __all__ as __all__
