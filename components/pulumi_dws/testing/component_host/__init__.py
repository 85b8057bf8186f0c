"""Drive the ``dws`` component provider plugin (``provider/``) over gRPC, the way the engine
does: ``GetSchema``, ``Construct`` (its registrations answered by a fake resource monitor that
behaves as :class:`~pulumi_dws.testing.GcpMocks`), ``Check`` and the served dynamic resources::

    from pulumi_dws.testing.component_host import ComponentProviderHost

    with ComponentProviderHost() as host, host.deployment() as deployment:
        out = deployment.construct("dws:index:FlexStartInstance", "trainer", {
            "zone": "us-central1-a", "machineType": "a3-highgpu-8g", "maxRunDuration": "3d",
        })
        out.state["status"]                  # "RUNNING", as GcpMocks answers
        [r.type for r in deployment.registered]
"""

from .host import (
    CLOSE_CANCEL_DEADLINE,
    PLUGIN_DIR,
    ComponentProviderHost,
    Constructed,
    Deployment,
    PropertyError,
    ProviderCallError,
)
from .monitor import FakeEngine, FakeMonitor, LogRecord
from .samples import COMPONENT_ARGS, package_cases, schema_inputs

__all__ = [
    "CLOSE_CANCEL_DEADLINE",
    "COMPONENT_ARGS",
    "package_cases",
    "PLUGIN_DIR",
    "ComponentProviderHost",
    "Constructed",
    "Deployment",
    "FakeEngine",
    "FakeMonitor",
    "LogRecord",
    "PropertyError",
    "ProviderCallError",
    "schema_inputs",
]
