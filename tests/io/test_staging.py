"""Objects copied out of object storage to be loaded land under the folder named for
them, at their path below the source's root, and a key cannot lead out of it."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.errors import InputError
from toolkit.io.staging import local_name, shown


def test_an_object_lands_at_its_path_below_the_root(tmp_path: Path) -> None:
    root = "s3://b/runs"
    assert local_name(root, "s3://b/runs/games/g.json", tmp_path) == tmp_path / "games" / "g.json"
    assert local_name(root + "/", "s3://b/runs/g.db", tmp_path) == tmp_path / "g.db"
    # A URL naming one object: the object itself, by its name.
    assert local_name("s3://b/runs/g.db", "s3://b/runs/g.db", tmp_path) == tmp_path / "g.db"


@pytest.mark.parametrize(
    "url", ["s3://b/runs/../etc/passwd", "s3://b/runs/a//b.json", "s3://b/other/g.json",
            "s3://b/runs/./g.json"],
)  # fmt: skip
def test_a_key_that_would_leave_the_folder_is_refused_by_name(tmp_path: Path, url: str) -> None:
    with pytest.raises(InputError, match=url.replace(".", r"\.")):
        local_name("s3://b/runs", url, tmp_path)


def test_messages_name_the_url_not_the_copy() -> None:
    copies = {"/tmp/x/0000": "s3://b/runs"}
    assert (
        shown("/tmp/x/0000/g.json: not valid JSON", copies) == "s3://b/runs/g.json: not valid JSON"
    )
