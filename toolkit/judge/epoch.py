"""What of a judge decides its scores, for the measurement epoch (:mod:`toolkit.epoch`):
its provider, model, name, prompt template and, for a recorded judge, its cassette."""

from __future__ import annotations

from typing import Any

from toolkit.epoch import short_hash
from toolkit.judge._protocol import DOUBLE_CHECK_PROMPT, Judge, JudgeRequest, build_prompt
from toolkit.judge.recorded import RecordedJudge

#: A request whose every field is a placeholder: its prompt is the template itself.
_TEMPLATE_REQUEST = JudgeRequest(
    proposition_id="{proposition_id}",
    dimension="{dimension}",
    subject="{subject}",
    claim="{claim}",
    trajectory="{trajectory}",
    persona="{persona}",
    evidence="{evidence}",
)


def prompt_template_digest() -> str:
    """A short hash of the judge's prompt template (system and user prompt of a request
    of placeholders, and the double-check turn): it changes when the prompt's words do."""
    system, user = build_prompt([_TEMPLATE_REQUEST])
    return short_hash([system, user, DOUBLE_CHECK_PROMPT])


def judge_basis(judge: Judge) -> dict[str, Any]:
    """The judge's part of an epoch: ``provider``, ``model`` (``None`` when the judge has
    none), ``name``, ``prompt`` (:func:`prompt_template_digest`), a live judge's
    ``base_url`` and ``max_tokens`` when set, and, for a recorded
    judge, ``cassette`` (a short hash of its recordings) and ``recorded_by``."""
    basis: dict[str, Any] = {
        "provider": getattr(judge, "provider", None),
        "model": getattr(judge, "model", None),
        "name": judge.name,
        "prompt": prompt_template_digest(),
    }
    # a live judge's server (another server behind one model name answers otherwise) and
    # its reply length (a cut reply scores otherwise); absent on judges that have none
    for key in ("base_url", "max_tokens"):
        value = getattr(judge, key, None)
        if value is not None:
            basis[key] = value
    if isinstance(judge, RecordedJudge):
        basis["cassette"] = judge.digest()
        basis["recorded_by"] = judge.recorded_by
        basis["name"] = "recorded"  # the file's name is not what decides the scores
    return basis
