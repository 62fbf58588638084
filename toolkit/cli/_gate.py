"""The CI options every scoring command shares: ``--gate``, ``--junit``, ``--allow-na``.

One helper, so that every command gates with the same words and reports the same way.
The API, in the order a command uses it:

* :func:`add_gate_arguments` (in the command's ``register``): ``--gate [MODE]``
  (modes and aliases: :mod:`toolkit.gate`), ``--junit FILE`` and, when the rubric has
  dimensions that can go unmeasured, ``--allow-na DIM,...``. ``bare`` is the mode of a
  ``--gate`` given without one, ``default`` the mode without any ``--gate``.
* :func:`gate_mode` (in ``run``): the mode asked for, aliases resolved, or None.
* :func:`finish` (last in ``run``): decides every subject, writes the JUnit file
  (atomically), appends the Markdown summary to ``$GITHUB_STEP_SUMMARY`` when that is set,
  prints one stderr line per failing subject naming why, and returns the exit code.

``--gate`` may stand anywhere in the argument list, before or after the paths:
:func:`normalize_argv` (called by :func:`toolkit.cli.main`) moves a bare ``--gate`` that
is followed by a path to the end, so argparse cannot take the path for the mode.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from toolkit.errors import InputError
from toolkit.gate import ALIASES, MODES, Check, decide, reason

if TYPE_CHECKING:
    from toolkit.scorecard import Scorecard

#: The flag's names, as they appear on the command line.
GATE_FLAG = "--gate"

_MODE_WORDS = frozenset(MODES) | frozenset(ALIASES)


def _mode(text: str) -> str:
    """A ``--gate`` word as the canonical mode.

    Raises:
        InputError: not a mode nor an alias (one line naming the value and the modes).
    """
    mode = ALIASES.get(text, text)
    if mode not in MODES:
        # difflib (1 ms of CPU): `toolkit --help` imports this module and is at its limit
        import difflib

        close = difflib.get_close_matches(text, sorted(_MODE_WORDS), n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise InputError(
            None, f"must be one of {', '.join(MODES)}{hint}", field="--gate", value=text
        )
    return mode


def resolve(args: argparse.Namespace) -> None:
    """Check ``args.gate`` and replace an alias by its mode (called by the CLI's main
    before the command runs, so a bad mode stops before any scoring)."""
    if getattr(args, "shared_gate", False) and getattr(args, "gate", None) is not None:
        args.gate = _mode(args.gate)


def add_gate_arguments(
    parser: argparse.ArgumentParser,
    *,
    bare: str = "strict",
    default: str | None = None,
    allow_na: bool = False,
    what: str = "subject",
    unit: str = "dimension",
) -> None:
    """Add ``--gate [MODE]``, ``--junit FILE`` (and ``--allow-na DIM,...``) to ``parser``.

    Args:
        parser: the command's parser.
        bare: the mode of ``--gate`` given without a mode.
        default: the mode without ``--gate`` (None: no gate, exit 0 when printed).
        allow_na: also add ``--allow-na``.
        what: what one subject is, for the help text (``run``, ``game``, ``iteration``).
        unit: what one of its dimensions is (``dimension``; ``metric`` for experiments).
    """
    # this command speaks the shared vocabulary (`toolkit compare` has its own gate words,
    # no-regression[:DIM,...], and checks them itself)
    parser.set_defaults(shared_gate=True)
    ci = parser.add_argument_group("CI")
    default_text = f"; without --gate: {default}" if default else ""
    article = "an" if what[:1] in "aeiou" else "a"
    ci.add_argument(
        GATE_FLAG,
        nargs="?",
        const=bare,
        default=default,
        metavar="MODE",
        help=f"exit 1 when {article} {what} fails the gate, naming why on stderr: strict "
        "(anything "
        "not green, N/A included), fail-only (a FAIL or a regression), regression (a "
        f"regression against a baseline), none; bare --gate is {bare}{default_text}",
    )
    ci.add_argument(
        "--junit",
        metavar="FILE",
        help=f"write a JUnit XML report: one test case per {what} and {unit}",
    )
    if allow_na:
        ci.add_argument(
            "--allow-na",
            metavar="DIM,...",
            help="dimensions (keys, e.g. graph_fanout) whose N/A passes the gate",
        )


def gate_mode(args: argparse.Namespace) -> str | None:
    """The gate mode asked for (canonical), or None without a gate."""
    mode: str | None = getattr(args, "gate", None)
    return mode


def allowed_na(args: argparse.Namespace, checks: Sequence[Check]) -> tuple[str, ...]:
    """``--allow-na``'s dimension keys, each checked against the dimensions scored.

    Raises:
        InputError: a key that names no dimension (the known keys are listed).
    """
    text = getattr(args, "allow_na", None)
    if not text:
        return ()
    keys = tuple(k.strip() for k in text.split(",") if k.strip())
    known = list(dict.fromkeys(c.key for c in checks))
    names = {c.name.lower(): c.key for c in checks}
    out: list[str] = []
    for key in keys:
        if key in known or key == "*":
            out.append(key)
        elif key.lower() in names:
            out.append(names[key.lower()])
        elif checks:
            raise InputError(
                None, f"no such dimension; the dimensions are {', '.join(known)}",
                field="--allow-na", value=key,
            )  # fmt: skip
    return tuple(out)


def finish(
    args: argparse.Namespace,
    command: str,
    cards: Sequence[Scorecard],
    checks: Sequence[Check],
    *,
    allow_na: Sequence[str] = (),
    notes: Sequence[str] = (),
    gate: str | None = None,
    per_check: bool = False,
    details: str = "",
    properties: Sequence[tuple[str, str]] = (),
) -> int:
    """Decide the gate, write the CI outputs, say why on stderr; the exit code.

    Args:
        args: the parsed arguments (``gate``, ``junit``, ``allow_na``).
        command: the subcommand's name (``quality``).
        cards: the scorecards shown (for the step summary).
        checks: their checks (:func:`toolkit.gate.checks_of`, with the command's
            overrides).
        allow_na: dimension keys whose N/A passes, beyond ``--allow-na``.
        notes: lines for the step summary's heading.
        gate: a command's own gate words in place of ``--gate MODE`` (calibrate's
            ``min-alpha 0.667``): a check with a failing finding fails it (as in
            ``fail-only``), and these words name the gate on stderr, in the JUnit
            properties and in the step summary.
        per_check: one stderr line per failing check (each its own reason), not one
            per failing subject.
        details: Markdown appended to the step summary under the shared table.
        properties: more JUnit suite properties (name, value).

    Returns:
        0 when there is no gate or every subject passes it, else 1.
    """
    mode = "fail-only" if gate else gate_mode(args)
    shown = gate or mode
    accepted = (*allowed_na(args, checks), *allow_na)
    failing = decide(checks, mode or "none", accepted)
    if getattr(args, "junit", None):
        options = _storage_options(args)
        _write_junit(args.junit, command, cards, checks, shown, mode, accepted, options, properties)
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        _append_summary(summary, command, cards, shown, failing, notes, details)
    if mode is None:
        return 0
    bad = {s: c for s, c in failing.items() if c}
    _say_why(command, shown, bad, per_check)
    return 1 if bad else 0


def _storage_options(args: argparse.Namespace) -> dict[str, Any] | None:
    """The ``--storage-option`` values of a command that has them (``None`` if none)."""
    if not getattr(args, "storage_option", None):
        return None
    # the option parser of the io package (44 ms of CPU): `toolkit --help` imports this module
    from toolkit.cli._scale import storage_options

    return storage_options(args)


def _write_junit(
    path: str,
    command: str,
    cards: Sequence[Scorecard],
    checks: Sequence[Check],
    shown: str | None,
    mode: str | None,
    accepted: Sequence[str],
    storage_options: Mapping[str, Any] | None = None,
    properties: Sequence[tuple[str, str]] = (),
) -> None:
    """``--junit FILE``: one test case per subject and dimension, written atomically on
    this machine or as one object through the output's Source (a URL).

    Raises:
        InputError: the file cannot be written.
    """
    # the JUnit view (polars, xml: 0.17 s of CPU) and the output's Source (the io package:
    # 44 ms): `toolkit --help` imports this module
    from toolkit.cli._output import write_output
    from toolkit.views.junit import render_junit

    rubric, version = _rubric(cards)
    xml = render_junit(
        checks,
        suite=f"toolkit {command}",
        rubric=rubric,
        rubric_version=version,
        mode=shown or "none",
        allow_na=accepted,
        decide_mode=mode or "none",
        epochs=[str(c.meta["epoch"]) for c in cards if c.meta.get("epoch")],
        input_digests={
            c.subject: str(c.meta["input_digest"]) for c in cards if c.meta.get("input_digest")
        },
        properties=properties,
    )
    write_output(path, xml, "the JUnit report", storage_options)


def _append_summary(
    summary: str,
    command: str,
    cards: Sequence[Scorecard],
    shown: str | None,
    failing: Mapping[str, Sequence[Check]],
    notes: Sequence[str],
    details: str,
) -> None:
    """The Markdown summary (and ``details`` under it) appended to ``summary``, the file
    ``$GITHUB_STEP_SUMMARY`` names.

    Raises:
        InputError: the file cannot be appended to.
    """
    # the Markdown view (polars: 0.17 s of CPU): `toolkit --help` imports this module
    from toolkit.views.markdown import STEP_SUMMARY_LIMIT, render_markdown

    try:  # the step's summary so far counts against the host's limit
        used = os.path.getsize(summary)
    except OSError:
        used = 0
    room = max(STEP_SUMMARY_LIMIT - used - len(details.encode("utf-8")) - 2, 0)
    text = render_markdown(
        cards, command=f"toolkit {command}", mode=shown, failing=failing, notes=notes,
        limit=room,
    )  # fmt: skip
    if details:
        text += "\n" + details.rstrip("\n") + "\n"
    try:  # one write in append mode: two steps appending cannot interleave lines
        with open(summary, "a", encoding="utf-8") as fh:
            fh.write(text + "\n")
    except OSError as exc:
        raise InputError(summary, f"cannot append the step summary ({exc.strerror})") from None


def _say_why(
    command: str, shown: str | None, bad: Mapping[str, Sequence[Check]], per_check: bool
) -> None:
    """On stderr, wrapped between words on a terminal: one line per failing subject
    naming why (per failing check with ``per_check``)."""
    # the text view (polars: 0.17 s of CPU): `toolkit --help` imports this module
    from toolkit.views.text import terminal_style, wrap_item

    width, _ = terminal_style(sys.stderr)  # a terminal: wrapped between words
    for subject, failed in bad.items():
        lines = (
            [
                f"gate {shown}: {c.name}: {c.detail}"
                if c.detail
                else f"gate {shown}: {reason([c])}"
                for c in failed
            ]
            if per_check
            else [f"gate {shown}: {subject} failed: {reason(failed)}"]
        )
        for line in lines:
            for part in wrap_item(line, width, bullet=f"toolkit {command}: ", indent=2):
                print(part, file=sys.stderr)


def markdown(
    args: argparse.Namespace,
    command: str,
    cards: Sequence[Scorecard],
    checks: Sequence[Check],
    *,
    allow_na: Sequence[str] = (),
    notes: Sequence[str] = (),
) -> str:
    """``--format markdown``: the same document the step summary gets."""
    # the Markdown view (polars: 0.17 s of CPU): `toolkit --help` imports this module
    from toolkit.views.markdown import render_markdown

    mode = gate_mode(args)
    accepted = (*allowed_na(args, checks), *allow_na)
    failing = decide(checks, mode or "none", accepted)
    return render_markdown(
        cards, command=f"toolkit {command}", mode=mode, failing=failing, notes=notes
    )


def _rubric(cards: Sequence[Scorecard]) -> tuple[str, str]:
    if not cards:
        return "", ""
    return cards[0].rubric, cards[0].rubric_version


def normalize_argv(argv: Sequence[str]) -> list[str]:
    """``argv`` with every bare ``--gate`` that precedes a non-mode word moved to the end.

    ``toolkit discussion --gate game.json`` then means ``discussion game.json --gate``.
    A word after ``--gate`` stays its mode when it is a mode or alias, or when it looks
    like neither a path nor a URL (so ``--gate sometimes`` is still refused by name).
    """
    out = list(argv)
    moved = 0
    i = 0
    while i < len(out) - moved:
        if out[i] == GATE_FLAG and i + 1 < len(out):
            nxt = out[i + 1]
            if not nxt.startswith("-") and nxt not in _MODE_WORDS and _looks_like_path(nxt):
                out.append(out.pop(i))
                moved += 1
                continue
        i += 1
    return out


def _looks_like_path(word: str) -> bool:
    return "/" in word or "://" in word or "." in word or os.path.exists(word)
