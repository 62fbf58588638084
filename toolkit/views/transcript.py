"""One game's transcript as HTML: the one renderer of the notebook rating widget and the
rating server.

Everything from the transcript is escaped (transcripts are untrusted text); the markup
uses classes only (no inline style), styled by :data:`TRANSCRIPT_CSS`, so a page with a
strict Content-Security-Policy can serve that CSS as a file.
"""

from __future__ import annotations

from html import escape
from typing import Protocol

import polars as pl

__all__ = [
    "TRANSCRIPT_CSS",
    "GameFrames",
    "Games",
    "judged_text_html",
    "roles_html",
    "transcript_html",
]


class GameFrames(Protocol):
    """What a transcript view reads of one game: its frames, schemas
    :data:`~toolkit.frames.DISCUSSION_PLAYERS_SCHEMA`,
    :data:`~toolkit.frames.DISCUSSION_MESSAGES_SCHEMA` and
    :data:`~toolkit.frames.DISCUSSION_VOTES_SCHEMA` (a loaded
    :class:`~toolkit.load.discussion.Discussion` of one game is one; a view never loads
    a game itself)."""

    @property
    def players(self) -> pl.DataFrame: ...
    @property
    def messages(self) -> pl.DataFrame: ...
    @property
    def votes(self) -> pl.DataFrame: ...


class Games(Protocol):
    """Games to show one at a time: their ids, in order, and each game's frames (a loaded
    :class:`~toolkit.load.discussion.Discussion` is one)."""

    @property
    def game_ids(self) -> list[str]: ...
    def game(self, game_id: str) -> GameFrames: ...


#: The transcript's styles (a stylesheet's text, without ``<style>``).
TRANSCRIPT_CSS = (
    ".tk-rate-round{margin:12px 0 4px;padding:2px 6px;background:#eef2f7;"
    "border-radius:4px;font-weight:600}.tk-rate-msg{margin:6px 0 6px 4px;line-height:1.45}"
    ".tk-rate-who{font-weight:600}.tk-rate-reply{color:#57606a;font-size:0.9em}"
    ".tk-rate-votes{color:#57606a;font-size:0.92em;margin:4px 0 8px 4px}"
    ".tk-rate-roles{border-collapse:collapse}.tk-rate-roles th{text-align:left}"
    ".tk-rate-roles td,.tk-rate-roles th{padding:2px 10px 2px 0}"
    ".tk-judged{white-space:pre-wrap;overflow-wrap:anywhere;margin:0;"
    "font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}"
)


def transcript_html(game: GameFrames) -> str:
    """One game as readable HTML: round headers, speakers, replies, the round's votes.

    Roles are not shown.
    """
    parts: list[str] = []
    players = game.players.sort("position")["name"].to_list()
    parts.append(f"<div><b>Players:</b> {escape(', '.join(str(p) for p in players))}</div>")
    votes = game.votes
    rounds = sorted(set(game.messages["round"].to_list()) | set(votes["round"].to_list()))
    for rnd in rounds:
        parts.append(f'<div class="tk-rate-round">Round {rnd}</div>')
        for m in game.messages.filter(pl.col("round") == rnd).iter_rows(named=True):
            reply = (
                f' <span class="tk-rate-reply">↪ replying to {escape(m["in_reply_to_player"])}'
                "</span>"
                if m["in_reply_to_player"]
                else ""
            )
            parts.append(
                f'<div class="tk-rate-msg"><span class="tk-rate-who">{escape(m["speaker"])}'
                f"</span>{reply}<br>{escape(m['text'])}</div>"
            )
        cast = votes.filter(pl.col("round") == rnd)
        if cast.height:
            shown = "; ".join(
                f"{escape(v['voter'])} → {escape(v['target'] or 'no one')}"
                for v in cast.iter_rows(named=True)
            )
            parts.append(f'<div class="tk-rate-votes"><b>Votes:</b> {shown}</div>')
    if game.messages.height == 0:
        parts.append("<p><i>This game has no discussion messages.</i></p>")
    return "".join(parts)


def roles_html(game: GameFrames) -> str:
    """The players' roles (and who survived) as an HTML table."""
    rows = "".join(
        f"<tr><td>{escape(p['name'])}</td><td><b>{escape(p['role'] or '?')}</b></td>"
        f"<td>{escape(p['personality'] or '')}</td>"
        f"<td>{'alive' if p['alive'] else 'eliminated'}</td></tr>"
        for p in game.players.sort("position").iter_rows(named=True)
    )
    return (
        '<table class="tk-rate-roles"><tr><th>player</th><th>role</th><th>personality</th>'
        f"<th>at the end</th></tr>{rows}</table>"
    )


def judged_text_html(text: str) -> str:
    """The text a judge reads (:func:`toolkit.judge.judged_text`) as a ``<pre>`` whose
    text content is ``text`` exactly, character for character.

    Everything is escaped; a carriage return is written as ``&#13;`` (an HTML parser
    would turn a raw one into a newline), and a text that starts with a newline gets
    the one newline a parser drops right after ``<pre>``.
    """
    body = escape(text, quote=False).replace("\r", "&#13;")
    lead = "\n" if text.startswith("\n") else ""
    return f'<pre class="tk-judged" id="judged-text">{lead}{body}</pre>'
