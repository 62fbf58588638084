"""``toolkit rate CHATS... --propositions DIR``: persona chats are told apart from games by
the family detection ``toolkit compare`` uses, become a session of persona items, resume
with the same links, and a chat changed since is named on stderr and not served."""

from __future__ import annotations

import shutil
import socket
from pathlib import Path
from typing import Any

import pytest

import toolkit.cli.rate as rate_cli
from toolkit.cli import main
from toolkit.ratings.store import RatingStore


@pytest.fixture
def chats(tmp_path: Path, sample_runs: Path) -> Path:
    folder = tmp_path / "chats"
    folder.mkdir()
    for name in ("radio-week1.jsonl", "radio-week2.jsonl"):
        shutil.copy(sample_runs / "persona" / name, folder / name)
    return folder


@pytest.fixture
def props(sample_runs: Path) -> str:
    return str(sample_runs / "persona" / "propositions")


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Replaces the server by a recorder of the apps it would serve."""
    calls: list[Any] = []

    def fake_serve(app: Any, sock: socket.socket) -> None:
        calls.append(app)
        sock.close()

    monkeypatch.setattr(rate_cli, "_serve", fake_serve)
    return calls


def test_chats_with_propositions_become_a_session_of_persona_items(
    chats: Path, props: str, served: list[Any], capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["rate", str(chats / "radio-week1.jsonl"), str(chats / "radio-week2.jsonl")]
    code = main([*args, "--propositions", props, "--raters", "ana,ben,chloe", "--port", "0"])
    assert code == 0 and len(served) == 1
    out, err = capsys.readouterr()
    session = RatingStore(chats / "ratings.db").session()
    assert session is not None and session.kind == "persona"
    assert len(session.items) == 118  # 2 chats x (4 agents x 14 + the group's 3)
    assert f"{len(session.items)} item(s), 3 rater(s), 2 per item" in err
    assert all(f"/r/{token}" in out for token in session.raters.values())
    about = session.items["radio-week2/lenny/adherence/lenny-corporate"].about
    assert about["agent"] == "Lenny" and about["source"] == str(chats / "radio-week2.jsonl")
    # a folder of the same chats resumes it: same links, nothing changed
    assert main(["rate", str(chats), "--propositions", props, "--port", "0"]) == 0
    out2, err2 = capsys.readouterr()
    assert "resumed the session" in err2 and "warning" not in err2
    assert [line.split("/r/")[-1] for line in out2.splitlines() if "/r/" in line] == [
        line.split("/r/")[-1] for line in out.splitlines() if "/r/" in line
    ]


def test_a_chat_changed_since_the_session_began_is_named_and_not_served(
    chats: Path, props: str, served: list[Any], capsys: pytest.CaptureFixture[str]
) -> None:
    chat = chats / "radio-week2.jsonl"
    assert main(["rate", str(chat), "--propositions", props, "--raters", "ana,ben"]) == 0
    capsys.readouterr()
    text = chat.read_text("utf-8")
    assert "I can cover 1 to 3, my friend." in text
    chat.write_text(text.replace("I can cover 1 to 3, my friend.", "I can cover 1 to 3."))
    assert main(["rate", str(chat), "--propositions", props]) == 0
    err = capsys.readouterr().err
    changed = served[-1].state.server.changed  # the app serves them as changed
    assert "radio-week2/lenny/adherence/lenny-my-friend" in changed
    assert all(i.startswith("radio-week2/") for i in changed)
    said = " ".join(line.strip() for line in err.splitlines())
    assert f"warning: {len(changed)} item(s) changed since the session began" in said
    assert f"not served: {changed[0]}, " in said and f"and {len(changed) - 5} more" in said
    assert max(len(line) for line in err.splitlines() if str(chats) not in line) <= 80


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ([], "give --propositions DIR"),
        (["--propositions", "no/such/dir"], "no/such/dir"),
    ],
)
def test_chats_without_usable_propositions_are_one_line_exit_2(
    chats: Path, served: list[Any], capsys: pytest.CaptureFixture[str], extra: list[str],
    message: str,
) -> None:  # fmt: skip
    code = main(["rate", str(chats), "--raters", "ana", *extra])
    assert code == 2 and served == []
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err
    assert not (chats / "ratings.db").exists()


def test_chats_and_games_in_one_session_are_refused(
    chats: Path, props: str, sample_runs: Path, served: list[Any],
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    game = sample_runs / "discussions" / "game-pass.json"
    code = main(["rate", str(chats), str(game), "--propositions", props, "--raters", "ana"])
    assert code == 2 and served == []
    assert "not a persona chat" in capsys.readouterr().err
