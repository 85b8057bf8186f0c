"""Cloud Batch jobs on Flex-start VMs: ``BatchFlexJob`` and its dynamic resource.

The kind's package: ``component`` (the component, its args and spec), ``kind`` (its
declaration to :mod:`pulumi_dws.registry`), ``locations`` (the regions Batch serves), ``api`` /
``create`` / ``provider`` (its dynamic resource), ``limits`` (its rows) and ``testing`` (its
test aids, loaded only by :mod:`pulumi_dws.testing`)."""

from .component import *  # noqa: F403
from .component import __all__ as __all__
