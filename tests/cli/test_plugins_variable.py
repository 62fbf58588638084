"""pydantic's plugin discovery is off only while a command of the toolkit's own models
runs (found in review: the variable stayed set for the rest of a caller's process, and
was set for live judges whose SDKs build pydantic models of their own)."""

from __future__ import annotations

import argparse
import os

import pytest

from toolkit.cli import PLUGINS_VARIABLE, main, plugins_off


def test_the_variable_is_put_back_when_the_command_returns(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv(PLUGINS_VARIABLE, raising=False)
    assert main(["quality", "no/such/run"]) == 2  # fails, and still puts it back
    capsys.readouterr()
    assert PLUGINS_VARIABLE not in os.environ


def test_a_live_judge_keeps_plugin_discovery(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PLUGINS_VARIABLE, raising=False)
    live = argparse.Namespace(command="discussion", judge="anthropic:claude-x")
    assert plugins_off(live) is False and PLUGINS_VARIABLE not in os.environ
    recorded = argparse.Namespace(command="discussion", judge="recorded:cassette.json")
    assert plugins_off(recorded) is True and os.environ[PLUGINS_VARIABLE] == "__all__"


def test_a_users_own_setting_is_never_touched(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(PLUGINS_VARIABLE, "")
    assert plugins_off(argparse.Namespace(command="quality")) is False
    assert os.environ[PLUGINS_VARIABLE] == ""
