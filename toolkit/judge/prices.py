"""The judge price table: model -> US dollars per million input / output tokens.

The table is data (``prices.yaml`` next to this module); a user file of the same shape
overrides or adds entries. A model matches the entry with its exact name, else the
longest entry it starts with followed by ``-`` (dated snapshots such as
``claude-3-5-haiku-20241022`` use ``claude-3-5-haiku``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolkit.errors import InputError
from toolkit.io import edge
from toolkit.io.documents import check_document_header

PRICES_FORMAT = "toolkit-judge-prices"
PRICES_VERSION = 1
DEFAULT_PRICES_PATH = Path(__file__).with_name("prices.yaml")
#: The largest price file read (a price table is a few kilobytes).
MAX_PRICES_BYTES = 1_000_000


@dataclass(frozen=True)
class Price:
    """US dollars per million input and output tokens of one model."""

    input: float
    output: float

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        """The cost in US dollars of this many tokens."""
        return (input_tokens * self.input + output_tokens * self.output) / 1_000_000


@dataclass(frozen=True)
class PriceTable:
    """Prices by model name, with where they came from.

    Attributes:
        models: model name -> :class:`Price`.
        sources: the files read, in order (later files override earlier ones).
        as_of: when the built-in prices were taken from the vendors' lists.
    """

    models: dict[str, Price]
    sources: tuple[str, ...]
    as_of: str | None = None

    def price_for(self, model: str) -> Price | None:
        """The price of ``model`` (exact name, else the longest ``entry-`` prefix)."""
        if model in self.models:
            return self.models[model]
        prefixes = [name for name in self.models if model.startswith(name + "-")]
        return self.models[max(prefixes, key=len)] if prefixes else None


def _read(path: Path) -> dict[str, Any]:
    if path.is_file() and path.stat().st_size > MAX_PRICES_BYTES:
        raise InputError(path, f"price file larger than {MAX_PRICES_BYTES} bytes")
    data = check_document_header(  # read through the edge: regular file, UTF-8, YAML limits
        path, edge.read_yaml(path), what="judge price table", fmt=PRICES_FORMAT,
        version=PRICES_VERSION,
    )  # fmt: skip
    models = data.get("models")
    if not isinstance(models, dict):
        raise InputError(path, "models must be a mapping", field="models", value=models)
    return data


def _price(path: Path, name: Any, entry: Any) -> Price:
    if not isinstance(entry, dict) or set(entry) != {"input", "output"}:
        raise InputError(
            path,
            "a price needs exactly `input` and `output` (dollars per million tokens)",
            field=f"models.{name}",
            value=entry,
        )
    for side in ("input", "output"):
        value = entry[side]
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        if not ok or not math.isfinite(value) or value < 0:
            raise InputError(
                path,
                "a price is a finite number of dollars >= 0",
                field=f"models.{name}.{side}",
                value=value,
            )
    return Price(float(entry["input"]), float(entry["output"]))


def load_prices(*overrides: str | Path) -> PriceTable:
    """The built-in price table with the entries of ``overrides`` laid over it, in order.

    Raises:
        InputError: an unreadable file, a wrong format or version, a negative price.
    """
    models: dict[str, Price] = {}
    sources: list[str] = []
    as_of: str | None = None
    for i, source in enumerate([DEFAULT_PRICES_PATH, *overrides]):
        path = Path(source)
        data = _read(path)
        for name, entry in data["models"].items():
            models[str(name)] = _price(path, name, entry)
        sources.append(str(path))
        if i == 0:
            as_of = str(data.get("as_of")) if data.get("as_of") is not None else None
    return PriceTable(models, tuple(sources), as_of)
