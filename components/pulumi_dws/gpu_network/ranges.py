"""IPv4 ranges of a ``GpuNetwork``'s subnetworks: checked CIDRs, and one range cut into equal
parts the way Cluster Toolkit's ``gpu-rdma-vpc`` module cuts it (``cidrsubnet(range, bits, i)``
with ``bits = ceil(log2(count))``: 8 RDMA subnets of a ``/18`` are ``/21`` each)."""

from __future__ import annotations

import ipaddress
import math

from ..errors import DwsValidationError

__all__ = ["check_cidr", "split_range", "overlapping"]


def check_cidr(field: str, value: object) -> str:
    """A private IPv4 range in CIDR form (``192.168.0.0/19``), as Compute subnetworks take."""
    if not isinstance(value, str):
        raise DwsValidationError(field, value, "must be an IPv4 range like 192.168.0.0/19")
    try:
        network = ipaddress.IPv4Network(value, strict=True)
    except ValueError as exc:
        raise DwsValidationError(
            field, value, f"is not an IPv4 range like 192.168.0.0/19 ({exc})"
        ) from None
    if not network.is_private:
        raise DwsValidationError(field, value, "must be a private range (RFC 1918)")
    if network.prefixlen > 29:
        raise DwsValidationError(
            field, value, "is too small: a Compute subnetwork range is /29 or larger"
        )
    return value


def split_range(field: str, cidr: str, count: int) -> list[str]:
    """``count`` equal parts of ``cidr`` (Cluster Toolkit modules/network/gpu-rdma-vpc)."""
    network = ipaddress.IPv4Network(check_cidr(field, cidr))
    bits = math.ceil(math.log2(count)) if count > 1 else 0
    if network.prefixlen + bits > 29:
        raise DwsValidationError(
            field, cidr, f"is too small for {count} subnetworks of /29 or larger"
        )
    parts = list(network.subnets(prefixlen_diff=bits))
    return [str(part) for part in parts[:count]]


def overlapping(ranges: list[tuple[str, str]]) -> tuple[str, str, str] | None:
    """The first pair of ``(field, cidr)`` that overlap, as ``(field, cidr, other field)``."""
    seen: list[tuple[str, ipaddress.IPv4Network]] = []
    for field, cidr in ranges:
        network = ipaddress.IPv4Network(cidr)
        for other, net in seen:
            if network.overlaps(net):
                return field, cidr, other
        seen.append((field, network))
    return None
