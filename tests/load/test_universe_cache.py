"""The Parquet cache of loaded runs: used when fresh, never trusted when stale; alike
beside each run, in a cache folder and in object storage (moto's S3 server)."""

from __future__ import annotations

import itertools
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from conftest import BUCKET, S3, tick_v1, write_run

import toolkit.load._run_build as build_mod
from toolkit.errors import CacheWarning
from toolkit.load._cache import CACHE_FORMAT, FOLDER_NAME
from toolkit.load.universe import load_universe, load_universes

_PREFIXES = itertools.count()


@dataclass
class Place:
    """Where a test's cache lives, with a look at its entries as a user would take it
    (the files on disk, or the objects through boto3)."""

    kind: str
    cache: bool | str | Path
    runs: Path
    s3: S3 | None = None
    prefix: str = ""

    @property
    def options(self) -> dict[str, Any] | None:
        return {"endpoint_url": self.s3.endpoint} if self.s3 is not None else None

    def load(self, pattern: str | Path | None = None) -> Any:
        where = pattern if pattern is not None else self.runs / "*"
        return load_universes(where, cache=self.cache, storage_options=self.options)

    def entry(self, slug: str) -> str:
        """The entry of run ``slug``: a folder, or a key prefix ending in ``/``."""
        if self.kind == "beside":
            return str(self.runs / slug / FOLDER_NAME)
        if self.kind == "folder":
            (found,) = Path(str(self.cache)).glob(f"{slug}-*")
            return str(found)
        assert self.s3 is not None
        got = self.s3.client.list_objects_v2(Bucket=BUCKET, Prefix=f"{self.prefix}/{slug}-")
        (prefix,) = {o["Key"].rsplit("/", 1)[0] for o in got.get("Contents", [])}
        return prefix + "/"

    def files(self, slug: str) -> dict[str, bytes]:
        """The files of run ``slug``'s entry, by name."""
        entry = self.entry(slug)
        if self.s3 is None:
            return {p.name: p.read_bytes() for p in Path(entry).iterdir()}
        got = self.s3.client.list_objects_v2(Bucket=BUCKET, Prefix=entry)
        return {
            o["Key"][len(entry) :]: self.s3.client.get_object(Bucket=BUCKET, Key=o["Key"])[
                "Body"
            ].read()
            for o in got.get("Contents", [])
        }

    def write(self, slug: str, name: str, data: bytes) -> None:
        """Put a file into run ``slug``'s entry."""
        entry = self.entry(slug)
        if self.s3 is None:
            (Path(entry) / name).write_bytes(data)
        else:
            self.s3.client.put_object(Bucket=BUCKET, Key=entry + name, Body=data)

    def ticks_file(self, slug: str) -> str:
        (name,) = [n for n in self.files(slug) if n.startswith("ticks-")]
        return name


@pytest.fixture(params=["beside", "folder", "s3"])
def place(request: pytest.FixtureRequest, tmp_path: Path) -> Place:
    """The cache beside each run (``cache=True``), in a local folder, or under an S3 URL."""
    runs = tmp_path / "runs"
    if request.param == "beside":
        return Place("beside", True, runs)
    if request.param == "folder":
        return Place("folder", tmp_path / "cache", runs)
    s3: S3 = request.getfixturevalue("s3")
    prefix = f"cache-{next(_PREFIXES)}-{tmp_path.name}"
    return Place("s3", f"s3://{BUCKET}/{prefix}", runs, s3, prefix)


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """Records which runs were loaded from their files (not from the cache)."""
    seen: list[list[str]] = []
    real = build_mod._build

    def spy(listings, progress):  # type: ignore[no-untyped-def]
        seen.append([listing.slug for listing in listings])
        return real(listings, progress)

    monkeypatch.setattr(build_mod, "_build", spy)
    return seen


def fleet(tmp_path: Path) -> Path:
    for slug in ("a", "b"):
        write_run(tmp_path / slug, [tick_v1(n) for n in range(1, 6)], snapshots=[(10, 3, 4)])
    return tmp_path


def test_second_load_reads_only_the_cache(place: Place, builds: list[list[str]]) -> None:
    fleet(place.runs)
    cold = place.load()
    warm = place.load()
    assert builds == [["a", "b"]]
    assert warm.ticks.equals(cold.ticks)
    assert warm.checkpoints.equals(cold.checkpoints)
    assert warm.issues.equals(cold.issues)
    assert warm.names == cold.names and warm.warnings == cold.warnings
    assert warm.conserved == cold.conserved and warm.paths == cold.paths
    assert sorted(place.files("a")) == ["manifest.json", place.ticks_file("a")]


def test_changed_tick_file_invalidates_only_its_run(place: Place, builds: list[list[str]]) -> None:
    root = fleet(place.runs)
    place.load()
    tick = root / "b" / "tick_summaries" / "ticks" / "tick_3.json"
    tick.write_text(json.dumps(tick_v1(3, refused=True, refusal_reason="low_confidence")))
    again = place.load()
    assert builds[-1] == ["b"]
    assert again.run("b").ticks.filter(pl.col("tick") == 3)["status"][0] == "refused"


def test_same_size_rewrite_is_caught_by_mtime(place: Place, builds: list[list[str]]) -> None:
    root = fleet(place.runs)
    place.load()
    tick = root / "a" / "tick_summaries" / "ticks" / "tick_2.json"
    text = tick.read_text()
    changed = text.replace('"walk"', '"talk"')
    assert len(changed) == len(text)
    tick.write_text(changed)
    st = tick.stat()
    os.utime(tick, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    again = place.load()
    assert builds[-1] == ["a"]
    assert again.run("a").ticks.filter(pl.col("tick") == 2)["verb"][0] == "talk"


@pytest.mark.parametrize("change", ["added", "deleted", "truncated"])
def test_added_deleted_and_truncated_files_invalidate(
    place: Place, builds: list[list[str]], change: str
) -> None:
    root = fleet(place.runs)
    place.load()
    ticks = root / "a" / "tick_summaries" / "ticks"
    if change == "added":
        (ticks / "tick_6.json").write_text(json.dumps(tick_v1(6)))
        expected = 6
    elif change == "deleted":
        (ticks / "tick_5.json").unlink()
        expected = 4
    else:
        (ticks / "tick_5.json").write_text('{"schema_version": 1, "tick')
        expected = 4
    again = place.load()
    assert builds[-1] == ["a"]
    assert again.run("a").ticks.height == expected
    if change == "truncated":
        assert again.run("a").issues["reason"].str.contains("not valid JSON").all()


def test_corrupt_cache_file_is_rebuilt_not_fatal(place: Place, builds: list[list[str]]) -> None:
    fleet(place.runs)
    place.load()
    place.write("a", place.ticks_file("a"), b"PAR1 garbage")
    place.write("b", "manifest.json", b"{not json")
    again = place.load()
    assert builds[-1] == ["a", "b"]
    assert again.ticks.height == 10
    third = place.load()
    assert len(builds) == 2 and third.ticks.height == 10  # rebuilt entries are good again


def _manifest(place: Place, slug: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(place.files(slug)["manifest.json"])
    return loaded


@pytest.mark.parametrize(
    "damage",
    ["truncated parquet", "half a manifest", "another format", "rows do not match",
     "garbage manifest", "names a path outside", "warnings that are not text"],
)  # fmt: skip
def test_a_damaged_entry_is_rebuilt_never_trusted(
    place: Place, builds: list[list[str]], damage: str
) -> None:
    fleet(place.runs)
    cold = place.load()
    manifest = _manifest(place, "a")
    ticks = place.ticks_file("a")
    if damage == "truncated parquet":
        place.write("a", ticks, place.files("a")[ticks][:-100])
    elif damage == "half a manifest":
        whole = place.files("a")["manifest.json"]
        place.write("a", "manifest.json", whole[: len(whole) // 2])
    elif damage == "another format":
        place.write(
            "a", "manifest.json", json.dumps({**manifest, "format": CACHE_FORMAT - 1}).encode()
        )
    elif damage == "rows do not match":
        place.write("a", "manifest.json", json.dumps({**manifest, "rows": 4}).encode())
    elif damage == "garbage manifest":
        place.write("a", "manifest.json", b"\x00\xff[1, 2]")
    elif damage == "warnings that are not text":
        place.write(
            "a", "manifest.json", json.dumps({**manifest, "warnings": [{"x": 1}, 3]}).encode()
        )
    else:
        place.write(
            "a", "manifest.json", json.dumps({**manifest, "ticks": "../b/" + ticks}).encode()
        )
    again = place.load()
    assert builds[-1] == ["a"]
    assert again.ticks.equals(cold.ticks) and again.issues.equals(cold.issues)
    assert place.load().ticks.equals(cold.ticks) and len(builds) == 2  # good again


def test_a_run_renamed_or_copied_with_its_cache_is_read_from_its_own_files(
    tmp_path: Path, builds: list[list[str]]
) -> None:
    """``mv`` and ``cp -a`` carry a run's cache entry along with files whose names, sizes
    and mtimes are unchanged: the entry names its run, so it is rebuilt, not reused for
    the run that now holds it (which would score the old run's ticks, or none)."""
    import shutil

    runs = fleet(tmp_path / "runs")
    load_universes(runs / "*", cache=True)
    shutil.move(runs / "b", runs / "b-retry")
    shutil.copytree(runs / "a", runs / "a-copy")  # copy2: mtimes kept, as cp -a does
    warm = load_universes(runs / "*", cache=True)
    assert sorted(builds[-1]) == ["a-copy", "b-retry"]
    truth = load_universes(runs / "*")
    assert warm.slugs == truth.slugs == ["a", "a-copy", "b-retry"]
    assert warm.ticks.equals(truth.ticks) and warm.issues.equals(truth.issues)
    assert len(builds) == 3  # the load without a cache read every run
    assert load_universes(runs / "*", cache=True).ticks.equals(truth.ticks)
    assert len(builds) == 3  # the rebuilt entries are used from then on


def test_a_manifest_naming_another_entrys_file_never_deletes_it(
    place: Place, builds: list[list[str]]
) -> None:
    """A manifest whose ``ticks`` leads into another prefix is not trusted, and the file
    it names (another run's entry, or an object beside the cache) is never deleted."""
    root = fleet(place.runs)
    place.load()
    b_entry, b_ticks = place.entry("b"), place.ticks_file("b")
    place.write("b", "precious.parquet", b"PAR1 someone else's data")
    manifest = _manifest(place, "a")
    for escape in ("../" + Path(b_entry).name + "/" + b_ticks, "../../precious.parquet"):
        place.write("a", "manifest.json", json.dumps({**manifest, "ticks": escape}).encode())
        write_run(root / "a", [tick_v1(n) for n in range(1, 8)])
        assert place.load().run("a").ticks.height == 7
        assert builds[-1] == ["a"]
    assert place.files("b")[b_ticks][:4] == b"PAR1"
    assert place.files("b")["precious.parquet"] == b"PAR1 someone else's data"
    built = len(builds)
    assert place.load().ticks.height == 12 and len(builds) == built  # both fresh again


def test_only_the_file_the_old_manifest_named_is_deleted(place: Place) -> None:
    root = fleet(place.runs)
    place.load()
    first = place.ticks_file("a")
    place.write("a", "notes.parquet", b"not the cache's")
    place.write("a", "ticks-0123456789abcdef.parquet", b"an orphan the cache never named")
    write_run(root / "a", [tick_v1(n) for n in range(1, 8)])
    place.load()
    left = place.files("a")
    assert first not in left
    assert left["notes.parquet"] == b"not the cache's"
    assert "ticks-0123456789abcdef.parquet" in left


def test_cache_folder_elsewhere_leaves_runs_untouched(
    tmp_path: Path, builds: list[list[str]]
) -> None:
    root = write_run(tmp_path / "runs" / "a", [tick_v1(1)])
    store = tmp_path / "cache"
    load_universe(root, cache=store)
    load_universe(root, cache=store)
    assert len(builds) == 1
    assert not (root / FOLDER_NAME).exists()
    assert len(list(store.iterdir())) == 1


def test_no_cache_by_default(tmp_path: Path, builds: list[list[str]]) -> None:
    root = write_run(tmp_path / "a", [tick_v1(1)])
    load_universe(root)
    load_universe(root)
    assert len(builds) == 2 and not (root / FOLDER_NAME).exists()


def test_issues_are_cached_too(place: Place, builds: list[list[str]]) -> None:
    root = write_run(place.runs / "a", [tick_v1(1)])
    (root / "tick_summaries" / "ticks" / "tick_2.json").write_text("[]")
    first = load_universe(root, cache=place.cache, storage_options=place.options)
    second = load_universe(root, cache=place.cache, storage_options=place.options)
    assert len(builds) == 1
    assert second.issues.equals(first.issues) and second.issues.height == 1


def test_one_broken_file_in_a_fleet_is_isolated(tmp_path: Path) -> None:
    root = fleet(tmp_path / "runs")
    (root / "b" / "tick_summaries" / "ticks" / "tick_9.json").write_text('{"refused": "perhaps"}')
    u = load_universes(root / "*")
    assert u.ticks.group_by("slug").len().sort("slug").rows() == [("a", 5), ("b", 5)]
    assert u.run("b").issues.height == 1 and u.run("a").issues.height == 0


def test_a_run_whose_cache_cannot_be_written_warns_and_the_others_are_cached(
    tmp_path: Path, builds: list[list[str]]
) -> None:
    """Beside each run, one run's unwritable cache (here a file where its cache folder
    would be) costs one CacheWarning; the other runs are still cached, the answer whole."""
    root = fleet(tmp_path / "runs")
    (root / "a" / FOLDER_NAME).write_text("not a folder")
    with pytest.warns(CacheWarning, match=r"runs/a/\.toolkit_cache: cannot write the run cache"):
        first = load_universes(root / "*", cache=True)
    assert first.ticks.height == 10
    assert (root / "b" / FOLDER_NAME / "manifest.json").is_file()
    with pytest.warns(CacheWarning):
        again = load_universes(root / "*", cache=True)
    assert builds[-1] == ["a"] and again.ticks.equals(first.ticks)
    assert (root / "a" / FOLDER_NAME).read_text() == "not a folder"


def test_one_damaged_entry_in_a_cache_folder_keeps_no_other_run_from_its_cache(
    tmp_path: Path, builds: list[list[str]]
) -> None:
    """A folder cache whose entry for run a cannot be written (its manifest is a folder)
    still caches run b; the warning names the file that failed."""
    root = fleet(tmp_path / "runs")
    cache = tmp_path / "cache"
    load_universes(root / "*", cache=cache)
    (entry_a,) = cache.glob("a-*")
    (entry_a / "manifest.json").unlink()
    (entry_a / "manifest.json").mkdir()  # damaged: rebuilt, and cannot be replaced
    (root / "b" / "tick_summaries" / "ticks" / "tick_1.json").touch()  # b is stale too
    with pytest.warns(CacheWarning, match=r"cannot write the run cache: .*a-\w+/manifest\.json"):
        load_universes(root / "*", cache=cache)
    assert builds[-1] == ["a", "b"]
    with pytest.warns(CacheWarning):  # every load says so while the entry is damaged
        load_universes(root / "*", cache=cache)  # b from its fresh entry; a rebuilt again
    assert builds[-1] == ["a"]


def test_an_entry_over_the_size_limit_is_not_written_and_says_so_once(
    tmp_path: Path, builds: list[list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An entry the size limit would refuse to read back is not written (it would be
    rebuilt on every load): one warning names the run and the limit."""
    root = fleet(tmp_path / "runs")
    monkeypatch.setenv("TOOLKIT_MAX_FILE_BYTES", "2000")  # tick files fit, Parquet does not
    cache = tmp_path / "cache"
    with pytest.warns(CacheWarning, match=r"run a: its cache entry would be [\d,]+ bytes"):
        first = load_universes(root / "*", cache=cache)
    assert first.ticks.height == 10 and not list(cache.glob("*/manifest.json"))
