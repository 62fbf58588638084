"""Facts about a git repository, read through the real ``git`` command line.

Works on bare and non-bare repositories alike: files are read from commits
(``git show REV:PATH``), never from a working tree.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import subprocess
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from toolkit.errors import InputError

#: Branches tried, in order, as the trunk; ``HEAD`` when none exists.
TRUNK_CANDIDATES = ("main", "master", "trunk")

_HEX = re.compile(r"^[0-9a-fA-F]{4,64}$")
_HEX_RUN = re.compile(r"[0-9a-fA-F]+")
_UNIT, _RECORD = "\x1f", "\x1e"


@dataclass(frozen=True)
class Commit:
    """One commit: full SHA, committer time (UTC), subject and full message."""

    sha: str
    time: dt.datetime
    subject: str
    message: str


class GitRepo:
    """A git repository opened through the ``git`` CLI.

    Args:
        path: the repository (a working tree, or a bare repository).

    Raises:
        InputError: ``path`` is missing, is not a git repository, or ``git`` is not installed.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if not self.path.exists():
            raise InputError(self.path, "no such folder (--repo)")
        try:
            self._git("rev-parse", "--git-dir")
        except FileNotFoundError as exc:
            raise InputError(self.path, "the `git` command is not installed") from exc
        except subprocess.CalledProcessError as exc:
            raise InputError(self.path, "not a git repository (--repo)") from exc

    def _git(self, *args: str) -> str:
        env = {**os.environ, "LC_ALL": "C", "GIT_TERMINAL_PROMPT": "0"}
        done = subprocess.run(
            ["git", "-C", str(self.path), "-c", "core.quotePath=false", *args],
            check=True,
            capture_output=True,
            env=env,
        )
        return done.stdout.decode("utf-8", errors="replace")

    def _try(self, *args: str) -> str | None:
        try:
            return self._git(*args)
        except subprocess.CalledProcessError:
            return None

    @cached_property
    def bare(self) -> bool:
        """Whether the repository has no working tree."""
        return (self._try("rev-parse", "--is-bare-repository") or "").strip() == "true"

    @cached_property
    def trunk(self) -> str | None:
        """The trunk: the first of main, master, trunk that exists, else ``HEAD``; ``None``
        when the repository has no commit."""
        for name in TRUNK_CANDIDATES:
            if self._try("rev-parse", "--verify", "--quiet", f"refs/heads/{name}") is not None:
                return name
        if self._try("rev-parse", "--verify", "--quiet", "HEAD^{commit}") is not None:
            return "HEAD"
        return None

    @cached_property
    def trunk_log(self) -> tuple[Commit, ...]:
        """Every commit reachable from the trunk, newest first (``git log`` order)."""
        if self.trunk is None:
            return ()
        out = self._git(
            "log", self.trunk, f"--format=%H{_UNIT}%ct{_UNIT}%s{_UNIT}%B{_RECORD}", "--"
        )
        commits = []
        for record in out.split(_RECORD):
            parts = record.strip("\n").split(_UNIT, 3)
            if len(parts) == 4:
                sha, ct, subject, message = parts
                commits.append(Commit(sha, _utc(ct), subject.strip(), message))
        return tuple(commits)

    @cached_property
    def _trunk_position(self) -> dict[str, int]:
        return {c.sha: i for i, c in enumerate(self.trunk_log)}

    @cached_property
    def _by_subject(self) -> dict[str, Commit]:
        out: dict[str, Commit] = {}
        for commit in self.trunk_log:  # newest first: the newest commit with a subject wins
            out.setdefault(commit.subject.casefold(), commit)
        return out

    def resolve(self, ref: str) -> str | None:
        """The full SHA of the commit ``ref`` names, or ``None``. Only hex SHAs (full or
        abbreviated) are looked up, so a branch name in a log never resolves."""
        ref = ref.strip()
        if not _HEX.match(ref):
            return None
        out = self._try("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
        return out.strip() if out else None

    def commit(self, sha: str) -> Commit | None:
        """The commit ``sha`` (reachable from the trunk or not)."""
        position = self._trunk_position.get(sha)
        if position is not None:
            return self.trunk_log[position]
        out = self._try("show", "-s", f"--format=%H{_UNIT}%ct{_UNIT}%s{_UNIT}%B", sha, "--")
        if not out:
            return None
        parts = out.strip("\n").split(_UNIT, 3)
        if len(parts) != 4:
            return None
        return Commit(parts[0], _utc(parts[1]), parts[2].strip(), parts[3])

    def on_trunk(self, sha: str) -> bool:
        """Whether ``sha`` is reachable from the trunk."""
        return sha in self._trunk_position

    def trunk_commit_with_subject(self, subject: str) -> Commit | None:
        """The newest trunk commit whose subject equals ``subject`` (case-insensitive)."""
        return self._by_subject.get(" ".join(subject.split()).casefold())

    def reverted_by(self, sha: str, min_hex: int = 7) -> Commit | None:
        """The trunk commit after ``sha`` that reverts it: its message mentions "revert"
        and at least ``min_hex`` leading hex characters of ``sha``."""
        position = self._trunk_position.get(sha)
        if position is None:
            return None
        for commit in reversed(self.trunk_log[:position]):  # oldest later commit first
            message = commit.message.lower()
            if "revert" not in message:
                continue
            for run in _HEX_RUN.findall(message):
                if len(run) >= min_hex and sha.startswith(run):
                    return commit
        return None

    def changed_files(self, sha: str) -> list[str]:
        """Paths the commit changed (against its first parent; every path for a root commit)."""
        out = self._git(
            "diff-tree", "-z", "-r", "--no-commit-id", "--name-only", "--root", "-m",
            "--first-parent", sha,
        )  # fmt: skip
        return sorted({p for p in out.split("\0") if p})

    def added_lines(self, sha: str) -> str:
        """The lines the commit added (against its first parent), one per line, without
        their ``+``; file names of added files included as ``+++ b/<path>`` lines."""
        out = self._try(
            "diff-tree", "-p", "--no-commit-id", "--root", "-m", "--first-parent",
            "--unified=0", "--no-color", "--no-ext-diff", sha,
        )  # fmt: skip
        return "\n".join(line[1:] for line in (out or "").splitlines() if line.startswith("+"))

    def show(self, rev: str, path: str) -> str | None:
        """The text of ``path`` at ``rev``, or ``None`` when it does not exist there."""
        return self._try("show", f"{rev}:{path.lstrip('/')}")

    def files(self, rev: str, folder: str) -> list[str]:
        """Every file path under ``folder`` at ``rev``."""
        out = self._try("ls-tree", "-r", "-z", "--name-only", rev, "--", folder)
        return sorted(p for p in (out or "").split("\0") if p)

    @cached_property
    def worktree(self) -> Path | None:
        """The top of the working tree, ``None`` for a bare repository."""
        if self.bare:
            return None
        out = self._try("rev-parse", "--show-toplevel")
        return Path(out.strip()) if out else None


def _utc(seconds: str) -> dt.datetime:
    return dt.datetime.fromtimestamp(int(seconds.strip()), tz=dt.UTC)
