"""Types of the optional C accelerator (toolkit/load/_tickscan.c)."""

from collections.abc import Sequence
from typing import Any

def scan(blobs: Sequence[bytes], /) -> tuple[list[int], list[list[Any]]]: ...
