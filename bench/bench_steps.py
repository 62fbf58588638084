"""Each step's instructions in one run of ``toolkit discussion``, counted in one process.

Issue 38 asks ``toolkit discussion`` to cost at most 1.3x ``python -c "import polars"``.
``bench_one_run.py --instructions`` gives the whole run's count; this one says where it
goes. The run is the command line's own (``toolkit.cli.main``, on Polars' worker as the
command runs on small inputs), under Valgrind's callgrind with one Polars thread and a
fixed hash seed. Each step it names is wrapped so that it calls ``os.getppid()`` when it
starts and when it ends (a system call nothing else on this path makes; the bench checks
that the dumps and the marks agree), and callgrind dumps its counts before each such call
(``--dump-before=getppid``): the dumps, in order, are the instructions between marks. A
stretch between marks is put down to the innermost step open at the time, or to the
command's own code outside every step; each of the toolkit's modules, while it is
imported (read, unmarshalled and run), to the imports, whichever step imports it.

The floor is counted the same way, ``import polars`` then one mark: its import and its
interpreter teardown. The marks and their wrappers cost instructions of their own; the
table gives the whole run counted without them beside the total with them.

Usage:
    python bench/bench_steps.py [PATH ...]   (default: sample_runs/discussions)

Needs ``valgrind`` (Debian's package). Counts repeat to ~0.1 M on a quiet host; with both
cores busy they move by up to 2 % (``bench_one_run.py``'s docstring).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "sample_runs" / "discussions"

#: Module -> (function, what the table calls its step), wrapped when the module is imported.
STEPS: dict[str, tuple[tuple[str, str], ...]] = {
    "toolkit.cli": (
        ("build_parser", "the `discussion` parser built"),
        ("_parse", "the command line read"),
    ),
    "toolkit.cli._pool": (("on_worker", "Polars' pool started, the run handed to its worker"),),
    "toolkit.cli.discussion": (("_gate", "the gate's exit code"),),
    "toolkit.load.discussion": (("load_discussions", "the games loaded"),),
    "toolkit.rubrics.discussion.evidence": (
        ("strategic_evidence", "strategic depth: keywords"),
        ("coherence_evidence", "coherence: links to earlier messages"),
        ("role_evidence", "role: cues, partners accused, breaks"),
        ("memory_references", "memory: references read, resolved, checked"),
        ("speaker_similarity", "diversity: speakers' similarity"),
        ("phrase_uses", "anti-repetition: phrases"),
    ),
    "toolkit.rubrics.discussion.score": (
        ("reviewer_labels", "reviewer labels"),
        ("gather_evidence", "evidence: the rest (labels, schema, ratings)"),
        ("game_tallies", "tallies"),
        ("metrics_frame", "metrics frame"),
        ("discussion_epoch", "epoch"),
        ("game_digests", "input digests"),
        ("game_cards", "scorecards"),
    ),
    "toolkit.views.discussion": (("render_discussion_text", "drawn as text"),),
}
#: Where a stretch outside every step goes.
OUTSIDE = "the command's own code between the steps"
#: A module imported, whichever step imports it.
IMPORTS = "the toolkit's modules imported (with `argparse`)"
FLOOR_IMPORT = "python started, `import polars` (the floor's work)"
TEARDOWN = "the interpreter's teardown"
BENCH_OWN = "(this bench's module and its import hook: not the command's)"


class _Marks:
    """The step labels in the order the stretches between marks end, and the open steps."""

    def __init__(self) -> None:
        self.closed: list[str] = []
        self.open: list[str] = []

    def mark(self, label: str) -> None:
        """End the stretch since the last mark, put down to ``label``."""
        self.closed.append(label)
        os.getppid()

    def wrap(self, func: Callable[..., Any], label: str) -> Callable[..., Any]:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            self.mark(self.open[-1] if self.open else OUTSIDE)
            self.open.append(label)
            try:
                return func(*args, **kwargs)
            finally:
                self.mark(self.open.pop())

        return wrapped


class _Wrapping(importlib.abc.MetaPathFinder):
    """Marks each of the toolkit's modules while it is imported (read, unmarshalled and
    run, with what it imports in turn), and wraps the steps of :data:`STEPS` in their
    modules once they have run."""

    def __init__(self, marks: _Marks) -> None:
        self.marks = marks

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name.partition(".")[0] != "toolkit":
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        run = spec.loader.exec_module
        steps = STEPS.get(name, ())
        importing = self.marks.wrap(run, IMPORTS)

        def exec_module(module: ModuleType) -> None:
            importing(module)
            for func, label in steps:
                setattr(module, func, self.marks.wrap(getattr(module, func), label))

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


#: The counted process: ``import polars`` and a mark before this module is imported (so
#: that its own imports are not the command's), with the pool the command sizes for small
#: inputs; then :func:`child`.
CHILD = """
import os, sys
os.environ["POLARS_MAX_THREADS"] = "1"
import polars
os.getppid()
sys.path.insert(0, {here!r})
import bench_steps
bench_steps.child(sys.argv[1], sys.argv[2:])
"""


def child(labels_file: str, paths: Sequence[str]) -> None:
    """``toolkit discussion PATHS`` with its steps marked (after :data:`CHILD`'s start);
    the labels of the stretches, in order, written to ``labels_file`` at the end."""
    marks = _Marks()
    marks.closed.append(FLOOR_IMPORT)  # CHILD's mark
    sys.meta_path.insert(0, _Wrapping(marks))
    marks.mark(BENCH_OWN)
    import toolkit.cli

    sys.argv = ["toolkit", "discussion", *paths]
    try:
        toolkit.cli.main()
    finally:
        marks.mark(OUTSIDE)
        Path(labels_file).write_text("\n".join(marks.closed) + "\n", encoding="utf-8")


def dump_totals(out: Path) -> tuple[list[int], int]:
    """The instructions of each numbered dump ``out.1``, ``out.2``, ... in order, and of
    the last part (``out`` itself: from the last dump to the end of the process)."""
    numbered = sorted(out.parent.glob(out.name + ".*"), key=lambda p: int(p.suffix[1:]))
    return [_total(p) for p in numbered], _total(out)


def _total(path: Path) -> int:
    text = path.read_text(encoding="utf-8", errors="replace")
    found = re.search(r"^(?:summary|totals): (\d+)", text, re.MULTILINE)
    if found is None:
        raise SystemExit(f"{path}: no 'summary:' or 'totals:' line (not a callgrind dump?)")
    return int(found.group(1))


def by_step(labels: Sequence[str], dumps: Sequence[int], last: int) -> dict[str, int]:
    """Instructions per step label: each dump is the stretch its label closed (one label a
    dump, in order), and the part after the last mark is the teardown."""
    if len(labels) != len(dumps):
        raise SystemExit(
            f"{len(dumps)} dumps for {len(labels)} marks: something else on the path "
            "calls getppid(), or a step ran on another thread"
        )
    steps: dict[str, int] = {}
    for label, count in zip(labels, dumps, strict=True):
        steps[label] = steps.get(label, 0) + count
    steps[TEARDOWN] = steps.get(TEARDOWN, 0) + last
    return steps


def _callgrind(command: Sequence[str], out: Path) -> None:
    """``command`` under callgrind, its counts dumped to ``out`` (and ``out.N``) before
    each mark; its bytecode cached by a run outside Valgrind first."""
    env = {**os.environ, "POLARS_MAX_THREADS": "1", "PYTHONHASHSEED": "0"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run(command, cwd=ROOT, env=env, check=False, capture_output=True)
    valgrind = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
    done = subprocess.run(
        [*valgrind, "--dump-before=getppid", *command],
        cwd=ROOT, env=env, check=False, capture_output=True, text=True,
    )  # fmt: skip
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise SystemExit(f"failed under callgrind ({done.returncode}): {last}")


def main(argv: Sequence[str] | None = None) -> None:
    import argparse  # here: not in the counted process, where the command imports it

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", default=[str(GAMES)], metavar="PATH")
    args = parser.parse_args(argv)
    if shutil.which("valgrind") is None:
        raise SystemExit("needs valgrind (Debian: apt-get install valgrind)")
    py = sys.executable
    with tempfile.TemporaryDirectory() as scratch:
        tmp = Path(scratch)
        labels = tmp / "labels"
        counted = [py, "-c", CHILD.format(here=str(Path(__file__).parent)), str(labels)]
        _callgrind([*counted, *args.paths], tmp / "run")
        steps = by_step(labels.read_text(encoding="utf-8").splitlines(), *dump_totals(tmp / "run"))
        mark = "import os, polars; os.getppid()"
        _callgrind([py, "-c", mark], tmp / "floor")
        (floor_import,), floor_teardown = dump_totals(tmp / "floor")
    # the whole command counted as `bench_one_run.py --instructions` counts it (imported
    # here: in the counted process its imports would be taken for the command's)
    from bench_one_run import CLI, instructions_of

    plain = instructions_of([py, "-c", CLI, "discussion", *args.paths], None)
    floor = floor_import + floor_teardown
    own = steps.pop(BENCH_OWN)
    marked = sum(steps.values())
    print(f"`toolkit discussion {' '.join(args.paths)}`, one Polars thread\n")
    print("| step | M instructions | beyond the floor's |")
    print("|---|---:|---:|")
    for label, count in steps.items():
        beyond = {FLOOR_IMPORT: floor_import, TEARDOWN: floor_teardown}.get(label)
        extra = f"{(count - beyond) / 1e6:+.1f}" if beyond is not None else ""
        print(f"| {label} | {count / 1e6:.1f} | {extra} |")
    for label, total in (("marked", marked), ("the command as it runs", plain)):
        print(f"| **total, {label}** | {total / 1e6:.1f} | {(total - floor) / 1e6:+.1f} |")
    print(
        f"\nfloor: {floor / 1e6:.1f} M ({floor_import / 1e6:.1f} M import, "
        f"{floor_teardown / 1e6:.1f} M teardown); the command {plain / floor:.3f}x the floor; "
        f"the marks and wrappers {(marked - plain) / 1e6:+.1f} M (and this bench's module and "
        f"hook {own / 1e6:.1f} M, left out)"
    )


if __name__ == "__main__":
    main()
