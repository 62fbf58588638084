"""Raters added to a running session, or a rater's remaining games given to others
(issue 41): the queues are rebalanced (:func:`toolkit.ratings.assign.rebalance`) in one
write transaction, moving only the games a rater has not rated, drafted or skipped, so
every saved rating, draft and skip stays where it was."""

from __future__ import annotations

import secrets
import sqlite3
from collections.abc import Mapping, Sequence

from toolkit.errors import InputError
from toolkit.ratings.assign import rebalance
from toolkit.ratings.store.adjudications import MAX_NAME_CHARS
from toolkit.ratings.store.rows import checked_text
from toolkit.ratings.store.sessions import Session, Sessions

#: A session holds at most this many raters (a bound on an organiser's hostile input).
MAX_RATERS = 200


def _fixed(con: sqlite3.Connection) -> dict[str, set[str]]:
    """rater -> the games (or items) they rated, drafted or skipped: these never move."""
    fixed: dict[str, set[str]] = {}
    for sql in (
        "SELECT rater, transcript_id FROM rating_events WHERE origin = ''",
        "SELECT rater, item_id FROM item_rating_events WHERE origin = ''",
        "SELECT rater, transcript_id FROM drafts",
        "SELECT rater, item_id FROM item_drafts",
        "SELECT rater, unit_id FROM skip_events WHERE origin = ''",
    ):
        for rater, unit in con.execute(sql):
            fixed.setdefault(str(rater), set()).add(str(unit))
    return fixed


def _queues(con: sqlite3.Connection) -> dict[str, tuple[str, ...]]:
    queues: dict[str, list[str]] = {
        str(r): [] for (r,) in con.execute("SELECT rater FROM session_raters ORDER BY position")
    }
    held = con.execute("SELECT rater, game_id FROM assignments ORDER BY rater, position")
    for rater, game in held:
        queues.setdefault(str(rater), []).append(str(game))
    return {r: tuple(q) for r, q in queues.items()}


def _texts_together(queue: Sequence[str], text_of: Mapping[str, str]) -> tuple[str, ...]:
    """A new rater's persona items with the items of one text one after another."""
    groups: dict[str, list[str]] = {}
    for item in queue:
        groups.setdefault(text_of.get(item, item), []).append(item)
    return tuple(i for group in groups.values() for i in group)


class Roster(Sessions):
    """Adding raters to the session a store holds, and reassigning a rater's games."""

    def add_raters(self, names: Sequence[str]) -> Session:
        """Add raters to the running session, each with a new private token, and
        rebalance the games not yet rated (see :func:`~toolkit.ratings.assign.rebalance`).

        Returns:
            The session as it now is.

        Raises:
            InputError: no session; an empty, too long or already taken name (capitals do
                not matter); more than :data:`MAX_RATERS` raters.
        """
        session = self._held_session()
        clean = [_checked_name(self._name, n) for n in names]
        with self._write() as con:  # the names checked against the raters held now
            self._check_new(con, clean)
            position = int(
                con.execute("SELECT coalesce(max(position), -1) FROM session_raters").fetchone()[0]
            )
            con.executemany(
                "INSERT INTO session_raters (rater, token, position) VALUES (?, ?, ?)",
                [(n, secrets.token_urlsafe(24), position + 1 + i) for i, n in enumerate(clean)],
            )
            self._rebalance(con, session, set(clean))
        return self._held_session()

    def _check_new(self, con: sqlite3.Connection, clean: Sequence[str]) -> None:
        """Refuse a name the session holds (capitals do not matter) or too many raters,
        inside the write that adds them (another process may have added some since the
        session was read)."""
        taken = {str(r).casefold() for (r,) in con.execute("SELECT rater FROM session_raters")}
        for name in clean:
            if name.casefold() in taken:
                raise InputError(self._name, "a rater of that name is in the session already",
                                 field="rater", value=name)  # fmt: skip
            taken.add(name.casefold())
        if len(taken) > MAX_RATERS:
            raise InputError(self._name, f"a session holds at most {MAX_RATERS} raters",
                             field="raters", value=len(taken))  # fmt: skip

    def roster_mark(self) -> str | None:
        """A mark that changes whenever raters are added or reassigned (None before the
        first change): a server serving this store from another process reads its
        session again when the mark changes."""
        with self._connect() as con:
            row = con.execute("SELECT value FROM store_meta WHERE key = 'roster'").fetchone()
        return None if row is None else str(row[0])

    def reassign(self, rater: str) -> Session:
        """Give ``rater``'s games not yet rated, drafted or skipped to the other raters
        (balanced); they keep what they rated, and take no new games when raters are added
        later. Their link still opens their rated games.

        Raises:
            InputError: no session, no such rater, or too few other raters for the overlap.
        """
        session = self._held_session()
        if rater not in session.raters:
            raise InputError(self._name, "no such rater in the session", field="rater",
                             value=rater[:MAX_NAME_CHARS])  # fmt: skip
        with self._write() as con:
            con.execute("UPDATE session_raters SET taking = 0 WHERE rater = ?", (rater,))
            self._rebalance(con, session, set())
        return self._held_session()

    def _held_session(self) -> Session:
        session = self.session()
        if session is None:
            raise InputError(self._name, "holds no rating session", field="session")
        return session

    def _rebalance(self, con: sqlite3.Connection, session: Session, new: set[str]) -> None:
        """Rewrite every queue, rebalanced, inside the caller's write transaction."""
        queues = _queues(con)
        active = [
            str(r)
            for (r,) in con.execute(
                "SELECT rater FROM session_raters WHERE taking = 1 ORDER BY position"
            )
        ]
        seed = session.seed + len(queues)
        fixed = _fixed(con)
        nxt = {  # each rater's next game stays theirs: their page does not change under them
            r: {g for g in q if g not in fixed.get(r, set())} for r, q in queues.items()
        }
        keep = {
            r: {next(g for g in queues[r] if g in left)} if left else set()
            for r, left in nxt.items()
        }
        out = rebalance(queues, fixed, session.overlap, active, seed, keep)
        if session.kind == "persona":
            text_of = {i.item_id: i.text_sha256 for i in session.items.values()}
            out |= {r: _texts_together(out[r], text_of) for r in new}
        con.execute(
            "INSERT INTO store_meta (key, value) VALUES ('roster', ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (secrets.token_hex(8),),
        )
        con.execute("DELETE FROM assignments")
        con.executemany(
            "INSERT INTO assignments (rater, position, game_id) VALUES (?, ?, ?)",
            [(r, i, g) for r, q in out.items() for i, g in enumerate(q)],
        )


def _checked_name(store: str, name: object) -> str:
    """A rater's name: non-empty, at most :data:`MAX_NAME_CHARS` characters, printable."""
    text = checked_text(store, name, "rater")
    if len(text) > MAX_NAME_CHARS or not text.isprintable() or "," in text:
        raise InputError(store, f"a rater's name is printable text of at most {MAX_NAME_CHARS} "
                         "characters without commas", field="rater", value=text[:40])  # fmt: skip
    return text
