"""The options ``toolkit compare`` and ``toolkit rescore`` share to load and score the runs
of each family (one definition, so a flag means the same in both)."""

from __future__ import annotations

import argparse


def add_run_arguments(p: argparse.ArgumentParser) -> None:
    """Simulation ``--window`` and ``--cache [DIR]``, discussion ``--ratings`` and persona
    ``--propositions`` and ``--personas``."""
    p.add_argument("--window", type=int, help="simulation: ticks scored per run")
    p.add_argument(
        "--cache",
        nargs="?",
        const=True,
        default=False,
        metavar="DIR",
        help="simulation: keep loaded runs as Parquet (as toolkit quality --cache)",
    )
    p.add_argument("--ratings", metavar="FILE", help="discussion: engagement ratings")
    p.add_argument("--propositions", metavar="DIR", help="persona: the proposition files")
    p.add_argument("--personas", metavar="FILE", help="persona: names and persona specs")
