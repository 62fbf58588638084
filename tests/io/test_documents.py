"""toolkit.io.documents: a versioned document's header checked in one line, and a pydantic
error as one InputError (what the loaders and the judges share)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel, ValidationError

from toolkit.errors import InputError
from toolkit.io.documents import check_document_header, read_json, validation_problem


def _check(data: object) -> dict[str, object]:
    return check_document_header("t.json", data, what="thing", fmt="toolkit-thing", version=1)


def test_a_document_header_is_checked() -> None:
    good = {"format": "toolkit-thing", "version": 1, "x": 2}
    assert _check(good) is good
    with pytest.raises(InputError, match="not a thing") as caught:
        _check([1, 2])
    assert caught.value.field == "format"
    with pytest.raises(InputError, match="unsupported thing version") as caught:
        _check({"format": "toolkit-thing", "version": 2})
    assert caught.value.field == "version"


def test_a_validation_error_is_one_line(tmp_path: Path) -> None:
    class Point(BaseModel):
        x: int

    with pytest.raises(ValidationError) as caught:
        Point.model_validate({"x": "not a number"})
    problem = validation_problem(tmp_path / "p.json", caught.value)
    assert problem.field == "x" and problem.value == "not a number"
    assert "\n" not in str(problem)


def test_read_json_goes_through_the_edge(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_text('{"a": [1, 2]}', encoding="utf-8")
    assert read_json(path) == {"a": [1, 2]}
    path.write_text('{"a": ', encoding="utf-8")
    with pytest.raises(InputError):
        read_json(path)
