"""Moved: the discussion rubric's data is :mod:`toolkit.rubrics.discussion.spec`.

This path stays for the modules that still import it; each name is the package's own,
imported on first use through :mod:`toolkit.rubrics.discussion`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolkit._lazy import attach

__all__ = [
    "DEFAULT_DISCUSSION_SPEC",
    "DEFAULT_ENGAGEMENT_SCALE",
    "DISCUSSION_SPEC_1_0_0",
    "METRIC_KEYS",
    "DiscussionSpec",
    "EngagementQuestion",
    "EngagementScale",
    "ScaleLevel",
    "load_discussion_spec",
    "load_engagement_scale",
]

if TYPE_CHECKING:
    from toolkit.rubrics.discussion.spec import DEFAULT_DISCUSSION_SPEC as DEFAULT_DISCUSSION_SPEC
    from toolkit.rubrics.discussion.spec import DEFAULT_ENGAGEMENT_SCALE as DEFAULT_ENGAGEMENT_SCALE
    from toolkit.rubrics.discussion.spec import DISCUSSION_SPEC_1_0_0 as DISCUSSION_SPEC_1_0_0
    from toolkit.rubrics.discussion.spec import METRIC_KEYS as METRIC_KEYS
    from toolkit.rubrics.discussion.spec import DiscussionSpec as DiscussionSpec
    from toolkit.rubrics.discussion.spec import EngagementQuestion as EngagementQuestion
    from toolkit.rubrics.discussion.spec import EngagementScale as EngagementScale
    from toolkit.rubrics.discussion.spec import ScaleLevel as ScaleLevel
    from toolkit.rubrics.discussion.spec import load_discussion_spec as load_discussion_spec
    from toolkit.rubrics.discussion.spec import load_engagement_scale as load_engagement_scale
else:
    __getattr__, __dir__ = attach(__name__, dict.fromkeys(__all__, "toolkit.rubrics.discussion"))
