"""Calls to ``advice.calendarMode`` and ``advice.capacity`` through the shared REST client."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any

from google.auth.exceptions import GoogleAuthError

from ..duration import DurationLike
from ..providers.endpoints import COMPUTE
from ..providers.rest import ApiError, CredentialsError, GoogleRestClient
from .errors import explain, explain_credentials
from .inputs import CalendarQuery, CapacityQuery, TimeLike, asks
from .models import (
    CalendarModeAdviceResponse,
    CapacityAdviceResponse,
    ProvisioningModel,
    TargetShape,
)
from .results import CalendarAdvice, CapacityAdvice

__all__ = [
    "CALENDAR_PATH",
    "CAPACITY_PATH",
    "default_client",
    "calendar_mode_advice",
    "capacity_advice",
    "ask_calendar_mode",
    "ask_capacity",
]

CALENDAR_PATH = "projects/{project}/regions/{region}/advice/calendarMode"
CAPACITY_PATH = "projects/{project}/regions/{region}/advice/capacity"


def default_client(config: Mapping[str, Any] | None = None) -> GoogleRestClient:
    """A client for the Compute API in force (``DWS_COMPUTE_ENDPOINT``, ``dws:computeEndpoint``
    or Google's), with the shared credentials and retry rules."""
    return GoogleRestClient(COMPUTE.base(config=config))


def _ask(
    method: str, path: str, query: CalendarQuery | CapacityQuery, client: GoogleRestClient
) -> Any:
    """POST ``query``'s request body to ``advice.<method>``; the JSON answer, or an explained
    ``AdviceError`` (API errors, and credentials that are missing or can't be refreshed)."""
    try:
        return client.post(  # a question, not a change: safe to send again
            path.format(project=query.project, region=query.region),
            query.to_request().to_api(),
            idempotent=True,
        )
    except CredentialsError as err:
        raise explain_credentials(err, method=method) from err
    except ApiError as err:
        raise explain(
            err, method=method, project=query.project, region=query.region, what=query.describe()
        ) from err
    except GoogleAuthError as err:
        raise explain_credentials(err, method=method) from err


def ask_calendar_mode(query: CalendarQuery, client: GoogleRestClient) -> CalendarAdvice:
    """Send a validated query; API errors come back as an explained ``AdviceError``."""
    body = _ask("calendarMode", CALENDAR_PATH, query, client)
    return CalendarAdvice(query, CalendarModeAdviceResponse.from_api(body))


def ask_capacity(query: CapacityQuery, client: GoogleRestClient) -> CapacityAdvice:
    """Send a validated query; API errors come back as an explained ``AdviceError``."""
    body = _ask("capacity", CAPACITY_PATH, query, client)
    return CapacityAdvice(query, CapacityAdviceResponse.from_api(body))


@asks(CalendarQuery, also=("client", "config"))
def calendar_mode_advice(
    project: str,
    region: str,
    machine_type: str | None,
    count: int,
    duration: DurationLike,
    *,
    tpu_version: str | None = None,
    workload_type: str | None = None,
    max_duration: DurationLike | None = None,
    earliest: TimeLike | None = None,
    latest: TimeLike | None = None,
    exclude_zones: Sequence[str] = (),
    client: GoogleRestClient | None = None,
    config: Mapping[str, Any] | None = None,
    now: dt.datetime | None = None,
) -> CalendarAdvice:
    """When and where would Google approve a Calendar-mode reservation?

    Example::

        advice = calendar_mode_advice("my-proj", "us-central1", "a3-highgpu-8g", 2, "7d",
                                      earliest="2027-03-01", latest="2027-04-01")
        if not advice.empty:
            best = advice.pick()      # CalendarWindow(zone, start_time, end_time, ...)

    For TPUs pass ``machine_type`` None, ``count`` chips and ``tpu_version`` (``v6e``...),
    optionally ``workload_type`` (``BATCH``/``SERVING``)::

        advice = calendar_mode_advice("my-proj", "us-east5", None, 16, "7d", tpu_version="v6e")

    Inputs are those of :class:`~pulumi_dws.advice.CalendarQuery`, checked against the limits
    table (``calendar.duration``, ``calendar.start_ahead``, ``calendar.count``, and for TPUs
    ``calendar.tpu_chips.*``, ``calendar.tpu_zones.*``); a bad one raises
    ``DwsValidationError``. API
    failures raise :class:`~pulumi_dws.advice.AdviceError` with an explanation. An answer
    without a recommendation is not an error: check ``advice.empty``.
    """
    query = CalendarQuery.of(locals())
    return ask_calendar_mode(query, client or default_client(config))


@asks(CapacityQuery, also=("client", "config"))
def capacity_advice(
    project: str,
    region: str,
    machine_type: str | Sequence[str],
    count: int,
    *,
    provisioning_model: ProvisioningModel = "FLEX_START",
    target_shape: TargetShape = "ANY_SINGLE_ZONE",
    zones: Sequence[str] = (),
    client: GoogleRestClient | None = None,
    config: Mapping[str, Any] | None = None,
) -> CapacityAdvice:
    """Where could ``count`` VMs be obtained right now (Flex-start by default)?

    Example::

        advice = capacity_advice("my-proj", "us-central1", ["a3-highgpu-8g", "a3-megagpu-8g"], 2)
        for option in advice.options:
            print(option.obtainability, [(s.zone, s.machine_type, s.count) for s in option.shards])

    Several machine types are ranked in the order given. Errors as for
    :func:`calendar_mode_advice`.
    """
    query = CapacityQuery.of(locals())
    return ask_capacity(query, client or default_client(config))
