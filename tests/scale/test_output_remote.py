"""Outputs through the same door as inputs (moto's S3 server on 127.0.0.1): an output URL
is written to object storage (``view -o``, ``report -o``, every ``--junit``) or refused
in one line naming it (``persona --write-baseline``, ``calibrate --html``); never a local
folder named after its scheme (``-o s3://bucket/site`` once made a folder ``s3:``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import BUCKET, S3, SAMPLE_RUNS

import toolkit.reports
from toolkit.cli import main

PERSONA = SAMPLE_RUNS / "persona"


def _keys(s3: S3, prefix: str) -> dict[str, bytes]:
    listed = s3.client.list_objects_v2(Bucket=BUCKET, Prefix=f"{prefix}/")
    return {
        o["Key"][len(prefix) + 1 :]: s3.client.get_object(Bucket=BUCKET, Key=o["Key"])[
            "Body"
        ].read()
        for o in listed.get("Contents", [])
    }


def test_view_writes_the_site_into_a_bucket_file_for_file(
    s3: S3, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)  # a folder named s3: would appear here
    local = tmp_path / "site"
    url = f"s3://{BUCKET}/out/site"
    runs = str(SAMPLE_RUNS / "universes")
    assert main(["view", runs, "-o", str(local)]) == 0
    assert main(["view", runs, "--storage-option", s3.option, "-o", url]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == f"toolkit view: wrote 3 run(s): {url}/index.html"
    assert not (tmp_path / "s3:").exists()
    files = {p.relative_to(local).as_posix(): p.read_bytes() for p in local.rglob("*")
             if p.is_file()}  # fmt: skip
    assert _keys(s3, "out/site") == files


def test_report_puts_its_page_to_a_url(
    s3: S3, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    made: dict[str, Any] = {}

    def render(template: str, inputs: Any, *, output: Path, **_: Any) -> Path:
        made["output"] = output  # a local file the report is written to first
        output.write_text("<html>report</html>", encoding="utf-8")
        return output

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AWS_ENDPOINT_URL", s3.endpoint)  # the usual chain, as reports use
    monkeypatch.setattr(toolkit.reports, "render_report", render)
    url = f"s3://{BUCKET}/out/reports/ashfall.html"
    assert main(["report", "simulation", "run", "-o", url]) == 0
    assert capsys.readouterr().out.strip() == url
    assert made["output"].name == "ashfall.html" and not made["output"].exists()  # cleaned up
    assert _keys(s3, "out/reports") == {"ashfall.html": b"<html>report</html>"}
    assert not (tmp_path / "s3:").exists()


def test_compare_puts_its_junit_report_to_a_url(
    s3: S3, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    arms = [str(SAMPLE_RUNS / "compare" / "a"), str(SAMPLE_RUNS / "compare" / "b")]
    url = f"s3://{BUCKET}/out/ci/compare.xml"
    assert main(["compare", *arms, "--storage-option", s3.option, "--junit", url]) == 0
    assert main(["compare", *arms, "--junit", str(tmp_path / "here.xml")]) == 0
    capsys.readouterr()
    assert _keys(s3, "out/ci") == {"compare.xml": (tmp_path / "here.xml").read_bytes()}
    assert not (tmp_path / "s3:").exists()


def test_a_scoring_command_puts_its_junit_report_to_a_url(
    s3: S3, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    run = str(SAMPLE_RUNS / "universes" / "ashfall")
    url = f"s3://{BUCKET}/out/gate/quality.xml"
    main(["quality", run, "--storage-option", s3.option, "--junit", url])
    main(["quality", run, "--junit", str(tmp_path / "here.xml")])
    capsys.readouterr()
    assert _keys(s3, "out/gate") == {"quality.xml": (tmp_path / "here.xml").read_bytes()}
    assert not (tmp_path / "s3:").exists()


def test_calibrate_refuses_a_page_url_before_any_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    url = f"s3://{BUCKET}/out/calibration.html"
    scores = str(SAMPLE_RUNS / "calibration" / "scores.csv")
    assert main(["calibrate", scores, "--html", url]) == 2
    out, err = capsys.readouterr()
    assert out == ""  # refused before the statistics are printed
    lines = err.strip().splitlines()
    assert len(lines) == 1 and url in lines[0] and "--html" in lines[0], lines
    assert not (tmp_path / "s3:").exists()


def test_persona_refuses_to_write_baselines_to_a_url(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    url = f"s3://{BUCKET}/out/baselines"
    args = ["persona", str(PERSONA / "radio-week2.jsonl"), "--propositions",
            str(PERSONA / "propositions"), "--judge", f"recorded:{PERSONA / 'cassette.json'}",
            "--write-baseline", url]  # fmt: skip
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and url in err[0] and "--write-baseline" in err[0], err
    assert not (tmp_path / "s3:").exists()


def test_a_file_url_output_is_the_folder_it_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    site = tmp_path / "site"
    assert main(["view", str(SAMPLE_RUNS / "universes"), "-o", f"file://{site}"]) == 0
    assert capsys.readouterr().out.strip().endswith(f": {site / 'index.html'}")
    assert (site / "index.html").is_file() and not (tmp_path / "file:").exists()
