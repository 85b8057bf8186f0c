"""Test aids for stacks that use pulumi-dws: Google-Cloud-like mocks, an emulator of the
Google APIs the dynamic providers call, a driver for Pulumi's dynamic-provider host, and a
gcloud request oracle."""

from .mocks import GcpMocks, Registered, dynamic_behaviour

__all__ = ["GcpMocks", "Registered", "dynamic_behaviour"]
