"""The site's ``data/`` swap (``write_site``): never a site without ``data/``, whatever
interrupts it, and what a killed build left beside it put back or removed by the next."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import pytest

from toolkit.views.site import SiteRun, write_site

#: A pid no process has (past the C int): a dead build's.
_DEAD = 2**40


def _run(run_id: str) -> SiteRun:
    return SiteRun(run_id, "simulation", None, note="not scored")


def _manifest(site: Path) -> str:
    return (site / "data" / "manifest.js").read_text(encoding="utf-8")


def _aside(site: Path, kind: str, pid: int) -> Path:
    """A copy of the site's data/ as a build ``pid`` leaves it aside, older than now."""
    folder = site / f".{kind}.{pid}.abcd1234.toolkit-tmp"
    folder.mkdir()
    (folder / "manifest.js").write_text(_manifest(site), encoding="utf-8")
    os.utime(folder, (1, 1))
    return folder


def test_a_dead_builds_leftover_folders_are_removed_by_the_next_build(tmp_path: Path) -> None:
    site = tmp_path / "site"
    write_site([], site)
    dead_old, dead_new = _aside(site, "data-old", _DEAD), _aside(site, "data-new", _DEAD)
    live = _aside(site, "data-old", os.getpid())  # a build still running: not touched
    write_site([_run("a")], site)
    assert not dead_old.exists() and not dead_new.exists()
    assert live.is_dir()
    assert '"a"' in (site / "data" / "index-0.js").read_text(encoding="utf-8")


def test_a_site_left_without_data_gets_its_old_folder_back_even_if_the_build_fails(
    tmp_path: Path,
) -> None:
    """A build killed outright between the two renames leaves data/ aside; the next
    build puts it back before anything else, so a build that then fails (two runs of one
    id) still leaves the previous site whole."""
    site = tmp_path / "site"
    write_site([_run("kept")], site)
    before = _manifest(site)
    aside = site / f".data-old.{_DEAD}.abcd1234.toolkit-tmp"
    (site / "data").rename(aside)
    os.utime(aside, (1, 1))
    with pytest.raises(ValueError, match="two runs"):
        write_site([_run("x"), _run("x")], site)
    assert _manifest(site) == before
    assert not aside.exists()
    assert sorted(p.name for p in site.iterdir()) == ["data", "index.html", "static"]


def test_a_ctrl_c_during_the_renames_arrives_after_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    write_site([_run("old")], site)
    real_rename = Path.rename

    def rename_with_ctrl_c(self: Path, target: Any) -> Path:
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C as the first rename starts
        return real_rename(self, target)

    monkeypatch.setattr(Path, "rename", rename_with_ctrl_c)
    with pytest.raises(KeyboardInterrupt):
        write_site([_run("new")], site)
    monkeypatch.undo()
    assert '"new"' in (site / "data" / "index-0.js").read_text(encoding="utf-8")
    assert sorted(p.name for p in site.iterdir()) == ["data", "index.html", "static"]
