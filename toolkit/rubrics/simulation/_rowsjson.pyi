"""Types of the optional C writer of JSON lines (toolkit/rubrics/simulation/_rowsjson.c)."""

from typing import Any

class Unsupported(ValueError): ...

def rows(stream: Any, raw: frozenset[str], /) -> tuple[bytes, bytearray]: ...
