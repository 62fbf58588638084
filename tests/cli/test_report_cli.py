"""``toolkit report`` on the command line: exit codes, the one-line error, the file."""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
import pytest

from toolkit.cli import main


def test_report_cli_writes_the_file_and_prints_its_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    nb = nbformat.v4.new_notebook()
    params = nbformat.v4.new_code_cell("run = 'none'\nwindow = 1")
    params.metadata["tags"] = ["parameters"]
    nb.cells = [params, nbformat.v4.new_code_cell("print('window', window * 2)")]
    nbformat.write(nb, tmp_path / "nb.ipynb")
    out = tmp_path / "r.html"
    code = main(["report", str(tmp_path / "nb.ipynb"), "somerun", "-o", str(out),
                 "--param", "window=21"])  # fmt: skip
    assert code == 0
    assert capsys.readouterr().out.strip() == str(out)
    assert "window 42" in out.read_text(encoding="utf-8")
    umask = os.umask(0)
    os.umask(umask)
    assert out.stat().st_mode & 0o777 == 0o666 & ~umask  # shareable, not mkstemp's 0600


def test_report_cli_bad_input_exits_2_with_one_line_and_no_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code = main(["report", "simulation", "no-such-run"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1
    assert err.startswith("toolkit report: error: simulation_postmortem.ipynb: ")
    assert err.rstrip().endswith("no-such-run: no such run folder")
    assert list(tmp_path.iterdir()) == []


def test_report_cli_unknown_template_or_param_exits_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["report", "nope", "x", "-o", str(tmp_path / "a.html")]) == 2
    assert "unknown template 'nope'" in capsys.readouterr().err
    assert main(["report", "fleet", "x", "--param", "bogus=1"]) == 2
    assert "not a parameter of this notebook" in capsys.readouterr().err
    assert not (tmp_path / "a.html").exists()


def test_report_of_a_folder_of_runs_is_refused_like_quality_refuses_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    fleet = Path(__file__).resolve().parents[2] / "sample_runs" / "fleet"
    assert main(["quality", str(fleet)]) == 2
    quality_err = capsys.readouterr().err
    assert "a folder of" in quality_err and "runs, not a run" in quality_err
    monkeypatch.chdir(tmp_path)
    assert main(["report", "simulation", str(fleet)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and quality_err.split(": error: ")[1] in err
    assert list(tmp_path.iterdir()) == []
