"""The engagement-rating session: an ipywidgets app that shows one transcript at a time
and saves each rater's 1-5 rating into the ratings store.

* :func:`rating_session` / :class:`RatingSession`: the session of one rater;
* :func:`rater_page`: a one-page app for a notebook: asks the rater's name, then shows
  their session (a team rates through ``toolkit rate``, the rating server);
* :func:`ratings_chart`: every rater's score per transcript, with the mean.

Roles are hidden while the rater reads (they should wonder who the Mafia are) and can be
revealed once this rater's rating of the transcript is saved, never while the store cannot
be read or refused the rating. Rater names match ignoring case (``ana`` is ``Ana``): the
spelling of the rater's first saved rating is kept (:meth:`RatingStore.rater_name`).
The scale, its labels and descriptions, the evaluation questions and the hint are rubric
data
(:class:`~toolkit.rubrics.discussion.EngagementScale`).
"""

from __future__ import annotations

import json
from html import escape
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets
import polars as pl

from toolkit.errors import ToolkitError
from toolkit.ratings.store import RatingStore
from toolkit.rubrics.discussion import DEFAULT_DISCUSSION_SPEC, EngagementScale
from toolkit.views.charts import threshold_lines
from toolkit.views.transcript import TRANSCRIPT_CSS, Games, roles_html, transcript_html

if TYPE_CHECKING:
    import altair as alt

__all__ = [
    "RatingSession",
    "rater_page",
    "rating_session",
    "ratings_chart",
    "roles_html",
    "transcript_html",
]

_OK, _WARN, _ERR = "#1a7f37", "#9a6700", "#cf222e"


def _status(text: str, colour: str) -> str:
    return f'<div style="color:{colour};font-weight:600;padding:4px 0">{escape(text)}</div>'


class RatingSession(widgets.VBox):  # type: ignore[misc]
    """The rating session of one rater over some transcripts (see the module docs).

    Drive it from Python as a front end would: set ``scale.value``, the questions'
    ``value`` and ``notes.value``, then ``save_button.click()``; ``next_button``,
    ``previous_button`` and ``skip_button`` move between transcripts.

    Attributes:
        game_ids: the transcripts, in order.
        index: the position of the transcript shown.
        scale: the 1-5 choice (None until chosen).
        questions: question key -> yes/no choice (True, False, or None unanswered).
        notes: free text.
        status: the last message to the rater (saved, or why not).
    """

    def __init__(
        self,
        transcripts: Games,
        store: RatingStore,
        rater: str,
        scale: EngagementScale = DEFAULT_DISCUSSION_SPEC.engagement_scale,
    ) -> None:
        if not isinstance(rater, str) or not rater.strip():
            raise ToolkitError("a rating session needs the rater's name")
        self.discussion = transcripts
        self.store = store
        self.rater = self._stored_name(store, rater)
        self.spec_scale = scale
        self.game_ids = transcripts.game_ids
        self.index = 0
        self._reading_widgets()
        question_rows = self._form_widgets(scale)
        self._button_widgets()
        self._connect()
        super().__init__(self._children(question_rows), layout=widgets.Layout(max_width="980px"))
        self._saved_form: tuple[Any, ...] | None = None
        self.go(self._resume_index())

    # -- widgets -----------------------------------------------------------

    def _reading_widgets(self) -> None:
        """The title, the progress, the transcript and the hidden roles."""
        self.title = widgets.HTML()
        self.progress = widgets.HTML()
        self.transcript = widgets.HTML(
            layout=widgets.Layout(
                max_height="460px", overflow="auto", border="1px solid #d0d7de", padding="8px"
            )
        )
        self.roles_button = widgets.Button(
            description="Reveal roles", icon="eye", disabled=True, tooltip="after saving"
        )
        self.roles = widgets.HTML()

    def _form_widgets(self, scale: EngagementScale) -> list[widgets.HBox]:
        """The 1-5 choice with its levels described, the hint, the yes/no questions (their
        rows returned) and the notes."""
        self.scale = widgets.ToggleButtons(
            options=[(f"{lv.score} {lv.label}", lv.score) for lv in scale.levels],
            value=None,
            tooltips=[lv.description for lv in scale.levels],
            description="Engagement",
            style={"button_width": "110px"},
        )
        self.scale_help = widgets.HTML(
            "<ul style='margin:2px 0;padding-left:18px'>"
            + "".join(
                f"<li><b>{lv.score} {escape(lv.label)}</b>: {escape(lv.description)}</li>"
                for lv in scale.levels
            )
            + "</ul>"
        )
        self.hint = widgets.HTML(layout=widgets.Layout(width="260px", padding="0 0 0 12px"))
        self.questions: dict[str, widgets.ToggleButtons] = {}
        rows = []
        for q in scale.questions:
            choice = widgets.ToggleButtons(
                options=[("Yes", True), ("No", False)],
                value=None,
                style={"button_width": "56px"},
            )
            self.questions[q.key] = choice
            rows.append(widgets.HBox([choice, widgets.HTML(escape(q.text))]))
        self.notes = widgets.Textarea(
            placeholder="Notes (optional): what made it worth watching, or not?",
            layout=widgets.Layout(width="100%", height="70px"),
        )
        return rows

    def _button_widgets(self) -> None:
        """Save, Previous, Next and Skip, and the status line under them."""
        self.save_button = widgets.Button(
            description="Save rating", button_style="success", icon="check", disabled=True
        )
        self.previous_button = widgets.Button(description="Previous", icon="arrow-left")
        self.next_button = widgets.Button(description="Next", icon="arrow-right")
        self.skip_button = widgets.Button(description="Skip", icon="forward")
        self.status = widgets.HTML()

    def _connect(self) -> None:
        """The buttons to their actions; a change on the form to :meth:`_changed`."""
        self.save_button.on_click(lambda _b: self.save())
        self.next_button.on_click(lambda _b: self.go(self.index + 1))
        self.previous_button.on_click(lambda _b: self.go(self.index - 1))
        self.skip_button.on_click(lambda _b: self.skip())
        self.roles_button.on_click(lambda _b: self.reveal_roles())
        self.scale.observe(self._changed, names="value")
        for choice in self.questions.values():
            choice.observe(self._changed, names="value")
        self.notes.observe(self._changed, names="value")

    def _children(self, question_rows: list[widgets.HBox]) -> list[Any]:
        """The session's widgets, top to bottom."""
        return [
            widgets.HBox([self.title, self.progress], layout={"justify_content": "space-between"}),
            self.transcript,
            widgets.HBox([self.roles_button]),
            self.roles,
            widgets.HBox([widgets.VBox([self.scale, self.scale_help]), self.hint]),
            widgets.HTML("<b>Evaluation questions</b>"),
            *question_rows,
            self.notes,
            widgets.HBox(
                [self.previous_button, self.save_button, self.skip_button, self.next_button]
            ),
            self.status,
        ]

    # -- state -------------------------------------------------------------

    @staticmethod
    def _stored_name(store: RatingStore, rater: str) -> str:
        try:
            return store.rater_name(rater)
        except ToolkitError:
            return rater.strip()  # the store's own error shows as soon as it is read

    def rated_ids(self) -> set[str]:
        """The transcripts this rater has a saved rating of.

        Raises:
            InputError: the ratings store cannot be read.
        """
        latest = self.store.latest(self.rater)
        return set(latest["transcript_id"].to_list()) & set(self.game_ids)

    def _rated_or_none(self) -> set[str] | None:
        try:
            return self.rated_ids()
        except ToolkitError:
            return None

    def _resume_index(self) -> int:
        rated = self._rated_or_none() or set()
        for i, gid in enumerate(self.game_ids):
            if gid not in rated:
                return i
        return 0

    @property
    def all_done(self) -> bool:
        """True when this rater has a saved rating of every transcript."""
        rated = self._rated_or_none()
        return rated is not None and len(rated) == len(self.game_ids)

    @property
    def game_id(self) -> str:
        """The transcript shown."""
        return self.game_ids[self.index]

    def progress_text(self) -> str:
        """``"7 of 20 rated"``: this rater's saved ratings of these transcripts
        (``"all 20 rated"`` when done)."""
        rated = self._rated_or_none()
        if rated is None:
            return "progress unknown (the ratings store cannot be read)"
        if len(rated) == len(self.game_ids):
            return f"all {len(self.game_ids)} rated"
        return f"{len(rated)} of {len(self.game_ids)} rated"

    def _done_text(self) -> str:
        return (
            f"All done: you have rated all {len(self.game_ids)} transcripts. Thank you! "
            "You can still go back and change a rating."
        )

    def answers(self) -> dict[str, bool | None]:
        """The yes/no answers on the form (None = unanswered)."""
        return {key: choice.value for key, choice in self.questions.items()}

    def _form(self) -> tuple[Any, ...]:
        return (self.scale.value, tuple(sorted(self.answers().items())), self.notes.value)

    def _update_hint(self) -> None:
        yes = sum(1 for v in self.answers().values() if v is True)
        s = self.spec_scale
        total = len(self.questions)
        suggests = yes >= s.hint_min_yes
        note = (
            f"that suggests {s.hint_min_score} or more"
            if suggests
            else f"{s.hint_min_yes}+ yes would suggest {s.hint_min_score} or more"
        )
        self.hint.value = (
            '<div style="background:#f6f8fa;border-left:3px solid #8c959f;padding:6px 8px">'
            f"<b>Hint</b> (not a rule): {escape(s.hint)}<br>"
            f"You answered yes to <b>{yes} of {total}</b>: {escape(note)}.</div>"
        )

    def _changed(self, _change: Any = None) -> None:
        self.save_button.disabled = self.scale.value is None
        self._update_hint()
        if self._saved_form is not None and self._form() != self._saved_form:
            self.status.value = _status(
                "Changed since it was saved: press Save rating to keep the change.", _WARN
            )

    # -- navigation --------------------------------------------------------

    def go(self, index: int) -> None:
        """Show transcript ``index`` (clamped), with this rater's saved rating if any."""
        self.index = max(0, min(index, len(self.game_ids) - 1))
        gid = self.game_id
        game = self.discussion.game(gid)
        self.title.value = (
            f"<h3 style='margin:4px 0'>Transcript {self.index + 1} of {len(self.game_ids)}: "
            f"{escape(gid)}</h3>"
        )
        self.transcript.value = f"<style>{TRANSCRIPT_CSS}</style>{transcript_html(game)}"
        # Start from an empty form with the roles hidden; only a rating read back from the
        # store fills it in and allows the roles.
        self.roles.value = ""
        self.roles_button.disabled = True
        self._saved_form = None
        self.scale.value = None
        for choice in self.questions.values():
            choice.value = None
        self.notes.value = ""
        self.previous_button.disabled = self.index == 0
        self.next_button.disabled = self.index >= len(self.game_ids) - 1
        self.progress.value = self._progress_html()
        try:
            latest = self.store.latest(self.rater).filter(pl.col("transcript_id") == gid)
        except ToolkitError as exc:
            self._changed()
            self.status.value = _status(f"Cannot read the ratings store: {exc}", _ERR)
            return
        if latest.height:
            row = latest.row(0, named=True)
            saved = json.loads(row["answers"])
            self.scale.value = row["score"]
            for key, choice in self.questions.items():
                choice.value = saved.get(key)
            self.notes.value = row["notes"]
            self._saved_form = self._form()
            self.roles_button.disabled = False
            when = row["created_at"].strftime("%Y-%m-%d %H:%M UTC")
            self.status.value = _status(
                f"✓ Saved: {self._level_text(row['score'])} (by {self.rater}, {when}). "
                "You can change it and save again.",
                _OK,
            )
            if self.all_done:
                self.status.value += _status(self._done_text(), _OK)
        else:
            self.status.value = _status("Not rated yet.", "#57606a")
        self._changed()

    def skip(self) -> None:
        """Leave this transcript unrated and go to the next one this rater has not rated
        (wrapping around); stays when there is none."""
        rated = self._rated_or_none() or set()
        n = len(self.game_ids)
        for step in range(1, n):
            i = (self.index + step) % n
            if self.game_ids[i] not in rated:
                self.go(i)
                return
        self.status.value = _status("Every other transcript is already rated.", _WARN)

    def _level_text(self, score: int) -> str:
        return f"{score} {self.spec_scale.level(score).label}"

    def _progress_html(self) -> str:
        text = escape(self.progress_text())
        mark = "✓ " if self.all_done else ""
        return f"<div style='font-size:1.1em;padding-top:6px'><b>{mark}{text}</b></div>"

    # -- saving ------------------------------------------------------------

    def save(self) -> int | None:
        """Save the form as this rater's rating of the transcript shown.

        Returns:
            The event id, or None when nothing was saved (no score chosen, or the store
            refused; the status says why).
        """
        if self.scale.value is None:
            self.status.value = _status("Choose a score from 1 to 5 before saving.", _ERR)
            return None
        try:
            event_id = self.store.submit(
                self.rater,
                self.game_id,
                int(self.scale.value),
                self.answers(),
                self.notes.value,
                instrument=self.spec_scale.version,
            )
        except ToolkitError as exc:
            self._saved_form = None  # what is on the form is not what the store holds
            self.roles.value = ""
            self.roles_button.disabled = True
            self.status.value = _status(f"Not saved: {exc}", _ERR)
            return None
        self._saved_form = self._form()
        self.roles_button.disabled = False
        self.progress.value = self._progress_html()
        self.status.value = _status(
            f"✓ Saved: {self._level_text(int(self.scale.value))} for {self.game_id} "
            f"(rating #{event_id}). {self.progress_text()}.",
            _OK,
        )
        if self.all_done:
            self.status.value += _status(self._done_text(), _OK)
        return event_id

    def __repr__(self) -> str:
        return (
            f"RatingSession(rater={self.rater!r}, {self.progress_text()}, showing {self.game_id!r})"
        )

    def reveal_roles(self) -> None:
        """Show who was Mafia (only once this rater's rating is saved)."""
        if self.roles_button.disabled:
            return
        self.roles.value = roles_html(self.discussion.game(self.game_id))


def rating_session(
    transcripts: Games,
    *,
    store: RatingStore,
    rater: str,
    scale: EngagementScale = DEFAULT_DISCUSSION_SPEC.engagement_scale,
) -> RatingSession:
    """A rating session of ``rater`` over ``transcripts``, saving into ``store``.

    Args:
        transcripts: the games to rate (see :func:`toolkit.load_discussion`).
        store: the ratings store (see :func:`toolkit.open_rating_store`).
        rater: the rater's name; the session resumes at their first unrated transcript.
        scale: the scale, questions and hint (the discussion rubric's by default).

    Returns:
        A :class:`RatingSession` (an ipywidgets ``VBox``) to display.
    """
    return RatingSession(transcripts, store, rater, scale)


def rater_page(
    transcripts: Games,
    store: RatingStore,
    rater: str | None = None,
    scale: EngagementScale = DEFAULT_DISCUSSION_SPEC.engagement_scale,
) -> widgets.VBox:
    """A rating page for a notebook: asks the rater's name (unless given), then shows
    their :class:`RatingSession`."""
    page = widgets.VBox()
    intro = widgets.HTML(
        "<h2 style='margin:4px 0'>Engagement rating</h2>"
        f"<p>{len(transcripts.game_ids)} transcript(s) of LLM Mafia games. Read each one and "
        "rate how worth watching it is, from 1 to 5. Your ratings are saved as you go; come "
        "back with the same name (capitals do not matter) to carry on where you left off.</p>"
    )
    if rater:
        page.children = [intro, RatingSession(transcripts, store, rater, scale)]
        return page
    name = widgets.Text(description="Your name", placeholder="e.g. ana")
    start = widgets.Button(description="Start rating", button_style="primary")
    message = widgets.HTML()

    def begin(_b: Any = None) -> None:
        if isinstance(page.children[-1], RatingSession):
            return  # already started (Enter, then a click on Start)
        if not name.value.strip():
            message.value = _status("Type your name first.", _ERR)
            return
        page.children = [intro, RatingSession(transcripts, store, name.value.strip(), scale)]

    start.on_click(begin)
    name.continuous_update = False  # Enter in the box (or leaving it) proceeds, as Start does
    name.observe(lambda change: begin() if change["new"].strip() else None, names="value")
    page.children = [intro, widgets.HBox([name, start]), message]
    return page


def ratings_chart(
    ratings: pl.DataFrame, width: int = 520, pass_mark: float | None = None
) -> alt.LayerChart:
    """Each rater's score per transcript (a dot per rater) and the transcript's mean (a tick),
    with the engagement pass mark as a dashed line.

    Raters who gave a transcript the same score do not hide one another: each rater has
    its own offset within the transcript's row (and its colour), and the tooltip of a dot
    names how many raters gave that score.

    Args:
        ratings: the ratings that count, (game_id, rater, score) or the store's ``latest()``
            frame (transcript_id, rater, score, ...).
        width: chart width in pixels.
        pass_mark: the engagement a game needs (default: the discussion rubric's
            engagement threshold, 3.0).
    """
    import altair as alt  # altair (seconds, jsonschema): only when a chart is drawn

    if pass_mark is None:
        pass_mark = DEFAULT_DISCUSSION_SPEC.metrics["engagement"].threshold
    tid = "transcript_id" if "transcript_id" in ratings.columns else "game_id"
    data = (
        ratings.select(pl.col(tid).alias("transcript"), "rater", pl.col("score").cast(pl.Float64))
        .sort("transcript", "rater")
        .with_columns(same=pl.len().over("transcript", "score"))
    )
    y = alt.Y("transcript:N", title=None, sort="ascending")
    x = alt.X(
        "score:Q",
        scale=alt.Scale(domain=[1, 5]),
        axis=alt.Axis(tickMinStep=1),
        title="engagement rating (1-5)",
    )
    dots = (
        alt.Chart(data)
        .mark_circle(size=90, opacity=0.85)
        .encode(
            x=x,
            y=y,
            yOffset=alt.YOffset("rater:N"),
            color=alt.Color("rater:N"),
            tooltip=[
                "transcript",
                "rater",
                "score",
                alt.Tooltip("same:Q", title="raters with this score"),
            ],
        )
    )
    means = (
        alt.Chart(data)
        .mark_tick(color="black", thickness=3, size=22)
        .encode(
            x=alt.X("mean(score):Q", title="engagement rating (1-5)"),
            y=y,
            tooltip=[alt.Tooltip("mean(score):Q", format=".2f", title="mean rating")],
        )
    )
    mark = pl.DataFrame(
        {"value": [pass_mark], "status": ["PASS"], "label": [f"pass mark {pass_mark:.1f}"]}
    )
    return alt.LayerChart(layer=[dots, means, *threshold_lines(mark, axis="x")]).properties(
        width=width,
        height=alt.Step(11),
        title="Engagement ratings per transcript (dot: a rater; tick: mean)",
    )
