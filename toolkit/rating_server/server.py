"""What the rating server serves: one session of the ratings store, its games (or persona
items) rendered once by the one transcript renderer, and the engagement instrument."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolkit.load.discussion import Discussion
from toolkit.ratings.store import RatingStore, Session
from toolkit.rubrics.discussion import EngagementScale
from toolkit.views.transcript import judged_text_html, roles_html, transcript_html

__all__ = ["ItemPage", "RatingServer"]


@dataclass(frozen=True)
class ItemPage:
    """What a rater is shown of one persona item (an item of a ``persona`` session).

    Attributes:
        text: the text the judge reads (:func:`toolkit.judge.judged_text`).
        text_sha256: its SHA-256, as the session recorded it.
        claim: the proposition's claim (the rater's question).
        persona: the persona spec the judge is given with it, if any.
        html: ``text`` rendered by the one renderer (:func:`judged_text_html`).
    """

    text: str
    text_sha256: str
    claim: str
    persona: str | None
    html: str


@dataclass(frozen=True)
class RatingServer:
    """What the routes serve: the session, its store, the games and the instrument.

    Attributes:
        store: the ratings store (its session already opened).
        session: the store's session (immutable once created).
        scale: the engagement instrument shown and stamped into every rating.
        transcripts: game id -> its transcript as HTML (rendered once).
        roles: game id -> its roles table as HTML (shown after the rater submits).
    """

    store: RatingStore
    session: Session
    scale: EngagementScale
    transcripts: Mapping[str, str]
    roles: Mapping[str, str]
    items: Mapping[str, ItemPage] = field(default_factory=dict)
    changed: tuple[str, ...] = ()

    @classmethod
    def build_persona(
        cls, store: RatingStore, session: Session, items: Sequence[Any], scale: EngagementScale
    ) -> RatingServer:
        """A ``persona`` session's server over ``items`` (the session's
        :class:`~toolkit.rubrics.persona_items.PersonaItem` objects, rebuilt from the
        chats). An item of the session whose text no longer hashes to the one the session
        recorded (the chat or a proposition changed) is not served: it is listed in
        ``changed``, and a rater reaching it is told so; an item missing from ``items`` is
        shown as missing.
        """
        by_id = {item.item_id: item for item in items}
        pages: dict[str, ItemPage] = {}
        changed: list[str] = []
        for item_id, held in session.items.items():
            item = by_id.get(item_id)
            if item is None:
                continue
            if item.text_sha256 != held.text_sha256:
                changed.append(item_id)
                continue
            pages[item_id] = ItemPage(
                text=item.text,
                text_sha256=item.text_sha256,
                claim=item.claim,
                persona=item.request.persona,
                html=judged_text_html(item.text),
            )
        return cls(store, session, scale, {}, {}, pages, tuple(changed))

    @property
    def persona(self) -> bool:
        """Whether the session's units are persona items (rated 0-9), not games."""
        return self.session.kind == "persona"

    @classmethod
    def build(
        cls, store: RatingStore, session: Session, games: Discussion, scale: EngagementScale
    ) -> RatingServer:
        """Render every game of the session once (the games missing from ``games`` are
        shown as missing)."""
        have = set(games.game_ids)
        transcripts: dict[str, str] = {}
        roles: dict[str, str] = {}
        for gid in session.game_ids:
            if gid in have:
                game = games.game(gid)
                transcripts[gid] = transcript_html(game)
                roles[gid] = roles_html(game)
        return cls(store, session, scale, transcripts, roles)

    def unit_tag(self, token: str, unit_id: str) -> str:
        """An opaque tag of the game (or item) a rater's page shows (it reveals no id): a
        save carries it (``X-Unit``), so a page opened before the organiser rebalanced the
        queue never saves to the game that now holds its place (issue 41)."""
        key = self.session.csrf_secret.encode()
        message = b"unit\x00" + token.encode() + b"\x00" + unit_id.encode()
        return hmac.new(key, message, hashlib.sha256).hexdigest()[:32]

    def csrf(self, token: str) -> str:
        """The CSRF token of the pages of ``token`` (an HMAC under the session's secret)."""
        key = self.session.csrf_secret.encode()
        return hmac.new(key, token.encode(), hashlib.sha256).hexdigest()
