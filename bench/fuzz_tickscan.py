"""A direct fuzz of the C accelerator (``toolkit.load._tickscan.scan`` and ``scan_packed``,
issue 38).

Usage (under AddressSanitizer and UBSan, as recorded in docs/performance.md):
    CFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined -O1 -g" \\
        LDFLAGS="-fsanitize=address,undefined" python setup.py build_ext --inplace --force
    LD_PRELOAD=$(gcc -print-file-name=libasan.so) ASAN_OPTIONS=detect_leaks=0 \\
        PYTHONMALLOC=malloc python bench/fuzz_tickscan.py --seed 1 --seconds 90
    python setup.py build_ext --inplace --force   # the release build again

The sample tick files are mutated at random (truncations, bytes replaced, inserted or cut,
splices of other files, a repeated key, odd numbers and escapes, deep nesting) and fed in
batches of 1-64; each batch's Arrow array is handed to Polars and its height checked
against the files accepted. Correctness against the pure path is the differential tests'
(tests/load/test_accel.py); this looks for crashes and memory errors, and also holds the
claims the C call found unsupported to normalise's over the same rows, and a batch it
vouches for (``checked``) to the column-wise check. Claims and changes are also drawn
afresh (parts among a few texts, numbers and nulls that often match).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import polars as pl

from toolkit.io import edge
from toolkit.load import _ticks
from toolkit.load._tick_normalise import unsupported_claims
from toolkit.load._tick_screen import arrow_frame, arrow_text

SAMPLES = Path(__file__).resolve().parent.parent / "sample_runs"
ODD = [
    b"-0", b"1e400", b"9" * 40, b"1.0", b"00", b"\\u0041", b"\xed\xa0\x80", b"\xff", b"\x00",
    b"[" * 40, b"{", b"}", b'"', b"null", b"true", b'"a": 1, "a": 2, ',
]  # fmt: skip


PARTS: list[object] = ["a", "b", "null", "1", 1, -1, None, "x y"]


def redrawn(rng: random.Random, blob: bytes, kind: int) -> bytes:
    """``blob`` with its claims (kind 7) or its changes drawn afresh: 0-4 lists of 0-5
    parts among a few that often match; unchanged when it is not a JSON tick object."""
    try:
        tick = json.loads(blob)
        sizes = [rng.randint(0, 5) for _ in range(rng.randint(0, 4))]
        drawn = [[rng.choice(PARTS) for _ in range(size)] for size in sizes]
        if kind == 7:
            tick["observation"]["claimed_changes"] = drawn
        else:
            tick["mutations"]["list"] = drawn
    except (ValueError, TypeError, KeyError):
        return blob
    return json.dumps(tick, indent=rng.choice([None, 2])).encode()


def mutate(rng: random.Random, blob: bytes, base: list[bytes]) -> bytes:
    """One to three random edits of ``blob``."""
    for _ in range(rng.randint(1, 3)):
        kind, at = rng.randrange(9), rng.randrange(len(blob) + 1)
        if kind >= 7:
            blob = redrawn(rng, blob, kind)
            continue
        if kind == 0:
            blob = blob[:at]
        elif kind == 1:
            blob = blob[:at] + bytes([rng.randrange(256)]) + blob[at + 1 :]
        elif kind == 2:
            blob = blob[:at] + rng.choice(ODD) + blob[at:]
        elif kind == 3:
            other = rng.choice(base)
            start = rng.randrange(len(other))
            blob = blob[:at] + other[start : start + rng.randint(1, 200)] + blob[at:]
        elif kind == 4:
            blob = blob.replace(b'"verb"', b'"verb": null, "verb"', 1)
        elif kind == 5:
            blob = blob[:at] + blob[at + rng.randint(1, 20) :]
        else:
            deep = b"[" * rng.randint(1, 60) + b"]" * rng.randint(1, 60)
            blob = blob.replace(b'"params": {}', b'"params": ' + deep, 1)
    return blob


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--seconds", type=float, default=60.0)
    args = p.parse_args(argv)
    scan = _ticks._accel_scan
    packed_scan = _ticks._accel_scan_packed  # scan_packed: half the batches also packed
    if scan is None:
        print("the accelerator is not built (python setup.py build_ext --inplace)")
        return 1
    rng = random.Random(args.seed)
    base = [path.read_bytes() for path in sorted(SAMPLES.glob("**/tick_summaries/ticks/*.json"))]
    files = accepted = 0
    end = time.monotonic() + args.seconds
    while time.monotonic() < end:
        batch = [
            mutate(rng, rng.choice(base), base) if rng.random() < 0.8 else rng.choice(base)
            for _ in range(rng.randint(1, 64))
        ]
        kept, schema, array, checked, claims = scan(batch)
        frame = arrow_frame(schema, array)  # (an Arrow array is imported once: moved)
        if packed_scan is not None and rng.random() < 0.5:  # the same files in one buffer
            packed = edge.pack(batch)
            again = packed_scan(packed.data, packed.ends)
            assert again[0] == kept and again[3] == checked
            assert arrow_frame(again[1], again[2]).equals(frame)
        assert frame.height == len(kept)
        if claims is not None:
            found = arrow_text("unsupported_claims", *claims)
            assert found.equals(unsupported_claims(frame).alias("unsupported_claims"))
        if checked and kept:
            names = pl.Series([f"tick_{i}.json" for i in kept])
            assert not _ticks._problems(frame, names).any()
        files += len(batch)
        accepted += len(kept)
    print(f"seed {args.seed}: {files} files in {args.seconds:.0f} s, {accepted} accepted")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
