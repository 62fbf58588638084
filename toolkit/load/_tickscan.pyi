"""Types of the optional C accelerator (toolkit/load/_tickscan.c)."""

from collections.abc import Sequence

def scan(
    blobs: Sequence[bytes], /
) -> tuple[list[int], object, object, bool, tuple[object, object] | None]: ...
def scan_packed(
    data: bytes, ends: bytes | memoryview | object, /
) -> tuple[list[int], object, object, bool, tuple[object, object] | None]: ...
