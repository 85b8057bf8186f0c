"""Capacity advice: find a Calendar-mode window and a Flex-start zone before you ask.

Typed wrappers over the Compute v1 methods ``advice.calendarMode`` (when and where a
future reservation in Calendar mode would be approved) and ``advice.capacity`` (where VMs can
be obtained right now)::

    from pulumi_dws.advice import calendar_mode_advice, capacity_advice

    advice = calendar_mode_advice("my-proj", "us-central1", "a3-highgpu-8g", 2, "7d",
                                  earliest="2027-03-01", latest="2027-04-01")
    for window in advice.windows:
        print(window.zone, window.start_time, window.end_time)

Each question is one pydantic model (:class:`CalendarQuery`, :class:`CapacityQuery`) whose
fields are the functions' arguments and the ``dws advise`` flags. Both calls use the shared
REST client (credentials, retries, endpoint override ``DWS_COMPUTE_ENDPOINT``). The
``dws advise`` command (:mod:`pulumi_dws.cli_advise`) prints
the same answers as a table, JSON, or a ready ``CalendarReservation`` snippet.
"""

from .api import (
    CALENDAR_PATH,
    CAPACITY_PATH,
    ask_calendar_mode,
    ask_capacity,
    calendar_mode_advice,
    capacity_advice,
    default_client,
)
from .errors import AdviceError, NoRecommendationError, explain
from .inputs import (
    SPEC_KEY,
    AdviceQuery,
    CalendarQuery,
    CapacityQuery,
    calendar_query,
    capacity_query,
    parse_when,
)
from .project import resolve_project
from .render import (
    calendar_json,
    calendar_table,
    capacity_json,
    capacity_table,
    emit_config,
    emit_json,
    emit_python,
    emit_text,
    emit_yaml,
)
from .results import (
    CalendarAdvice,
    CalendarWindow,
    CapacityAdvice,
    CapacityOption,
    CapacityShard,
    ZoneStatus,
)

__all__ = [
    "CALENDAR_PATH",
    "CAPACITY_PATH",
    "SPEC_KEY",
    "AdviceError",
    "AdviceQuery",
    "NoRecommendationError",
    "CalendarAdvice",
    "CalendarQuery",
    "CalendarWindow",
    "CapacityAdvice",
    "CapacityOption",
    "CapacityQuery",
    "CapacityShard",
    "ZoneStatus",
    "ask_calendar_mode",
    "ask_capacity",
    "calendar_json",
    "calendar_mode_advice",
    "calendar_query",
    "calendar_table",
    "capacity_advice",
    "capacity_json",
    "capacity_query",
    "capacity_table",
    "default_client",
    "emit_config",
    "emit_json",
    "emit_python",
    "emit_text",
    "emit_yaml",
    "explain",
    "parse_when",
    "resolve_project",
]
