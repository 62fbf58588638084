"""The offline site of ``toolkit view``: one index of every run of every family, and
drill-down pages from a verdict to the tick, message or iteration behind it.

This is a view: it takes plain records (:class:`SiteRun`: a scorecard, the transcript items
and each dimension's evidence rows, built by :mod:`toolkit.fleet.view` from what the loaders
and rubrics return) and writes files. It opens no run.

What it writes under ``out_dir``::

    index.html                 the shell (no CDN, no build step)
    static/app.js, site.css    copied from this package
    data/manifest.js           the palette, the columns and how many shards there are
    data/index-N.js            the index rows, SHARD_ROWS per file
    data/search-N.js           lower-cased text inside the runs (and what the judges wrote,
                               and the calibration's disagreements), for full-text search
    data/run/NNNNNN.js         one file per run: scorecard (with its epoch and input
                               digest, :mod:`toolkit.epoch`), evidence, its own transcript
    data/transcript/NNNNNN.js  a transcript shared by several runs (the agents of a chat,
                               the iterations of a log), written once
    data/raw/NNNNNN.js         the raw records of a transcript's items (a tick, message or
                               iteration as loaded, bounded: :mod:`.raw`), read when opened
    data/values-N.js           each index row's dimension values (the filters by value)
    data/experiments.js        the experiments' page (when experiments were found)
    data/compare.js            a comparison's page (when given)
    data/calibration.js        a calibration's page (when given or found)

Every data file is a script that hands its payload to a global
(``window.__tk.index(n, rows)``), not JSON fetched by ``fetch()``: browsers refuse
``fetch()`` of ``file://`` URLs, and the site must open from a folder with the network off.
The payload is JSON (a subset of JavaScript), with ``<``, ``>`` and ``&`` escaped as
``\\u003c``... so no text of a run can close the script. All text reaches the page through
``textContent``; the shell never builds HTML from data.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import tempfile
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from types import FrameType
from typing import Any

from toolkit.errors import InputError
from toolkit.io.atomic import (
    TEMP_SUFFIX,
    atomic_path,
    check_output_folder,
    remove_leftovers,
    usual_mode,
    writer_gone,
)
from toolkit.scorecard import Scorecard
from toolkit.views.palette import SWATCHES, UNKNOWN, Swatch

#: Index rows per index shard, and runs per search shard.
SHARD_ROWS = 5_000
SEARCH_SHARD_RUNS = 1_000
#: The format of the data files (bumped when the shell reads them differently): 2 writes
#: a transcript shared by several runs once (``data/transcript/``) and searches it once.
SITE_FORMAT = 2

INDEX_COLUMNS: tuple[str, ...] = (
    "id",
    "family",
    "title",
    "rubric",
    "version",
    "verdict",
    "statuses",
    "size",
    "time",
    "file",
    "epoch",
)


@dataclass(frozen=True, slots=True)  # a fleet's site holds millions: no __dict__ each
class SiteItem:
    """One tick, message or iteration of a run's transcript.

    Attributes:
        key: unique within the run (``tick-101``, ``m-7``, ``iter-3``): its deep link.
        label: how it is named on the page (``tick 101``).
        who: the actor, speaker or agent (may be empty).
        text: what was said or done.
        facts: further (name, value) pairs shown under the text.
        status: a status word shown as a badge (optional).
        raw: the record as the toolkit loaded it (:func:`toolkit.views.site.raw.raw_record`:
            where it was read and the row, bounded), shown on the item's raw-record page
            (``#run/<id>/raw/<key>``); ``None`` when there is none.
    """

    key: str
    label: str
    who: str = ""
    text: str = ""
    facts: tuple[tuple[str, str], ...] = ()
    status: str | None = None
    raw: Mapping[str, Any] | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)  # a fleet's site holds millions: no __dict__ each
class EvidenceRow:
    """One row of a dimension's evidence: a value at one item, or a fact behind the score.

    Attributes:
        label: what the row is (``tick 101``, ``Tamsin ~ Sable``).
        value: the number (``None`` when the row is a fact without one).
        status: its status word, if it has one.
        note: the reason or detail, as the rubric wrote it.
        item: the key of the :class:`SiteItem` it came from (``None`` when the row is about
            the whole run).
        said: what a judge wrote of this row (its reasoning), when one did: searched by
            the site's search (``note`` is what the page shows, and may quote it).
    """

    label: str
    value: float | None = None
    status: str | None = None
    note: str = ""
    item: str | None = None
    said: str = ""


@dataclass(frozen=True)
class SiteRun:
    """Everything the site shows of one run (a run folder, an iteration, a game, a chat).

    Attributes:
        id: unique in the site; the deep link ``#run/<id>``.
        family: ``simulation``, ``outcome``, ``discussion`` or ``persona``.
        card: the rubric's scorecard (``None`` for a run shown unscored, with ``note``).
        items: the transcript or timeline.
        evidence: each dimension's evidence rows, by dimension key, in order (the
            dimension's time series when the rows are per item).
        source: where the run was read (path or URL).
        size: bytes read for it (``None`` when unknown, e.g. in object storage).
        time: when it ran (ISO 8601), if known.
        note: why a run has no scorecard.
        series: whether the evidence rows of a dimension are in the order of the run
            (then those at items are drawn as its time series); ``False`` when they
            are parts of the score (the propositions of a persona dimension).
        transcript: a key naming the transcript when several runs show the same one (the
            agents and the environment of one chat, the iterations of one log): runs with
            one key must have equal ``items``, which the site then writes and searches
            once (``""``: the run's own transcript).
        charts: each dimension's values over the run, drawn as its chart, when its
            evidence rows are not that series (a simulation dimension's rows are the
            ticks that decided it; its chart is the trailing-window value at every tick).
    """

    id: str
    family: str
    card: Scorecard | None
    items: tuple[SiteItem, ...] = ()
    evidence: Mapping[str, tuple[EvidenceRow, ...]] = field(default_factory=dict)
    source: str = ""
    size: int | None = None
    time: str | None = None
    note: str = ""
    series: bool = True
    transcript: str = ""
    charts: Mapping[str, tuple[EvidenceRow, ...]] = field(default_factory=dict)


_THRESHOLD = re.compile(r"^\s*(>=|<=|>|<|≥|≤)\s*(-?\d+(?:\.\d+)?)\s*$")


def threshold_value(text: str | None) -> float | None:
    """The number of a simple threshold (``">= 0.95"``, ``"< 5"``), drawn as a line on the
    dimension's chart; ``None`` for a compound rule (``"streak >= 15 and ..."``)."""
    match = _THRESHOLD.match(text or "")
    return float(match.group(2)) if match else None


def _number(value: Any) -> float | None:
    if value is None:
        return None
    number = float(value)
    return number if number == number and abs(number) != float("inf") else None


def _script(call: str, *args: Any) -> str:
    """``window.__tk.<call>(<args as JSON>);`` safe inside a script file."""
    body = ",".join(json.dumps(a, ensure_ascii=False, separators=(",", ":")) for a in args)
    body = body.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    body = body.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return f"window.__tk.{call}({body});\n"


def _evidence(rows: Sequence[EvidenceRow]) -> tuple[str | None, list[list[Any]]]:
    """A dimension's evidence rows as the pages read them: ``(each, rows)``, each row
    ``[label, value, status, note, item]``.

    A note that most rows share but for their own label at its end (``"Groundedness over
    the window ending at tick 101"`` at ``tick 101``) is stored once, as ``each``
    (``"Groundedness over the window ending at "``); a row whose note is that text followed
    by its label has ``null`` for its note, and the page shows ``each`` + its label. Other
    rows keep their own note (``""``: none)."""
    heads = Counter(
        e.note[: -len(e.label)] for e in rows if e.label and e.note.endswith(e.label)
    )  # fmt: skip
    each, count = heads.most_common(1)[0] if heads else (None, 0)
    if count < 2 or not each:
        each = None
    return each, [
        [
            e.label,
            _number(e.value),
            e.status,
            None if each is not None and e.note == each + e.label else e.note,
            e.item,
        ]
        for e in rows
    ]


def _dimensions(run: SiteRun) -> list[dict[str, Any]]:
    if run.card is None:
        return []
    dims = []
    for row in run.card.dimensions.iter_rows(named=True):
        key = str(row["dimension"])
        each, evidence = _evidence(run.evidence.get(key, ()))
        dims.append(
            {
                "key": key,
                "name": row["name"],
                "value": _number(row["value"]),
                "status": row["status"],
                "detail": row["detail"],
                "green": row["green"],
                "red": row["red"],
                "lines": [threshold_value(row["green"]), threshold_value(row["red"])],
                "each": each,
                "evidence": evidence,
                "points": chart_points(run.charts.get(key)),
            }
        )
    return dims


def chart_points(rows: Sequence[EvidenceRow] | None) -> list[list[Any]] | None:
    """A dimension's chart as the pages read it (``[label, value, status, null, item]``
    per point, the shape of an evidence row), or ``None``: the chart is drawn from the
    evidence rows."""
    if not rows:
        return None
    return [[e.label, _number(e.value), e.status, None, e.item] for e in rows]


def raw_document(items: Sequence[SiteItem]) -> dict[str, Any] | None:
    """The raw records of a transcript's items, by item key (``None`` when no item has
    one): the payload of ``data/raw/<file>.js``."""
    raw = {i.key: dict(i.raw) for i in items if i.raw is not None}
    return raw or None


def items_document(items: Sequence[SiteItem]) -> list[dict[str, Any]]:
    """The transcript as the pages read it: one object per item."""
    return [
        {
            "key": i.key,
            "label": i.label,
            "who": i.who,
            "text": i.text,
            "facts": [list(f) for f in i.facts],
            "status": i.status,
        }
        for i in items
    ]


def run_document(
    run: SiteRun, transcript: str | None = None, raw: str | None = None
) -> dict[str, Any]:
    """The payload of one run's data file (what the drill-down pages read). With
    ``transcript`` (the number of a shared transcript file), its items are not repeated
    here: the page reads them from ``data/transcript/<transcript>.js``. ``raw``: the
    number of the file of its items' raw records (``data/raw/<raw>.js``), if any."""
    card = run.card
    return {
        "id": run.id,
        "family": run.family,
        "title": card.title if card else run.id,
        "rubric": card.rubric if card else None,
        "version": card.rubric_version if card else None,
        "epoch": card.meta.get("epoch") if card else None,
        "input_digest": card.meta.get("input_digest") if card else None,
        "verdict": card.verdict if card else "N/A",
        "reason": card.verdict_reason if card else run.note,
        "warnings": list(card.warnings) if card else [],
        "source": run.source,
        "size": run.size,
        "time": run.time,
        "dims": _dimensions(run),
        "series": run.series,
        "transcript": transcript,
        "items": [] if transcript is not None else items_document(run.items),
        "raw": raw,
    }


def index_row(run: SiteRun, file: str, dimsets: dict[tuple[Any, ...], int]) -> list[Any]:
    """One index row, in the order of :data:`INDEX_COLUMNS`.

    The statuses are ``[set, status, status, ...]``: ``set`` numbers the run's list of
    dimensions (``[[key, name], ...]``, in ``dimsets``, written once in the manifest),
    so 100,000 rows of one rubric do not repeat its dimension names.
    """
    card = run.card
    statuses: list[Any] = []
    if card is not None:
        rows = list(card.dimensions.iter_rows(named=True))
        names = tuple((str(r["dimension"]), str(r["name"])) for r in rows)
        statuses = [dimsets.setdefault(names, len(dimsets)), *(r["status"] for r in rows)]
    return [
        run.id,
        run.family,
        card.title if card else run.id,
        card.rubric if card else None,
        card.rubric_version if card else None,
        card.verdict if card else "N/A",
        statuses,
        run.size,
        run.time,
        file,
        card.meta.get("epoch") if card else None,  # the measurement epoch (toolkit.epoch)
    ]


def index_values(run: SiteRun) -> list[float | None]:
    """What the index's filters by value compare (``groundedness < 0.9``, ``score >=
    0.7``): ``[score, value, value, ...]``, the run's overall score (an iteration's
    weighted score, the scorecard's ``meta["value"]``; ``None`` when its rubric has none)
    then each dimension's value, in the order of its index row's statuses."""
    if run.card is None:
        return []
    score = run.card.meta.get("value")
    overall = (
        _number(score) if isinstance(score, int | float) and not isinstance(score, bool) else None
    )
    return [overall, *(_number(v) for v in run.card.dimensions["value"].to_list())]


def search_text(run: SiteRun, items: bool = True, extra: Sequence[str] = ()) -> str:
    """The text the site's search looks in: the transcript (unless ``items`` is false: a
    shared transcript is searched once, see :func:`transcript_text`), the verdict's reason,
    each dimension's detail, what a judge said of each evidence row (``said``: a persona
    proposition's reasoning, a discussion message's reason) and ``extra`` (the calibration
    disagreements that link to the run), lower-cased."""
    parts = [run.id, run.note]
    if run.card is not None:
        parts.append(run.card.title)
        parts.append(run.card.verdict_reason)
        parts.extend(str(d) for d in run.card.dimensions["detail"].to_list())
    parts.extend(dict.fromkeys(e.said for rows in run.evidence.values() for e in rows))
    parts.extend(extra)
    if items:
        parts.append(transcript_text(run.items))
    return "\n".join(p for p in parts if p).lower()


def transcript_text(items: Sequence[SiteItem]) -> str:
    """The searched text of a transcript (who and what of each item), lower-cased."""
    return "\n".join(p for item in items for p in (item.who, item.text) if p).lower()


def calibration_texts(calibration: Mapping[str, Any]) -> list[list[str]]:
    """Each disagreement of a calibration result as ``[item, text]``: the item's name and
    the words the site's search looks in (the judge's reasoning, the raters' notes, the
    evidence it was judged on, its groups), lower-cased."""
    out = []
    for row in calibration.get("disagreements", []):
        notes = [n.get("note") for n in row.get("notes") or [] if isinstance(n, dict)]
        words = [str(row.get("item")), row.get("reasoning"), *notes, row.get("evidence")]
        words += [str(v) for k, v in row.items() if k in ("agent", "dimension", "proposition",
                                                          "game", "role") and v]  # fmt: skip
        out.append([str(row.get("item")), "\n".join(str(w) for w in words if w).lower()])
    return out


def _linked_texts(calibration: Mapping[str, Any] | None) -> dict[str, list[str]]:
    """The words of each calibration disagreement, by the id of the run it links to."""
    if calibration is None:
        return {}
    by_run: dict[str, list[str]] = {}
    texts = calibration_texts(calibration)
    for link, (_, text) in zip(calibration.get("links") or [], texts, strict=False):
        if isinstance(link, dict) and link.get("run"):
            by_run.setdefault(str(link["run"]), []).append(text)
    return by_run


def _swatch(s: Swatch) -> dict[str, str]:
    return {"fill": s.fill, "text": s.text, "ink": s.on_white, "symbol": s.symbol}


#: How bad each symbol of the palette is (worst first): the site sorts verdicts and
#: statuses of every rubric by it, so FAILED, FAIL and poor sort together.
_SYMBOL_SEVERITY = {"✗": 0, "▼": 0, "!": 1, "–": 2, "○": 2}


def severity(status: str) -> int:
    """0 (fail) .. 3 (good) for any status word of :mod:`toolkit.views.palette`."""
    return _SYMBOL_SEVERITY.get(SWATCHES.get(status, UNKNOWN).symbol, 3)


def manifest(
    runs: int,
    index_shards: int,
    search_shards: int,
    notes: Sequence[str],
    compare: bool = False,
    dimsets: Mapping[tuple[Any, ...], int] | None = None,
    calibration: bool = False,
    watch: Mapping[str, Any] | None = None,
    experiments: int = 0,
) -> str:
    """The manifest script: shard counts, columns, the palette (from
    :mod:`toolkit.views.palette`, the one place status colours live) and the notes of
    what was skipped."""
    return _script(
        "manifest",
        {
            "format": SITE_FORMAT,
            "runs": runs,
            "index_shards": index_shards,
            "search_shards": search_shards,
            "columns": list(INDEX_COLUMNS),
            "palette": {k: _swatch(v) for k, v in SWATCHES.items()},
            "unknown": _swatch(UNKNOWN),
            "severity": {k: severity(k) for k in SWATCHES},
            "notes": list(notes),
            "compare": compare,
            "calibration": calibration,
            "dimsets": [[list(kn) for kn in names] for names in (dimsets or {})],
            "watch": dict(watch) if watch is not None else None,
            "experiments": experiments,
        },
    )


def _write(path: Path, text: str) -> None:
    """A file of the new data folder (itself swapped in whole, see :func:`write_site`)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _copy_static(out: Path) -> None:
    static = resources.files("toolkit.views.site") / "static"
    for name in ("index.html", "app.js", "site.css"):
        target = out / name if name == "index.html" else out / "static" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        with atomic_path(target, durable=False) as tmp:
            tmp.write_text((static / name).read_text(encoding="utf-8"), encoding="utf-8")


def _check_target(out: Path) -> None:
    """Refuse a folder whose ``data/`` the site did not write: it would be replaced."""
    data = out / "data"
    if data.is_symlink() or (data.exists() and not (data / "manifest.js").is_file()):
        raise InputError(
            out, "holds a data/ folder that is not a toolkit site's; choose another folder",
            field="-o", value=str(out),
        )  # fmt: skip


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Hold back, for the block, the signals Python handles (Ctrl-C's SIGINT, and any
    other with a Python handler): each that arrives is handed to its handler when the
    block ends (a Ctrl-C then raises ``KeyboardInterrupt`` after it). Only the main
    thread runs signal handlers, so elsewhere nothing needs holding."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    arrived: list[tuple[int, FrameType | None]] = []
    held: dict[int, Callable[[int, FrameType | None], Any]] = {}
    for number in (int(signal.SIGINT), int(signal.SIGTERM)):
        handler = signal.getsignal(number)
        if callable(handler):
            held[number] = handler
            signal.signal(number, lambda n, frame: arrived.append((n, frame)))
    try:
        yield
    finally:
        for number, handler in held.items():
            signal.signal(number, handler)
        for number, frame in arrived:
            held[number](number, frame)


def _swap_in(new: Path, data: Path) -> None:
    """Replace ``data`` by the complete folder ``new``: a reader sees the old site or the
    new one (except for the instant between two renames). The two renames are made with
    Ctrl-C held back (:func:`_signals_held`), and if the second fails (or is
    interrupted all the same) the old folder is put back, so ``data`` is never left
    missing; a process killed outright between them leaves the old folder for the next
    build to put back (:func:`_recover`)."""
    old = None
    try:
        with _signals_held():
            if data.exists():
                old = data.with_name(f".data-old.{os.getpid()}.{secrets.token_hex(4)}{TEMP_SUFFIX}")
                data.rename(old)
            try:
                new.rename(data)
            except BaseException:
                if old is not None and not data.exists():
                    old.rename(data)
                    old = None
                raise
    finally:  # also when a Ctrl-C held back arrives as the block ends
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)


def _recover(out: Path) -> None:
    """Before a build: put back the previous ``data/`` that a process killed between
    the swap's two renames left aside (the newest of dead processes' ``.data-old.*``
    folders holding a manifest), then remove the new and old data folders that dead
    builds left (a live build's are never touched)."""
    data = out / "data"
    if not data.exists() and not data.is_symlink():
        aside = [p for p in out.glob(f".data-old.*{TEMP_SUFFIX}")
                 if p.is_dir() and not p.is_symlink() and writer_gone(p.name)
                 and (p / "manifest.js").is_file()]  # fmt: skip
        if aside:
            with contextlib.suppress(OSError):  # another build got there first
                max(aside, key=lambda p: p.stat().st_mtime_ns).rename(data)
    for kind in ("data-old", "data-new"):
        remove_leftovers(out, kind, folders=True)


def write_site(
    runs: Iterable[SiteRun],
    out_dir: str | Path,
    *,
    notes: Sequence[str] = (),
    compare: Mapping[str, Any] | None = None,
    calibration: Mapping[str, Any] | None = None,
    watch: Mapping[str, Any] | None = None,
    experiments: Sequence[Mapping[str, Any]] = (),
) -> Path:
    """Write the site of ``runs`` into ``out_dir`` (created if missing).

    The data is written into a new folder beside ``data/`` and swapped in when complete,
    so an interrupted write leaves the previous site whole. Nothing else in ``out_dir``
    is touched; a ``data/`` folder that is not a site's is refused. Each run's files are
    written as the run comes (:class:`SiteWriter`): ``runs`` may be a generator, and
    only each run's index row and searched text are kept.

    Args:
        runs: the runs to show, in index order.
        out_dir: the site's folder.
        notes: lines shown above the index (what was skipped or read leniently).
        compare: a ``toolkit compare --format json`` result, shown on its own page
            (``#compare``): the forest plot, the dimensions and the flips.
        calibration: a ``toolkit calibrate --format json`` result, shown on its own page
            (``#calibration``): the headline numbers, bias per group, the confusion
            table and the ranked disagreements. Its ``links`` (one per disagreement,
            ``{"run": id or None, "item": key or None, "why": text}``, see
            :func:`toolkit.fleet.view.calibration_links`) say where each item is in the site.
        watch: for ``toolkit view --watch``: ``{"build": id, "interval": seconds,
            "when": time}``; the page looks at ``data/build.js`` every ``interval``
            seconds and reloads (or offers to) when a newer build is there.
        experiments: treatment-vs-control experiments found beside the runs, shown on
            their own page (``#experiments``): per file, ``{"source", "report"}`` with
            ``report`` a :func:`toolkit.views.experiment.experiment_report_dict` (the
            Welch's t-test table, each difference's interval), and its ``warnings``.

    Returns:
        The path of ``index.html``.

    Raises:
        InputError: ``out_dir`` is not a folder (a file, a named pipe, a device, a link
            out of its folder), or holds a ``data/`` folder the site did not write.
        ValueError: two runs share an id.
    """
    with SiteWriter(out_dir) as writer:
        for run in runs:
            writer.add(run)
        return writer.finish(notes=notes, compare=compare, calibration=calibration,
                             watch=watch, experiments=experiments)  # fmt: skip


class SiteWriter:
    """A site written run by run: :meth:`add` writes a run's files as it comes (keeping
    only its index row, its values and its searched text), :meth:`finish` writes the
    index, the search, the pages and the manifest and swaps the new ``data/`` folder in
    whole (as :func:`write_site`, which is this). A fleet's records are never all held.

    Used as a context manager: leaving it without :meth:`finish` (an error) removes the
    new folder and leaves the previous site whole. The output folder is checked and made
    when the first run comes (or at :meth:`finish`), so nothing is made for a build that
    fails before it has a run.
    """

    def __init__(self, out_dir: str | Path) -> None:
        self._out_dir = out_dir
        self._data: Path | None = None
        self._written = _Written()
        self._seen: set[str] = set()

    def __enter__(self) -> SiteWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.discard()

    @property
    def count(self) -> int:
        """How many runs were written."""
        return len(self._written.rows)

    def discard(self) -> None:
        """Remove the new data folder (nothing of the previous site is touched)."""
        if self._data is not None:
            shutil.rmtree(self._data, ignore_errors=True)
            self._data = None

    def check(self) -> Path:
        """The output folder, checked without making anything: not a file, a FIFO or a
        device, and no ``data/`` folder the site did not write. Called before any run is
        gathered, so a refused folder is one error, never a run left out.

        Raises:
            InputError: one line naming the folder and why.
        """
        out = check_output_folder(self._out_dir)
        _check_target(out)
        return out

    def _folder(self) -> Path:
        """The new data folder, made (and the output folder checked) on first use."""
        if self._data is None:
            out = self.check()
            out.mkdir(parents=True, exist_ok=True)
            _recover(out)
            _check_target(out)  # again: a dead build's data/ may have been put back
            data = Path(tempfile.mkdtemp(prefix=f".data-new.{os.getpid()}.", suffix=TEMP_SUFFIX,
                                         dir=out))  # fmt: skip
            data.chmod(usual_mode(folder=True))  # mkdtemp's 0700 would hide it from a server
            self._data = data
        return self._data

    def add(self, run: SiteRun) -> None:
        """Write ``run``'s file (and its shared transcript's, the first time) now.

        Raises:
            ValueError: its id is taken, or it shows a shared transcript with other items.
        """
        if run.id in self._seen:
            raise ValueError(f"two runs have the id {run.id!r}")
        self._seen.add(run.id)
        data, written = self._folder(), self._written
        shared = written.shared
        file = f"{len(written.rows):06d}"
        ref = None
        if run.transcript:
            if run.transcript not in shared:
                shared[run.transcript] = (file, run.items, transcript_text(run.items))
                _write(data / "transcript" / f"{file}.js",
                       _script("transcript", file, items_document(run.items)))  # fmt: skip
                _write_raw(data, file, run.items)
            elif shared[run.transcript][1] != run.items:
                raise ValueError(f"runs of the transcript {run.transcript!r} differ in items")
            ref = shared[run.transcript][0]
        else:
            _write_raw(data, file, run.items)
        raw = (ref or file) if any(i.raw is not None for i in run.items) else None
        _write(data / "run" / f"{file}.js", _script("run", run.id, run_document(run, ref, raw)))
        written.rows.append(index_row(run, file, written.dimsets))
        written.values.append(index_values(run))
        head = search_text(run, items=False)
        written.texts.append((head, transcript_text(run.items)) if ref is None else [head, ref])

    def finish(
        self,
        *,
        notes: Sequence[str] = (),
        compare: Mapping[str, Any] | None = None,
        calibration: Mapping[str, Any] | None = None,
        watch: Mapping[str, Any] | None = None,
        experiments: Sequence[Mapping[str, Any]] = (),
    ) -> Path:
        """Write what needs every run (the index, values and search shards, the manifest)
        and the pages beside them, and swap the new data folder in; the path of
        ``index.html``. The arguments are :func:`write_site`'s."""
        data, written = self._folder(), self._written
        out = data.parent
        try:
            _link_texts(written, _linked_texts(calibration))
            index_shards = _write_index(data, written.rows)
            _write_values(data, written.values)
            search_shards = _write_search(data, written, calibration)
            if compare is not None:
                _write(data / "compare.js", _script("compare", dict(compare)))
            if calibration is not None:
                _write(data / "calibration.js", _script("calibration", dict(calibration)))
            if experiments:
                _write(data / "experiments.js",
                       _script("experiments", [dict(e) for e in experiments]))  # fmt: skip
            _write(
                data / "manifest.js",
                manifest(len(written.rows), index_shards, search_shards, notes,
                         compare is not None, written.dimsets, calibration is not None, watch,
                         len(experiments)),
            )  # fmt: skip
            if watch is not None:
                _write(data / "build.js", _script("build", watch["build"], len(written.rows),
                                                   watch.get("when", "")))  # fmt: skip
            _copy_static(out)
            _swap_in(data, out / "data")
        except BaseException:
            self.discard()
            raise
        self._data = None  # swapped in: no longer ours to remove
        return out / "index.html"


@dataclass
class _Written:
    """What writing the runs' files leaves for the index, the search and the manifest.

    Attributes:
        rows: one index row per run, in order.
        texts: per run, its searched text as ``(own, transcript)`` (the calibration's
            words that link to it go between: :func:`_link_texts`), or ``[own text,
            shared transcript file]``; each a plain text once linked.
        dimsets: each distinct set of dimensions -> its number in the manifest.
        shared: each shared transcript's key -> (file number, items, searched text).
    """

    rows: list[list[Any]] = field(default_factory=list)
    values: list[list[float | None]] = field(default_factory=list)
    texts: list[Any] = field(default_factory=list)
    dimsets: dict[tuple[Any, ...], int] = field(default_factory=dict)
    shared: dict[str, tuple[str, tuple[SiteItem, ...], str]] = field(default_factory=dict)


def _link_texts(written: _Written, linked: Mapping[str, Sequence[str]]) -> None:
    """Each run's searched text made whole: its own text, the words of the calibration's
    disagreements that link to it (``linked``, by run id), then its transcript's (as
    :func:`search_text` joins them)."""
    for n, (row, text) in enumerate(zip(written.rows, written.texts, strict=True)):
        extra = [e.lower() for e in linked.get(row[0], ()) if e]
        if isinstance(text, list):
            written.texts[n] = ["\n".join(p for p in (text[0], *extra) if p), text[1]]
        else:
            written.texts[n] = "\n".join(p for p in (text[0], *extra, text[1]) if p)


def _write_raw(data: Path, file: str, items: Sequence[SiteItem]) -> None:
    """The raw records of ``items`` into ``data/raw/<file>.js`` (none: no file), read by
    the page only when a raw record is opened."""
    doc = raw_document(items)
    if doc is not None:
        _write(data / "raw" / f"{file}.js", _script("raw", file, doc))


def _write_index(data: Path, rows: list[list[Any]]) -> int:
    """Write the index rows, :data:`SHARD_ROWS` per shard (at least one); how many shards."""
    index_shards = max(1, -(-len(rows) // SHARD_ROWS))
    for s in range(index_shards):
        part = rows[s * SHARD_ROWS : (s + 1) * SHARD_ROWS]
        _write(data / f"index-{s}.js", _script("index", s, part))
    return index_shards


def _write_values(data: Path, values: list[list[float | None]]) -> None:
    """Write each index row's dimension values, sharded as the index is (``values-N.js``
    beside ``index-N.js``, at least one)."""
    for s in range(max(1, -(-len(values) // SHARD_ROWS))):
        part = values[s * SHARD_ROWS : (s + 1) * SHARD_ROWS]
        _write(data / f"values-{s}.js", _script("values", s, part))


def _write_search(data: Path, written: _Written, calibration: Mapping[str, Any] | None) -> int:
    """Write the searched texts, :data:`SEARCH_SHARD_RUNS` runs per shard, each shared
    transcript once per shard that has a run of it (and the calibration's texts in the
    first); how many shards."""
    texts = written.texts
    search_shards = -(-len(texts) // SEARCH_SHARD_RUNS)
    by_file = {file: text for file, _, text in written.shared.values()}
    for s in range(search_shards):
        start = s * SEARCH_SHARD_RUNS
        part_text = texts[start : start + SEARCH_SHARD_RUNS]
        # Each shared transcript once per shard that has a run of it.
        refs = {t[1]: by_file[t[1]] for t in part_text if isinstance(t, list)}
        cal = calibration_texts(calibration) if calibration is not None and s == 0 else []
        _write(data / f"search-{s}.js", _script("search", s, start, part_text, refs, cal))
    return search_shards
