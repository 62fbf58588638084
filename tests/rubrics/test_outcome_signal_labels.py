"""The signal labels of the two published outcome rubrics are dot-agents' own: the score
sidecar's breakdown rows carry them as dot-agents' ``PersistedContribution`` does.

Written by hand from dot-agents' OUTCOME_SCORING_RUBRIC.md at rubric 2.1.0 and 3.0.0
(its headings "### N. `signal` — Label"; the document is the canonical contract its
rubric.go must agree with). Found in review: the toolkit said "Landed on trunk" (both)
and "Human labels" (3.0.0) where dot-agents says "Landed on master" and "Human review
label"."""

from __future__ import annotations

import pytest

from toolkit.rubrics.outcome.spec import named_outcome_rubric

PUBLISHED = {
    "dot-agents-2.1.0": [
        ("landed", "Landed on master"),
        ("verifier", "Verifier results"),
        ("tests", "Test outcomes"),
        ("correction_pressure", "Correction pressure"),
        ("scope", "Scope adherence"),
        ("hook_outcomes", "Hook-gate outcomes"),
        ("token_efficiency", "Token & cache efficiency"),
    ],
    "dot-agents-3.0.0": [
        ("landed", "Landed on master"),
        ("verifier", "Verifier results"),
        ("tests", "Test outcomes"),
        ("human_label", "Human review label"),
        ("correction_pressure", "Correction pressure"),
        ("scope", "Scope adherence"),
        ("hook_outcomes", "Hook-gate outcomes"),
        ("token_efficiency", "Token & cache efficiency"),
    ],
}


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_each_signal_has_the_label_dot_agents_published(name: str) -> None:
    rubric = named_outcome_rubric(name)
    assert [(s.signal, s.label) for s in rubric.signals] == PUBLISHED[name]
