"""Models served on Vertex AI Flex-start capacity: ``FlexStartDeployment`` and its dynamic
resource.

The kind's package: ``component`` (the component, its args and spec), ``kind`` (its
declaration to :mod:`pulumi_dws.registry`), ``api`` / ``create`` / ``provider`` (its dynamic
resource), ``limits`` (its rows) and ``testing`` (its test aids, loaded only by
:mod:`pulumi_dws.testing`). What it shares with ``VertexTrainingJob`` is
:mod:`pulumi_dws.kinds.vertex_training.vertex`."""

from .component import *  # noqa: F403
from .component import __all__ as __all__
