"""GKE custom ComputeClasses whose priorities reach Calendar blocks, Flex-start, Spot or
on-demand nodes: ``ComputeClass``.

The kind's package: ``component`` (the component), ``spec`` and ``checks`` (its args, their
validated form and the rules of each priority), ``manifest`` (the object), ``versions`` (the GKE
version each field needs), ``limits`` (its limits rows), ``rules`` (its policy rules), ``kind``
(its declaration to :mod:`pulumi_dws.registry`) and ``testing`` (its test aids, loaded only by
:mod:`pulumi_dws.testing`)."""

from .component import *  # noqa: F403
from .component import __all__ as __all__
