"""What went wrong when asking for advice, in a sentence a user can act on."""

from __future__ import annotations

from typing import Literal

from ..providers.rest import ApiError

__all__ = ["AdviceError", "NoRecommendationError", "ErrorKind", "explain", "explain_credentials"]

ErrorKind = Literal[
    "eligibility",
    "no_capacity",
    "quota",
    "permission",
    "auth",
    "invalid",
    "not_found",
    "unreachable",
    "no_project",
    "api",
]

QUOTA_REASONS = frozenset(
    {
        "quotaExceeded",
        "QUOTA_EXCEEDED",
        "rateLimitExceeded",
        "userRateLimitExceeded",
        "RESOURCE_EXHAUSTED",
        "resourceExhausted",
    }
)
CAPACITY_REASONS = frozenset(
    {
        "ZONE_RESOURCE_POOL_EXHAUSTED",
        "ZONE_RESOURCE_POOL_EXHAUSTED_WITH_DETAILS",
        "resourcePoolExhausted",
        "NO_CAPACITY",
        "stockout",
    }
)
ELIGIBILITY_WORDS = (
    "eligib",
    "allowlist",
    "whitelist",
    "not enabled for",
    "early access",
    "invitation",
    "not available for this project",
)
CAPACITY_WORDS = ("no capacity", "not enough capacity", "resource pool exhausted", "stockout")


class AdviceError(Exception):
    """An advice call failed; ``kind`` says why, ``str()`` says what to do about it."""

    def __init__(self, kind: ErrorKind, message: str, api_error: ApiError | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.api_error = api_error


class NoRecommendationError(LookupError):
    """The API answered, but recommended nothing for the question asked."""


def _said(err: ApiError) -> str:
    head = f"HTTP {err.status} {err.reason}".strip() if err.status else "no answer"
    return f"(Google said: {head}: {err.message})"


def explain(err: ApiError, *, method: str, project: str, region: str, what: str) -> AdviceError:
    """Turn an :class:`ApiError` from ``advice.<method>`` into an :class:`AdviceError`.

    ``what`` describes the question, e.g. ``2 x a3-highgpu-8g in us-central1``.
    """
    text = err.message.lower()
    said = _said(err)
    if err.status == 0:
        return AdviceError(
            "unreachable",
            f"Could not reach the Compute API for advice.{method}: {err.message}. Check the "
            "network, or the endpoint override (DWS_COMPUTE_ENDPOINT / --endpoint).",
            err,
        )
    if err.status == 429 or err.reason in QUOTA_REASONS or "quota" in text:
        return AdviceError(
            "quota",
            f"Quota or rate limit reached for advice.{method} in project {project} {said}. "
            "Wait a minute and retry, or ask for a higher quota under IAM & Admin > Quotas. "
            f"Booking {what} also needs enough GPU quota in {region}.",
            err,
        )
    if any(word in text for word in ELIGIBILITY_WORDS):
        return AdviceError(
            "eligibility",
            f"Project {project} is not eligible for advice.{method} in {region} {said}. "
            "Calendar mode and capacity advice are offered for some GPU machine types, regions "
            "and projects only: check that the machine type is offered in Calendar mode in "
            f"{region}, try another region, or ask your Google Cloud account team for access.",
            err,
        )
    if err.reason in CAPACITY_REASONS or any(word in text for word in CAPACITY_WORDS):
        return AdviceError(
            "no_capacity",
            f"Google has no capacity for {what} {said}. Widen the start window "
            "(--earliest/--latest), shorten the duration, lower the count, or try another "
            "region or machine type.",
            err,
        )
    if err.status == 401:
        return AdviceError(
            "auth",
            f"The credentials were refused {said}. Run `gcloud auth application-default login` "
            "or set GOOGLE_APPLICATION_CREDENTIALS.",
            err,
        )
    if err.status == 403:
        return AdviceError(
            "permission",
            f"Permission denied for advice.{method} on project {project} {said}. The caller "
            f"needs compute.advice.{method} (e.g. roles/compute.viewer); if the permission is "
            "there, the project may not have access to this API yet.",
            err,
        )
    if err.status == 404:
        return AdviceError(
            "not_found",
            f"Not found: project {project}, region {region} or the advice.{method} method "
            f"{said}. Check the project id and region, and the endpoint override if any.",
            err,
        )
    if err.status == 400:
        return AdviceError(
            "invalid",
            f"Google rejected the advice.{method} request for {what} {said}. Check that the "
            f"machine type is offered in {region} and the time window is consistent.",
            err,
        )
    return AdviceError("api", f"advice.{method} failed for {what} {said}.", err)


def explain_credentials(err: Exception, *, method: str) -> AdviceError:
    """Application Default Credentials are missing or can't be refreshed (no call was made)."""
    return AdviceError(
        "auth",
        f"No usable Google credentials for advice.{method}: {err} Run `gcloud auth "
        "application-default login` or set GOOGLE_APPLICATION_CREDENTIALS (a local emulator, "
        "--endpoint / DWS_COMPUTE_ENDPOINT on 127.0.0.1, needs none).",
    )
