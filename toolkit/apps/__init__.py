"""Notebook apps served as pages (``toolkit rate`` serves ``rater.ipynb`` with Voilà)."""

from pathlib import Path

#: The rating page served by ``toolkit rate``.
RATER_APP = Path(__file__).with_name("rater.ipynb")
