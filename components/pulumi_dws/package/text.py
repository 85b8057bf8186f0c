"""Docstrings (reStructuredText, Python names) as the Markdown a package schema carries, with
argument names spelled as other languages write them."""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = ["markdown", "first_paragraph", "inline"]

_ROLE = re.compile(r":(?:class|func|meth|mod|data|attr|obj|exc):`~?([^`]+)`")
_LITERAL = re.compile(r"``([^`]+)``")
_MODULE_POINTER = re.compile(r"\s*[(;,]?\s*see the module docstring\)?", re.IGNORECASE)


def markdown(text: str | None, names: Mapping[str, str] | None = None) -> str:
    """``text`` in Markdown: ````literal```` -> ```literal```, ``:class:`~a.b.C``` -> ```C```;
    a literal that is exactly a key of ``names`` (a Python argument name) becomes its value
    (the schema's spelling)."""
    if not text:
        return ""
    names = names or {}

    def role(match: re.Match[str]) -> str:
        target = match.group(1).rsplit(".", 1)[-1]
        return f"`{target}`"

    def literal(match: re.Match[str]) -> str:
        inner = match.group(1)
        return f"`{names.get(inner, inner)}`"

    text = _ROLE.sub(role, text)
    text = _LITERAL.sub(literal, text).strip()
    # One line per paragraph: a docstring's line breaks are not the reader's.
    return "\n\n".join(" ".join(p.split()) for p in text.split("\n\n"))


def inline(text: str) -> str:
    """``text`` with its reStructuredText literals and roles as Markdown code spans, its line
    breaks kept (``:class:`~a.b.C``` -> ```C```, ````x```` -> ```x```)."""
    text = _ROLE.sub(lambda match: f"`{match.group(1).rsplit('.', 1)[-1]}`", text)
    return _LITERAL.sub(lambda match: f"`{match.group(1)}`", text)


def first_paragraph(text: str | None) -> str:
    """The first paragraph of a docstring, without a pointer to the module's docstring (which
    other languages' users do not read)."""
    if not text:
        return ""
    paragraph = text.strip().split("\n\n", 1)[0]
    paragraph = _MODULE_POINTER.sub("", paragraph).strip()
    if paragraph and paragraph[-1] not in ".:!?":
        paragraph += "."
    return " ".join(paragraph.split())
