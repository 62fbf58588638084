"""Build the small git repository that the sample iteration log ``tally-loop/`` refers to.

Usage::

    python sample_runs/iteration_logs/make_repo.py DEST [--bare] [--force]

The repository holds a toy package, ``tally``, and its task plan
(``.agents/workflow/plans/tally-v1/TASKS.yaml``). Every commit has a fixed author,
committer and date and git's configuration is isolated, so the commit SHAs are the same
on every machine: the log names them. The history exercises each git-derived signal:

* ``main``: skeleton, a CSV reader (iteration 1 logs a SHA that is not here; its summary
  matches this commit's subject), a rounding helper (iteration 2) that a later commit
  reverts, a reader fix (iteration 3 logged no SHA), the CLI (iteration 4; one of its three
  files is outside the task's write scope), the report command (iteration 6);
* ``spike/streaming``: a commit never merged into ``main`` (iteration 5).

With ``--bare`` DEST is a bare clone (git facts must work on both).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

TASKS_YAML = """\
schema_version: 1
plan_id: tally-v1
tasks:
  - id: t-reader
    title: Read tally records from CSV
    status: done
    write_scope: [src/tally/reader.py, tests/]
  - id: t-round
    title: Round totals for display
    status: dropped
    write_scope: [src/tally/rounding.py, tests/test_rounding.py]
  - id: t-cli
    title: Command line with JSON output
    status: done
    write_scope: [src/tally/cli.py, tests/test_cli.py]
  - id: t-stream
    title: Stream large files
    status: blocked
    write_scope: [src/tally/stream.py]
  - id: t-report
    title: Summary report command
    status: done
    write_scope: [src/tally/report.py, tests/]
"""

#: (branch, ISO date, message, files to write (None deletes)).
HISTORY: list[tuple[str, str, str, dict[str, str | None]]] = [
    (
        "main",
        "2026-03-02T09:00:00Z",
        "Start tally: package skeleton and task plan",
        {
            "README.md": "# tally\n\nCount and total records from CSV files.\n",
            "src/tally/__init__.py": '"""Count and total records from CSV files."""\n',
            ".agents/workflow/plans/tally-v1/TASKS.yaml": TASKS_YAML,
        },
    ),
    (
        "main",
        "2026-03-02T11:00:00Z",
        "Add CSV reader for tally records",
        {
            "src/tally/reader.py": (
                "import csv\n\n\ndef read(path):\n"
                "    with open(path, newline='') as f:\n"
                "        return list(csv.DictReader(f))\n"
            ),
            "tests/test_reader.py": "def test_read():\n    assert True\n",
        },
    ),
    (
        "main",
        "2026-03-03T10:00:00Z",
        "Add rounding helper",
        {"src/tally/rounding.py": "def round_total(x):\n    return round(x, 2)\n"},
    ),
    (
        "main",
        "2026-03-03T15:00:00Z",
        "Handle blank lines in the reader",
        {
            "src/tally/reader.py": (
                "import csv\n\n\ndef read(path):\n"
                "    with open(path, newline='') as f:\n"
                "        return [r for r in csv.DictReader(f) if any(r.values())]\n"
            ),
        },
    ),
    (
        "main",
        "2026-03-04T09:30:00Z",
        'Revert "Add rounding helper"\n\nThis reverts commit {rounding}.\n'
        "Totals are rounded by the CLI instead.",
        {"src/tally/rounding.py": None},
    ),
    (
        "main",
        "2026-03-05T14:00:00Z",
        "Add tally CLI with --json output",
        {
            "src/tally/cli.py": (
                "import json\nimport sys\n\nfrom tally.reader import read\n\n\n"
                "def main():\n    print(json.dumps(read(sys.argv[1])))\n"
            ),
            "tests/test_cli.py": "def test_cli():\n    assert True\n",
            "README.md": (
                "# tally\n\nCount and total records from CSV files.\n\n    tally FILE.csv --json\n"
            ),
        },
    ),
    (
        "spike/streaming",
        "2026-03-06T11:00:00Z",
        "Stream large CSV files lazily",
        {
            "src/tally/stream.py": (
                "import csv\n\n\ndef stream(path):\n"
                "    with open(path, newline='') as f:\n"
                "        yield from csv.DictReader(f)\n"
            ),
        },
    ),
    (
        "main",
        "2026-03-07T16:00:00Z",
        "Add summary report command",
        {
            "src/tally/report.py": "def report(rows):\n    return {'rows': len(rows)}\n",
            "tests/test_report.py": "def test_report():\n    assert True\n",
        },
    ),
]


def _env(date: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_CONFIG_NOSYSTEM="1",
        GIT_AUTHOR_NAME="Tally Agent",
        GIT_AUTHOR_EMAIL="agent@tally.example",
        GIT_COMMITTER_NAME="Tally Agent",
        GIT_COMMITTER_EMAIL="agent@tally.example",
        GIT_AUTHOR_DATE=date,
        GIT_COMMITTER_DATE=date,
        LC_ALL="C",
    )
    return env


def _git(repo: Path, *args: str, date: str = "2026-03-02T09:00:00Z") -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=_env(date)
    )
    return done.stdout.strip()


def build(dest: Path) -> dict[str, str]:
    """Create the repository at ``dest`` (which must not exist); returns subject -> SHA."""
    dest.mkdir(parents=True)
    _git(dest, "init", "-q")
    _git(dest, "symbolic-ref", "HEAD", "refs/heads/main")
    shas: dict[str, str] = {}
    for branch, date, message, files in HISTORY:
        if shas and _git(dest, "branch", "--show-current") != branch:
            exists = _git(dest, "branch", "--list", branch) != ""
            _git(dest, "checkout", "-q", *(() if exists else ("-b",)), branch)
        for name, content in files.items():
            path = dest / name
            if content is None:
                _git(dest, "rm", "-q", name)
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content, encoding="utf-8")
            _git(dest, "add", name)
        text = message.format(rounding=shas.get("Add rounding helper", ""))
        _git(dest, "commit", "-q", "--no-verify", "-m", text, date=date)
        shas[text.splitlines()[0]] = _git(dest, "rev-parse", "HEAD")
    _git(dest, "checkout", "-q", "main")
    return shas


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dest", type=Path, help="where to create the repository")
    parser.add_argument("--bare", action="store_true", help="create a bare repository")
    parser.add_argument("--force", action="store_true", help="replace DEST if it exists")
    args = parser.parse_args(argv)
    dest: Path = args.dest
    if dest.exists():
        if not args.force:
            print(f"{dest}: already exists (use --force to replace it)", file=sys.stderr)
            return 2
        shutil.rmtree(dest)
    if args.bare:
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp) / "work"
            shas = build(work)
            _git(Path(tmp), "clone", "-q", "--bare", str(work), str(dest.resolve()))
    else:
        shas = build(dest)
    for subject, sha in shas.items():
        print(f"{sha}  {subject}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
