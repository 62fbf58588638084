"""Moved: comparing prompt iterations and the success check are in
:mod:`toolkit.rubrics.discussion` (``comparison``, ``success``).

This path stays for the modules that still import it; each name is the package's own,
imported on first use through :mod:`toolkit.rubrics.discussion`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolkit._lazy import attach

__all__ = [
    "BATCH_SCHEMA",
    "COMPARISON_SCHEMA",
    "SUCCESS_SCHEMA",
    "Comparison",
    "SuccessCheck",
    "compare",
    "success_check",
]

if TYPE_CHECKING:
    from toolkit.rubrics.discussion.comparison import COMPARISON_SCHEMA as COMPARISON_SCHEMA
    from toolkit.rubrics.discussion.comparison import Comparison as Comparison
    from toolkit.rubrics.discussion.comparison import compare as compare
    from toolkit.rubrics.discussion.success import BATCH_SCHEMA as BATCH_SCHEMA
    from toolkit.rubrics.discussion.success import SUCCESS_SCHEMA as SUCCESS_SCHEMA
    from toolkit.rubrics.discussion.success import SuccessCheck as SuccessCheck
    from toolkit.rubrics.discussion.success import success_check as success_check
else:
    __getattr__, __dir__ = attach(__name__, dict.fromkeys(__all__, "toolkit.rubrics.discussion"))
