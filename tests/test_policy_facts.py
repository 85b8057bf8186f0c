"""Rules belong to kinds, facts are generic: a general rule checks every kind whose reader
yields its fact, a kind's own rules come with its declaration, and docs/policy.md's rule table is
the registry's."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pulumi_dws import registry
from pulumi_dws.policy import ResourceView, evaluate
from pulumi_dws.policy.facts import Grant, Labels, PublicIp, QueueWindow, RunLimit
from pulumi_dws.policy.rules import RULES, Finding, Rule, all_rules, markdown_table, owners
from pulumi_dws.policy.values import UNKNOWN

JOB = "pulumi-python:dynamic/dws:VertexJob"
"""A resource type no built-in kind knows: a new kind's, declared only in this test."""


def _job_facts(view: ResourceView) -> Iterator[Any]:
    body = view.props.get("body") or {}
    yield RunLimit(
        "body.scheduling.maxWaitDuration", body.get("wait"), "flex_start.max_run_duration"
    )
    yield QueueWindow("body.queue", body.get("queue"), "flex_start.request_valid_for", "it fails")
    yield Labels("body.labels", body.get("labels", UNKNOWN))
    yield PublicIp("body.network.public is true", "set it to false")
    yield Grant("roles/owner", ["user:someone@example.com"])


_JOB_ONLY = Rule(
    name="vertex-job-named",
    description="A job has a name.",
    level="advisory",
    scope="resource",
    check=lambda view, cfg, ctx: (
        [Finding(f"{view.label}: no name")]
        if view.type == JOB and not (view.props.get("body") or {}).get("name")
        else []
    ),
)
_JOB_TYPE = registry.ResourceType("vertex_job", types=(JOB,), parts=_job_facts)


@pytest.fixture
def new_kind(monkeypatch: pytest.MonkeyPatch) -> None:
    """A kind that yields every generic fact and brings a rule of its own: the registry reads
    it, nothing else is told."""
    known = registry.kinds()
    job_kind = dataclasses.replace(
        known[0], name="VertexJob", key="vertex_jobs", rules=(_JOB_ONLY,)
    )
    reader_for = registry.reader_for
    monkeypatch.setattr(registry, "kinds", lambda: (*known, job_kind))
    monkeypatch.setattr(
        registry, "reader_for", lambda view: _JOB_TYPE if view.type == JOB else reader_for(view)
    )


def _job(**body: Any) -> ResourceView:
    return ResourceView(JOB, "train", f"urn:pulumi:dev::p::{JOB}::train", {"body": body})


@pytest.mark.usefixtures("new_kind")
def test_general_rules_check_a_new_kind_through_its_facts() -> None:
    config = {"flex-start-queue-window": {"requireQueueWindow": True}}
    found = evaluate([_job(wait="8d", labels={})], config)
    by_rule = {v.rule: v.message for v in found}
    assert (
        "body.scheduling.maxWaitDuration: 8d (691200s) is above"
        in by_rule["flex-start-max-run-duration"]
    )
    assert "[limit flex_start.max_run_duration]" in by_rule["flex-start-max-run-duration"]
    assert (
        "body.queue is missing; without a queue window it fails"
        in by_rule["flex-start-queue-window"]
    )
    assert "body.labels lacks required label(s) team" in by_rule["required-labels"]
    assert by_rule["no-public-ip-on-accelerators"].endswith(
        ": body.network.public is true; set it to false or add the resource to allowedResources"
    )
    assert "grants roles/owner to user:someone@example.com" in by_rule["no-basic-roles"]
    assert by_rule["vertex-job-named"].endswith(": no name")  # the kind's own rule ran
    clean = _job(wait="1d", queue="1h", labels={"team": "ml"}, name="x")
    # inside its limits, labelled and named: only the public IP and the grant remain
    assert {v.rule for v in evaluate([clean], config)} == {
        "no-public-ip-on-accelerators",
        "no-basic-roles",
    }


@pytest.mark.usefixtures("new_kind")
def test_a_kinds_rules_are_gathered_after_the_general_ones() -> None:
    names = [r.name for r in all_rules()]
    assert names[: len(RULES)] == [r.name for r in RULES]
    assert names[-1] == "vertex-job-named"
    assert ("vertex-job-named", "VertexJob") in [(r.name, owner) for r, owner in owners()]


def test_a_rule_declared_twice_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    known = registry.kinds()
    twice = dataclasses.replace(known[0], key="again", rules=(RULES[0],))
    monkeypatch.setattr(registry, "kinds", lambda: (*known, twice))
    with pytest.raises(ValueError, match="flex-start-max-run-duration is declared twice"):
        all_rules()


def test_every_kind_rule_lives_in_its_kinds_package() -> None:
    for candidate, owner in owners():
        module = candidate.check.__module__
        if owner is None:
            assert module.startswith("pulumi_dws.policy.rules."), (candidate.name, module)
        else:
            kind = next(k for k in registry.kinds() if k.name == owner)
            package = kind.component.__module__.rsplit(".", 1)[0]
            assert module == f"{package}.rules", (candidate.name, module)


def test_the_docs_rule_table_is_the_registrys(repo: Path) -> None:
    table = markdown_table()
    assert table in (repo / "docs" / "policy.md").read_text(), (
        "docs/policy.md's rule table differs from the registry's; paste this:\n" + table
    )
