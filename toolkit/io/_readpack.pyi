"""Types of the optional C reader (toolkit/io/_readpack.c)."""

def read_packed(
    paths: list[str], start: int, flags: int, want: int, budget: int, /
) -> tuple[bytes, bytes, int]: ...

def regular_names(folder: str, /) -> list[str] | None: ...
