"""A rating session: who rates what (each rater's private token and queue), created once
and resumed as it is."""

from __future__ import annotations

import dataclasses
import json
import secrets
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from toolkit.errors import InputError
from toolkit.ratings.assign import assign_games
from toolkit.ratings.store.connection import Connections
from toolkit.ratings.store.draws import Draw, held_draws, insert_draws, other_draws
from toolkit.ratings.store.rows import checked_text, now_stamp

#: The kinds of rating session: games rated 1-5 on the engagement instrument, or items
#: (persona propositions) rated 0-9.
SESSION_KINDS: tuple[str, ...] = ("games", "persona")


def _text_together(
    queues: Mapping[str, tuple[str, ...]], items: Sequence[SessionItem]
) -> dict[str, tuple[str, ...]]:
    """Each queue with the items that show the same text (one agent's window: several
    claims) one after another, the texts in the order they first come in the queue: a
    rater reads a text once and rates its claims in a row (the judge is asked them
    together too)."""
    text_of = {i.item_id: i.text_sha256 for i in items}
    out: dict[str, tuple[str, ...]] = {}
    for rater, queue in queues.items():
        groups: dict[str, list[str]] = {}
        for item_id in queue:
            groups.setdefault(text_of[item_id], []).append(item_id)
        out[rater] = tuple(i for group in groups.values() for i in group)
    return out


@dataclass(frozen=True)
class SessionItem:
    """An item of a ``persona`` session, fixed when the session is created.

    Attributes:
        item_id: the item's id (:class:`toolkit.rubrics.persona_items.PersonaItem`).
        text_sha256: the SHA-256 of the text the raters are shown (and the judge reads).
        about: what the item is about, for exports: agent, dimension, proposition,
            claim, source (the chat file), anchor (where in it).
    """

    item_id: str
    text_sha256: str
    about: Mapping[str, str] = dataclasses.field(default_factory=dict)


@dataclass(frozen=True)
class Session:
    """The rating session a store holds: who rates what, and the private links' tokens.

    Attributes:
        game_ids: the games of the session (sorted).
        overlap: how many raters rate each game.
        seed: the seed of the assignment.
        raters: rater -> their private token.
        queues: rater -> their games, in the order shown.
        organiser_token: the organiser page's token.
        csrf_secret: the secret a page's CSRF token is derived from.
        created_at: when the session was created (UTC, ISO 8601).
        kind: ``games`` (``game_ids`` are games, rated 1-5) or ``persona`` (they are
            persona items, rated 0-9; see ``items``).
        items: item id -> its text hash and what it is about (``persona`` sessions).
    """

    game_ids: tuple[str, ...]
    overlap: int
    seed: int
    raters: dict[str, str]
    queues: dict[str, tuple[str, ...]]
    organiser_token: str
    csrf_secret: str
    created_at: str
    kind: str = "games"
    items: Mapping[str, SessionItem] = dataclasses.field(default_factory=dict)
    #: Raters whose remaining games were given to others: they take no new ones.
    off: tuple[str, ...] = ()

    def rater_of(self, token: str) -> str | None:
        """The rater whose token is ``token`` (compared in constant time), else None."""
        found = None
        for rater, known in self.raters.items():
            if secrets.compare_digest(known.encode(), token.encode()):
                found = rater
        return found

    def is_organiser(self, token: str) -> bool:
        """Whether ``token`` is the organiser's (compared in constant time)."""
        return secrets.compare_digest(self.organiser_token.encode(), token.encode())

    def __repr__(self) -> str:  # tokens stay out of logs and tracebacks
        return (
            f"Session({len(self.game_ids)} {'items' if self.kind == 'persona' else 'games'}, "
            f"{len(self.raters)} raters, "
            f"overlap {self.overlap}, seed {self.seed})"
        )


def _insert_session(
    con: sqlite3.Connection,
    kind: str,
    game_ids: Sequence[str],
    overlap: int,
    seed: int,
    items: Sequence[SessionItem] | None,
    names: Sequence[str],
    tokens: Mapping[str, str],
    queues: Mapping[str, tuple[str, ...]],
) -> None:
    """Write a new session into the store (inside the caller's write transaction): the
    session row with the organiser's token and the CSRF secret, its items, its raters
    with their tokens, and each rater's queue in order."""
    con.execute(
        "INSERT INTO session (id, game_ids, overlap, seed, organiser_token, "
        "csrf_secret, created_at, kind) VALUES (1, ?, ?, ?, ?, ?, ?, ?)",
        (
            json.dumps(sorted(set(game_ids))),
            overlap,
            seed,
            secrets.token_urlsafe(24),
            secrets.token_urlsafe(32),
            now_stamp(),
            kind,
        ),
    )
    con.executemany(
        "INSERT INTO session_items (item_id, text_sha256, about) VALUES (?, ?, ?)",
        [
            (i.item_id, i.text_sha256, json.dumps(dict(i.about), sort_keys=True))
            for i in items or ()
        ],
    )
    con.executemany(
        "INSERT INTO session_raters (rater, token, position) VALUES (?, ?, ?)",
        [(r, tokens[r], i) for i, r in enumerate(names)],
    )
    con.executemany(
        "INSERT INTO assignments (rater, position, game_id) VALUES (?, ?, ?)",
        [(r, i, g) for r in names for i, g in enumerate(queues[r])],
    )


class Sessions(Connections):
    """The session a store holds: read, created, resumed."""

    def session(self) -> Session | None:
        """The rating session this store holds, or None (see :meth:`open_session`).

        Raises:
            InputError: the store cannot be read, or its session rows are damaged.
        """
        with self._connect() as con:
            row = con.execute(
                "SELECT game_ids, overlap, seed, organiser_token, csrf_secret, created_at, kind "
                "FROM session WHERE id = 1"
            ).fetchone()
            if row is None:
                return None
            listed = con.execute(
                "SELECT item_id, text_sha256, about FROM session_items ORDER BY item_id"
            ).fetchall()
            raters = con.execute(
                "SELECT rater, token FROM session_raters ORDER BY position"
            ).fetchall()
            off = [r[0] for r in con.execute("SELECT rater FROM session_raters WHERE taking = 0")]
            queued = con.execute(
                "SELECT rater, game_id FROM assignments ORDER BY rater, position"
            ).fetchall()
        try:
            game_ids = json.loads(row[0])
            ok = (
                isinstance(game_ids, list)
                and all(isinstance(g, str) for g in game_ids)
                and all(isinstance(v, int) for v in row[1:3])
                and all(isinstance(v, str) for v in row[3:6])
                and all(isinstance(v, str) for r in (*raters, *queued) for v in r)
            )
            items: dict[str, SessionItem] = {}
            for item_id, digest, about_text in listed:
                about = json.loads(about_text)
                ok = ok and (
                    isinstance(item_id, str)
                    and isinstance(digest, str)
                    and isinstance(about, dict)
                    and all(isinstance(v, str) for v in about.values())
                )
                items[str(item_id)] = SessionItem(str(item_id), str(digest), about)
            ok = ok and row[6] in SESSION_KINDS
        except (TypeError, ValueError):
            ok = False
        if not ok:
            raise InputError(
                self._name, "damaged ratings store: its rating session cannot be read",
                field="session",
            )  # fmt: skip
        queues: dict[str, list[str]] = {str(r): [] for r, _t in raters}
        for rater, game in queued:
            queues.setdefault(rater, []).append(game)
        return Session(
            game_ids=tuple(game_ids),
            overlap=int(row[1]),
            seed=int(row[2]),
            raters={str(r): str(t) for r, t in raters},
            queues={r: tuple(q) for r, q in queues.items()},
            organiser_token=str(row[3]),
            csrf_secret=str(row[4]),
            created_at=str(row[5]),
            kind=str(row[6]),
            items=items,
            off=tuple(str(r) for r in off),
        )

    def open_session(
        self,
        game_ids: Sequence[str],
        raters: Sequence[str] | None = None,
        overlap: int | None = None,
        seed: int | None = None,
        *,
        items: Sequence[SessionItem] | None = None,
        order: str | None = None,
        draws: Sequence[Draw] | None = None,
    ) -> tuple[Session, bool]:
        """Create the store's rating session, or resume the one it holds.

        A new session gives each rater an unguessable token (``secrets``) and a queue
        (:func:`~toolkit.ratings.assign.assign_games`: each game to ``overlap`` raters,
        balanced, seeded, shuffled); an existing one is returned as it is (same tokens,
        same queues), so restarting a session changes nothing.

        Args:
            game_ids: the games to rate (a new session only).
            raters: the raters; None resumes the session the store holds.
            overlap: raters per game (default: 2, or 1 with one rater).
            seed: the assignment's seed (default: a random one, kept in the store).
            items: a ``persona`` session's items (``game_ids`` are then their ids),
                their text hashes kept in the store; in each queue the items that show
                the same text come one after another. None: a session of games.
            order: the order the units are handed out in, ``random`` (the default) or
                ``informative``; recorded with the session (a new session only).
            draws: each unit's draw (:class:`~toolkit.ratings.store.draws.Draw`): only
                the drawn units are queued; recorded in the store. None: every unit is
                queued, with probability 1.

        Returns:
            (the session, whether it was created now).

        Raises:
            InputError: no session to resume and no raters; raters, overlap, seed or
                order that differ from the session the store holds; a bad overlap; no
                unit drawn.
        """
        kind = "games" if items is None else "persona"
        if items is not None:
            game_ids = [i.item_id for i in items]
            if len(set(game_ids)) != len(game_ids) or not game_ids:
                raise InputError(self._name, "a persona session needs items with distinct ids",
                                 field="items", value=len(game_ids))  # fmt: skip
        existing = self.session()
        if existing is not None:
            self._same_session(existing, raters, overlap, seed, kind)
            self._same_order(order)
            return existing, False
        if raters is None:
            raise InputError(
                self._name,
                "holds no rating session yet: name the raters (--raters ana,ben,chidi)",
                field="--raters",
            )
        names = [checked_text(self._name, r, "rater") for r in raters]
        overlap = overlap if overlap is not None else min(2, len(names))
        seed = seed if seed is not None else secrets.randbelow(2**31)
        draws = list(draws) if draws is not None else [Draw(g) for g in sorted(set(game_ids))]
        queued = [d.unit_id for d in draws if d.drawn]
        if not queued:
            raise InputError(self._name, "no unit was drawn for the raters: raise --budget",
                             field="--budget", value=0)  # fmt: skip
        queues = assign_games(queued, names, overlap, seed)
        if items is not None:
            queues = _text_together(queues, items)
        tokens = {r: secrets.token_urlsafe(24) for r in names}
        with self._write() as con:
            if con.execute("SELECT 1 FROM session").fetchone() is None:
                self._no_other_draws(con, order or "random", draws)
                _insert_session(con, kind, game_ids, overlap, seed, items, names, tokens, queues)
                insert_draws(con, order or "random", draws)
                created = True
            else:  # another process created it first: resume that one
                created = False
        session = self.session()
        assert session is not None
        if not created:
            self._same_session(session, raters, overlap, seed, kind)
            self._same_order(order)
        return session, created

    def _no_other_draws(self, con: sqlite3.Connection, order: str, draws: Sequence[Draw]) -> None:
        """Refuse a new session whose units already hold draws (a restored backup's: a
        backup holds no session) of another order, or of the same order with another
        probability or drawn flag: its draws would be recorded after theirs, and the
        ratings made under the held ones would be weighed by the new ones."""
        held = held_draws(con, [d.unit_id for d in draws])
        orders: dict[str, int] = {}
        for d in held.values():
            orders[d.order] = orders.get(d.order, 0) + 1
        other = {o: n for o, n in orders.items() if o != order}
        if other:
            found, n = max(other.items(), key=lambda kv: kv[1])
            raise InputError(
                self._name,
                f"already holds draws of {n} of these units in {found} order (a restored "
                f"backup?): create the session with --order {found}, or name a new --store",
                field="--order",
                value=order,
            )
        differ = other_draws(held, draws)
        if differ:
            was, now = differ[0]
            raise InputError(
                self._name,
                f"already holds other draws of {len(differ)} of these units (a restored "
                f"backup?), e.g. {was.unit_id!r} drawn {was.drawn} with probability "
                f"{was.probability:g}, now drawn {now.drawn} with {now.probability:g}: its ratings "
                "are weighed by the draw they were made under, so create the session with "
                "the same --judge-scores, --budget and --seed, or name a new --store",
                field="--order",
                value=order,
            )

    def _same_order(self, order: str | None) -> None:
        """Refuse resuming a session in another order than the one it was created in."""
        if order is None:
            return
        with self._connect() as con:  # each unit's latest draw, as Draws.draw_order reads
            held = {r[0] for r in con.execute(
                "SELECT DISTINCT draw_order FROM draw_events WHERE event_id IN (SELECT "
                "max(event_id) FROM draw_events WHERE origin = '' GROUP BY unit_id)")}  # fmt: skip
        was = "informative" if "informative" in held else "random"
        if order != was:
            raise InputError(
                self._name,
                f"holds a session handed out in {was} order: resume it without --order, or "
                "name a new --store for a new session",
                field="--order",
                value=order,
            )

    def _same_session(
        self,
        session: Session,
        raters: Sequence[str] | None,
        overlap: int | None,
        seed: int | None,
        kind: str = "games",
    ) -> None:
        if session.kind != kind:
            what = "persona chats" if session.kind == "persona" else "games"
            raise InputError(
                self._name,
                f"holds a rating session of {what}: serve it the same kind of input, or name "
                "a new --store for a new session",
                field="session",
                value=kind,
            )
        if raters is not None and [r.strip().casefold() for r in raters] != [
            r.casefold() for r in session.raters
        ]:
            raise InputError(
                self._name,
                f"holds a session with the raters {','.join(session.raters)}: resume it "
                "without --raters (or with the same ones), or name a new --store for a new "
                "session",
                field="--raters",
                value=",".join(raters),
            )
        for flag, given, held in (
            ("--overlap", overlap, session.overlap),
            ("--seed", seed, session.seed),
        ):
            if given is not None and given != held:
                raise InputError(
                    self._name,
                    f"holds a session with {flag} {held}: resume it without {flag}, or "
                    "name a new --store for a new session",
                    field=flag,
                    value=given,
                )
