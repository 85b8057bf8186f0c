"""The one error type of pulumi-dws."""

from __future__ import annotations

import re
from typing import Any

__all__ = ["DwsValidationError", "show", "NO_VALUE", "SECRET", "redact"]

# Strings a reader could take for another type (``count: 2 must be an integer`` reads as if 2
# were refused), so messages quote them: ``count: "2" must be an integer``.
_AMBIGUOUS = re.compile(
    r"[-+]?(?:[0-9][0-9_,]*(?:\.[0-9]*)?|\.[0-9]+)(?:e[-+]?[0-9]+)?|true|false|none|null",
    re.IGNORECASE,
)


class _NoValue:
    """Stands for "no value to quote": the message is ``field: problem``."""

    def __repr__(self) -> str:
        return "NO_VALUE"

    def __reduce__(self) -> str:
        return "NO_VALUE"


NO_VALUE: Any = _NoValue()


class _Secret:
    """Stands for a secret value in a message: shown ``[secret]``, never the value."""

    def __repr__(self) -> str:
        return "[secret]"

    def __reduce__(self) -> str:
        return "SECRET"


SECRET: Any = _Secret()


def redact(text: str, secrets: Any) -> str:
    """``text`` with every occurrence of each secret (a string, or the strings inside a value:
    its ``str``, ``repr``, how messages :func:`show` it, and its runs of ``-``-joined pieces,
    which a message may derive from it) replaced by ``[secret]``; texts under 4 characters are
    left (they would hide too much). An occurrence inside a longer word takes the whole word
    (``reserved`` with the secret ``serve``, ``hunter2x`` with ``hunter2``): the rest of a word
    would tell the secret (``re[secret]d``), since the message's own words are known."""
    needles: set[str] = set()
    for secret in secrets:
        for form in _texts(secret):
            if len(form) >= 4:
                needles.add(form)
    if not needles:
        return text
    either = re.compile("|".join(re.escape(n) for n in sorted(needles, key=len, reverse=True)))
    out: list[str] = []
    at = 0  # text[:at] is done
    while found := either.search(text, at):
        start, end = found.span()
        while start > at and _in_word(text[start - 1]):
            start -= 1
        while end < len(text) and _in_word(text[end]):
            end += 1
        out += [text[at:start], "[secret]"]
        at = end
    return "".join(out) + text[at:]


def _in_word(char: str) -> bool:
    """A letter or digit: what a secret found inside a word takes with it."""
    return char.isalnum()


def _texts(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [t for v in value.values() for t in _texts(v)]
    if isinstance(value, (list, tuple, set)):
        return [t for v in value for t in _texts(v)]
    if value is None or isinstance(value, bool):
        return []
    text = str(value)
    pieces = [piece for piece in re.split(r"[-_./: ]", text) if piece]
    parts = {  # what a message may derive from it: us-moon1 of us-moon1-z
        "-".join(pieces[i:j]) for i in range(len(pieces)) for j in range(i + 1, len(pieces) + 1)
    }
    return [text, repr(value), show(value), *parts]


def show(value: Any) -> str:
    """Render a user value the way error messages quote it: strings bare unless they could be
    read as a number, a boolean or null (or have surrounding spaces), then in double quotes;
    a Pulumi Output as ``an Output`` and an object without a repr of its own by its type
    (never ``<... object at 0x...>``); others as repr."""
    if isinstance(value, str):
        if not value or value != value.strip() or _AMBIGUOUS.fullmatch(value):
            return '"' + value.replace('"', '\\"') + '"'
        return value
    if type(value).__name__ == "Output" and type(value).__module__.startswith("pulumi"):
        return "an Output"
    text = repr(value)
    if text.startswith("<") and " object at 0x" in text:  # no repr of its own: name its type
        return f"an object of type {type(value).__name__}"
    return text


class DwsValidationError(ValueError):
    """A value a user gave is outside what Google Cloud accepts.

    The message always names the field, the bad value and what is allowed, e.g.
    ``max_run_duration: 8d is above the Flex-start limit of 7d (604800s)``. With
    ``value=NO_VALUE`` it is ``field: problem`` (e.g. an unknown argument). ``hint`` ends the
    message with what is built from the value (``; did you mean us-west4-a?``): it is left out
    when the value is secret (:meth:`hidden`).
    """

    def __init__(self, field: str, value: Any, problem: str, hint: str = "") -> None:
        self.field = field
        self.value = value
        self.problem = problem + hint
        self.hint = hint
        shown = "" if value is NO_VALUE else show(value) + " "
        super().__init__(f"{field}: {shown}{self.problem}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.field, self.value, self.problem[: self._cut], self.hint))

    @property
    def _cut(self) -> int:
        """Where the problem ends and its hint begins."""
        return len(self.problem) - len(self.hint)

    def hidden(self, *secrets: Any) -> DwsValidationError:
        """The same error about a secret value: the value, and each of ``secrets`` (the values
        the check was given, when they were secret: a message may quote one the error is not
        about), wherever the message shows them, are ``[secret]``; its hint (a suggestion or a
        list built from the value: ``did you mean us-west4-a?``) is left out, as it would tell
        the value."""
        if self.value is SECRET and not secrets and not self.hint:
            return self
        shown = [self.value, *secrets] if self.value is not SECRET else list(secrets)
        return DwsValidationError(self.field, SECRET, redact(self.problem[: self._cut], shown))

    def at(self, field: str) -> DwsValidationError:
        """The same error (value, problem and hint) about the argument at ``field``."""
        return DwsValidationError(field, self.value, self.problem[: self._cut], self.hint)

    def within(self, prefix: str) -> DwsValidationError:
        """The same error with its field qualified by a parent path (``node_pools[1].zone``)."""
        return self.at(f"{prefix}.{self.field}")
