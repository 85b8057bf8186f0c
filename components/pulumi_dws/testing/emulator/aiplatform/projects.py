"""Project numbers as Vertex AI writes them: a resource's name carries its project's *number*
(``projects/123456789012/locations/...``), and a path may name the project either way."""

from __future__ import annotations

import hashlib
import threading

__all__ = ["ProjectNumbers", "project_number"]


def project_number(project: str) -> str:
    """The (made-up, stable) project number the emulator uses for ``project``."""
    if project.isdigit():
        return project
    digest = int(hashlib.sha256(project.encode()).hexdigest()[:12], 16)
    return str(100000000000 + digest % 900000000000)


class ProjectNumbers:
    """The projects a service has seen, by number (shared by its stores; a reset keeps it: the
    numbers are a function of the ids)."""

    def __init__(self) -> None:
        self._numbers: dict[str, str] = {}
        self._lock = threading.Lock()

    def number(self, project: str) -> str:
        """The number of ``project`` (remembered, so a path naming it is understood)."""
        with self._lock:
            return self._numbers.setdefault(project, project_number(project))

    def project(self, segment: str) -> str:
        """The project id a path segment names (its number, or the id itself)."""
        if segment.isdigit():
            with self._lock:
                for project, number in self._numbers.items():
                    if number == segment:
                        return project
        return segment
