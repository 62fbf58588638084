"""The SQLite ratings store: human engagement ratings and reviewer label overrides.

One SQLite file holds every rating a rater saved and every label a reviewer set, as
append-only events: nothing is ever updated or deleted (triggers refuse it), the latest
event per rater and transcript (per game, kind and item for labels) is the one that
counts, and the history stays for audit. Each save is one short ``BEGIN IMMEDIATE``
transaction in WAL mode with ``synchronous=FULL`` and a busy timeout, so several
processes can save at once and a process killed in the middle of a save leaves every
earlier rating intact.

The schema is versioned (``PRAGMA user_version``) and brought up to date by
:data:`MIGRATIONS` when a store is opened; the file is marked as a toolkit ratings store
by ``PRAGMA application_id`` so other SQLite files (a game database) are told apart.

The store is a :class:`~toolkit.load.ratings.RatingSource` (``ratings(game_ids)``) and a
label source (``labels(game_ids)``) for :func:`toolkit.score_discussion`. It knows no
rubric: the engagement instrument whose version a game rating is stamped with comes from
its caller (``RatingStore(path, instrument=...)``, or each save's ``instrument``).

Where each idea lives:

- :mod:`~toolkit.ratings.store.connection`: connections and write transactions.
- :mod:`~toolkit.ratings.store.schema`: the tables as migrations, bringing a file up to date.
- :mod:`~toolkit.ratings.store.opening`: which file is a ratings store; refusing others.
- :mod:`~toolkit.ratings.store.rows`: the scales and checks of the values rows hold.
- :mod:`~toolkit.ratings.store.sessions`: a rating session's raters, tokens and queues.
- :mod:`~toolkit.ratings.store.saves`: drafts and ratings saved, alone or many at once.
- :mod:`~toolkit.ratings.store.ratings`: submitted ratings of games and persona items.
- :mod:`~toolkit.ratings.store.drafts`: drafts read back.
- :mod:`~toolkit.ratings.store.skips`: a rater's skips of a game or item, with a reason.
- :mod:`~toolkit.ratings.store.draws`: the session's order and each unit's draw probability.
- :mod:`~toolkit.ratings.store.labels`: reviewers' label overrides.
- :mod:`~toolkit.ratings.store.exports`: one part exported to a file, imported back.
- :mod:`~toolkit.ratings.store.backup`: every part backed up, restored in one transaction.
- :mod:`~toolkit.ratings.store.merge`: imported events merged in the store's order of submission.
- :mod:`~toolkit.ratings.store.rating_store`: :class:`RatingStore`, composed of them.

:class:`RatingStore` is composed from mixins, one per concern, each a subclass of the
connection plumbing, rather than from helper objects it delegates to: every part needs
the same connection, write lock and file name, so a mixin uses them as the one store
they are (the methods moved unchanged, with no forwarding layer), and the class keeps one
public API for the server, the widget and notebooks. A part that reads what another
holds says so by subclassing it (the exports read ratings, labels and drafts; the backup
uses the exports), so the order of the parts is the order of what they need.
"""

from __future__ import annotations

from toolkit.ratings.store.drafts import Draft
from toolkit.ratings.store.exports import EXPORT_PARTS
from toolkit.ratings.store.labels import LABEL_KINDS
from toolkit.ratings.store.opening import DEFAULT_STORE_NAME, default_store_path, is_rating_store
from toolkit.ratings.store.rating_store import RatingStore, open_rating_store

# The scales and the session kinds stay importable from here, as they were from the one
# module, without joining the public face (``__all__``).
from toolkit.ratings.store.rows import ITEM_MAX_SCORE as ITEM_MAX_SCORE
from toolkit.ratings.store.rows import ITEM_MIN_SCORE as ITEM_MIN_SCORE
from toolkit.ratings.store.rows import MAX_SCORE as MAX_SCORE
from toolkit.ratings.store.rows import MIN_SCORE as MIN_SCORE
from toolkit.ratings.store.saves import Save
from toolkit.ratings.store.schema import APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION
from toolkit.ratings.store.sessions import SESSION_KINDS as SESSION_KINDS
from toolkit.ratings.store.sessions import Session, SessionItem

__all__ = [
    "APPLICATION_ID",
    "DEFAULT_STORE_NAME",
    "EXPORT_PARTS",
    "LABEL_KINDS",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "Draft",
    "RatingStore",
    "Save",
    "Session",
    "SessionItem",
    "default_store_path",
    "is_rating_store",
    "open_rating_store",
]
