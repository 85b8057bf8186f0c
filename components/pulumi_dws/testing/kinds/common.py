"""How resources no capacity kind owns behave under :class:`~pulumi_dws.testing.GcpMocks`:
networks, subnetworks, service accounts, and any Kubernetes object or Helm release."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..mocks import compute_global, compute_regional, short_hash

if TYPE_CHECKING:
    from ..mocks import GcpMocks

__all__ = ["network", "subnetwork", "service_account", "kubernetes"]


network = compute_global("networks")
subnetwork = compute_regional("subnetworks")


def service_account(mocks: GcpMocks, typ: str, name: str, s: dict[str, Any]) -> str:
    email = f"{s.get('accountId')}@{s['project']}.iam.gserviceaccount.com"
    s.setdefault("email", email)
    s.setdefault("member", f"serviceAccount:{email}")
    s.setdefault("uniqueId", str(int(short_hash(email, length=12), 16)))
    rid = f"projects/{s['project']}/serviceAccounts/{email}"
    s.setdefault("name", rid)  # the provider's ``name`` is the full resource name
    return rid


def kubernetes(mocks: GcpMocks, typ: str, name: str, s: dict[str, Any]) -> str:
    if typ.startswith("kubernetes:helm.sh/"):
        s.setdefault("name", f"{name}-{short_hash(typ, name)}")
        s.setdefault("status", {"status": "deployed", "version": s.get("version")})
        return f"{s.get('namespace', 'default')}/{s['name']}"
    meta = s.setdefault("metadata", {})
    meta.setdefault("name", f"{name}-{short_hash(typ, name, length=8)}")
    meta.setdefault("uid", short_hash("uid", typ, name, length=32))
    namespace = meta.get("namespace")
    return f"{namespace}/{meta['name']}" if namespace else meta["name"]
