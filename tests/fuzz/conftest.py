"""Hypothesis profiles for the fuzz suite and the contract every hostile input must meet.

``TOOLKIT_FUZZ_PROFILE`` picks the profile: ``ci`` (default: a few examples per family,
the whole suite in well under a minute) or ``fuzz`` (``make fuzz``: many more).
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from toolkit.cli import main
from toolkit.errors import InputError

settings.register_profile(
    "ci",
    max_examples=12,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "fuzz",
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("TOOLKIT_FUZZ_PROFILE", "ci"))

SAMPLES = Path(__file__).resolve().parents[2] / "sample_runs"

# ---------------------------------------------------------------------------
# Mutations of one file
# ---------------------------------------------------------------------------

#: What a file can be replaced by, besides mutated bytes.
SPECIAL = ("fifo", "folder", "dangling", "loop", "outside")


def _deep(blob: bytes, levels: int) -> bytes:
    if blob.lstrip()[:1] in (b"{", b"["):
        return b'{"deep": ' + b"[" * levels + b"]" * levels + b"}"
    return b"deep: " + b"[" * levels + b"]" * levels + b"\n"


_BOMB = b"".join(
    [b'a: &a ["x","x","x","x","x","x","x","x","x"]\n']
    + [
        f"{chr(98 + i)}: &{chr(98 + i)} [{','.join(['*' + chr(97 + i)] * 9)}]\n".encode()
        for i in range(7)
    ]
)


@st.composite
def mutated(draw: st.DrawFn, blob: bytes) -> bytes | str:
    """Hostile bytes made from ``blob``, or the name of a special file (:data:`SPECIAL`)."""
    kind = draw(
        st.sampled_from(
            [
                "truncate",
                "flip",
                "insert",
                "number",
                "nan",
                "deep",
                "utf16",
                "latin1",
                "bomb",
                "surrogate",
                "special",
            ]
        )
    )
    n = max(len(blob), 1)
    if kind == "truncate":
        return blob[: draw(st.integers(0, n - 1))]
    if kind == "flip":
        at = draw(st.integers(0, n - 1))
        out = bytearray(blob or b"\x00")
        out[at] ^= draw(st.integers(1, 255))
        return bytes(out)
    if kind == "insert":
        at = draw(st.integers(0, n))
        return blob[:at] + draw(st.binary(min_size=1, max_size=16)) + blob[at:]
    if kind in ("number", "nan"):
        digits = [i for i, b in enumerate(blob) if 48 <= b <= 57]
        if not digits:
            return blob + b"9" * 30
        at = draw(st.sampled_from(digits))
        new = (
            draw(
                st.sampled_from(
                    [b"99999999999999999999999", b"-1", b"1e300", b"9223372036854775808"]
                )
            )
            if kind == "number"
            else draw(st.sampled_from([b"NaN", b"Infinity", b"-Infinity", b"nan", b".inf"]))
        )
        return blob[:at] + new + blob[at + 1 :]
    if kind == "deep":
        return _deep(blob, draw(st.sampled_from([150, 5_000, 200_000])))
    if kind == "utf16":
        return blob.decode("utf-8", errors="replace").encode("utf-16")
    if kind == "latin1":
        return blob.replace(b"e", b"\xe9", 3)
    if kind == "bomb":
        return _BOMB
    if kind == "surrogate":
        return blob.replace(b'"', b'"\\ud800', 1)
    return draw(st.sampled_from(SPECIAL))


def plant(target: Path, mutation: bytes | str, outside: Path) -> None:
    """Put ``mutation`` at ``target`` (bytes, or a special file named in :data:`SPECIAL`)."""
    if target.is_dir() and not target.is_symlink():
        shutil.rmtree(target)
    elif target.exists() or target.is_symlink():
        target.unlink()
    if isinstance(mutation, bytes):
        target.write_bytes(mutation)
    elif mutation == "fifo":
        os.mkfifo(target)
    elif mutation == "folder":
        target.mkdir()
    elif mutation == "dangling":
        target.symlink_to(target.parent / "no-such-file")
    elif mutation == "loop":
        target.symlink_to(target)
    else:
        target.symlink_to(outside / "canary.json")


# ---------------------------------------------------------------------------
# The contract
# ---------------------------------------------------------------------------


@dataclass
class Sandbox:
    """A temporary folder holding the input copy, an outside folder that must stay
    untouched, and a working directory that must stay empty."""

    root: Path
    inputs: Path
    outside: Path
    cwd: Path

    def snapshot(self) -> dict[str, bytes]:
        return {
            str(p.relative_to(self.root)): p.read_bytes()
            for folder in (self.outside, self.cwd)
            for p in sorted(folder.rglob("*"))
            if p.is_file() and not p.is_symlink()
        }


@contextlib.contextmanager
def sandbox(base: Path) -> Iterator[Sandbox]:
    """A fresh sandbox under ``base``; the process works in its ``cwd`` meanwhile."""
    root = Path(tempfile.mkdtemp(dir=base))  # one per example: Hypothesis reruns the body
    box = Sandbox(root, root / "in", root / "outside", root / "cwd")
    for folder in (box.inputs, box.outside, box.cwd):
        folder.mkdir()
    (box.outside / "canary.json").write_text('{"canary": true}\n')
    (box.outside / "keep.parquet").write_bytes(b"PAR1 not ours")
    before = os.getcwd()
    os.chdir(box.cwd)
    try:
        yield box
    finally:
        os.chdir(before)
        shutil.rmtree(root, ignore_errors=True)


def holds(box: Sandbox, call: Callable[[], object]) -> None:
    """Run ``call`` and check the contract: a result, or an ``InputError`` with a one-line
    message naming a path of the input; nothing written outside the input folder."""
    before = box.snapshot()
    try:
        call()
    except InputError as err:
        message = str(err)
        assert "\n" not in message, message
        assert str(box.inputs) in message, f"the message names no input file: {message}"
    assert box.snapshot() == before, "something was written outside the input folder"


def cli_holds(box: Sandbox, argv: list[str]) -> None:
    """The CLI on ``argv``: exit 0/1/2, and on 2 one stderr line naming an input path."""
    before = box.snapshot()
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    assert code in (0, 1, 2), code
    assert "Traceback" not in err.getvalue(), err.getvalue()
    if code == 2:
        last = err.getvalue().strip().splitlines()[-1]
        assert last.startswith(f"toolkit {argv[0]}: error: "), err.getvalue()
        assert str(box.inputs) in last, last
    assert box.snapshot() == before, "something was written outside the input folder"
