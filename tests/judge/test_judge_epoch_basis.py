"""A live judge's server and reply length are part of its epoch (found in review: two
OpenAI-compatible servers behind one model name, or a shorter max_tokens, kept one
epoch)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from toolkit.epoch import short_hash
from toolkit.judge.epoch import judge_basis


def _live(**over: Any) -> Any:
    fields = {"provider": "openai", "model": "m", "name": "openai:m", "base_url": None,
              "max_tokens": 1024} | over  # fmt: skip
    return SimpleNamespace(**fields)


def test_the_server_and_the_reply_length_each_move_the_judges_epoch() -> None:
    plain = short_hash(judge_basis(_live()))
    elsewhere = short_hash(judge_basis(_live(base_url="http://a.example/v1")))
    other = short_hash(judge_basis(_live(base_url="http://b.example/v1")))
    shorter = short_hash(judge_basis(_live(max_tokens=16)))
    assert len({plain, elsewhere, other, shorter}) == 4
    assert short_hash(judge_basis(_live())) == plain


def test_a_judge_without_a_server_has_no_such_key() -> None:
    basis = judge_basis(SimpleNamespace(provider=None, model=None, name="scripted"))
    assert "base_url" not in basis and "max_tokens" not in basis
