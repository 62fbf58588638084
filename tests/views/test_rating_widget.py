"""The rating session widget, driven from Python as a front end would drive it: values set,
buttons clicked, observers fired."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolkit.errors import InputError
from toolkit.load.discussion import Discussion, load_discussion
from toolkit.ratings.store import RatingStore
from toolkit.views.rating import RatingSession, rater_page, rating_session

# The sample folder's games, in load order (file names sorted).
GAMES = ["game-over-budget", "game-pass", "game-role-repetition"]


@pytest.fixture
def games(sample_runs: Path) -> Discussion:
    return load_discussion(sample_runs / "discussions")


@pytest.fixture
def store(tmp_path: Path) -> RatingStore:
    return RatingStore(tmp_path / "ratings.db")


def _rate(app: RatingSession, score: int, yes: int = 0, notes: str = "") -> None:
    app.scale.value = score
    for i, choice in enumerate(app.questions.values()):
        choice.value = i < yes
    app.notes.value = notes
    app.save_button.click()


def test_a_new_session_starts_at_the_first_transcript_with_nothing_chosen(
    games: Discussion, store: RatingStore
) -> None:
    app = rating_session(games, store=store, rater="ana")
    assert app.game_ids == GAMES
    assert app.game_id == "game-over-budget"
    assert app.progress_text() == "0 of 3 rated"
    assert "0 of 3 rated" in app.progress.value
    assert app.scale.value is None
    assert all(q.value is None for q in app.questions.values())
    assert app.save_button.disabled
    assert app.previous_button.disabled and not app.next_button.disabled


def test_the_transcript_is_readable_and_hides_the_roles(
    games: Discussion, store: RatingStore
) -> None:
    app = rating_session(games, store=store, rater="ana")
    app.go(1)  # game-pass: Wren is the Mafia
    html = app.transcript.value
    assert "Round 1" in html and "Round 2" in html
    assert '<span class="tk-rate-who">Wren</span>' in html
    assert "↪ replying to" in html
    assert "MAFIA" not in html and "VILLAGER" not in html
    assert app.roles.value == ""
    assert app.roles_button.disabled
    app.roles_button.click()  # disabled: a click from code changes nothing
    app.reveal_roles()
    assert app.roles.value == ""


def test_the_scale_shows_the_rubrics_labels_and_descriptions(
    games: Discussion, store: RatingStore
) -> None:
    app = rating_session(games, store=store, rater="ana")
    assert [label for label, _ in app.scale.options] == [
        "1 Boring",
        "2 Somewhat Interesting",
        "3 Acceptable",
        "4 Engaging",
        "5 Fascinating",
    ]
    assert "<b>1 Boring</b>: I would stop watching" in app.scale_help.value
    assert app.scale.tooltips[4].startswith("I could not look away")
    assert list(app.questions) == [
        "watch_three_minutes",
        "curious_who_mafia",
        "agent_stood_out",
        "flowed_naturally",
        "watch_another",
    ]


def test_a_rating_cannot_be_saved_without_a_score(games: Discussion, store: RatingStore) -> None:
    app = rating_session(games, store=store, rater="ana")
    app.questions["curious_who_mafia"].value = True
    app.notes.value = "forgot the score"
    assert app.save_button.disabled
    assert app.save() is None
    assert "Choose a score from 1 to 5 before saving." in app.status.value
    assert store.events().height == 0
    app.scale.value = 3
    assert not app.save_button.disabled


def test_saving_stores_score_answers_notes_and_says_so(
    games: Discussion, store: RatingStore
) -> None:
    app = rating_session(games, store=store, rater="ana")
    app.scale.value = 4
    app.questions["curious_who_mafia"].value = True
    app.questions["agent_stood_out"].value = False
    app.notes.value = "tense second round"
    app.save_button.click()
    events = store.events()
    assert events.height == 1
    row = events.row(0, named=True)
    assert (row["rater"], row["transcript_id"], row["score"], row["notes"]) == (
        "ana",
        "game-over-budget",
        4,
        "tense second round",
    )
    assert json.loads(row["answers"]) == {"agent_stood_out": False, "curious_who_mafia": True}
    assert row["instrument"] == "2L-1.0.0"  # the instrument the rater saw, stamped
    assert "✓ Saved: 4 Engaging for game-over-budget (rating #1). 1 of 3 rated." in (
        app.status.value
    )
    assert "1 of 3 rated" in app.progress.value
    assert not app.roles_button.disabled
    app.roles_button.click()
    assert "<b>MAFIA</b>" in app.roles.value


def test_the_hint_counts_yes_answers_and_never_sets_the_score(
    games: Discussion, store: RatingStore
) -> None:
    app = rating_session(games, store=store, rater="ana")
    assert "4 or more yes answers suggest a score of 3 or more." in app.hint.value
    for key in ("curious_who_mafia", "agent_stood_out", "flowed_naturally"):
        app.questions[key].value = True
    assert "yes to <b>3 of 5</b>" in app.hint.value
    assert "4+ yes would suggest 3 or more" in app.hint.value
    app.questions["watch_another"].value = True
    assert "yes to <b>4 of 5</b>: that suggests 3 or more" in app.hint.value
    assert app.scale.value is None


def test_next_previous_and_skip_move_between_transcripts(
    games: Discussion, store: RatingStore
) -> None:
    app = rating_session(games, store=store, rater="ana")
    app.next_button.click()
    assert app.game_id == "game-pass"
    app.next_button.click()
    assert app.game_id == "game-role-repetition"
    assert app.next_button.disabled
    app.previous_button.click()
    assert app.game_id == "game-pass"
    _rate(app, 5)  # game-pass rated
    app.previous_button.click()
    assert app.game_id == "game-over-budget"
    app.skip_button.click()  # the next unrated one, past the rated game-pass
    assert app.game_id == "game-role-repetition"
    assert app.progress_text() == "1 of 3 rated"
    assert store.events().height == 1  # skipping saves nothing


def test_a_session_resumes_where_this_rater_left_off(games: Discussion, store: RatingStore) -> None:
    first = rating_session(games, store=store, rater="ana")
    _rate(first, 2)
    first.next_button.click()
    _rate(first, 4)
    again = rating_session(games, store=store, rater="ana")
    assert again.game_id == "game-role-repetition"
    assert again.progress_text() == "2 of 3 rated"
    other = rating_session(games, store=store, rater="ben")
    assert other.game_id == "game-over-budget"
    assert other.progress_text() == "0 of 3 rated"


def test_a_rated_transcript_shows_the_saved_rating_and_a_change_is_flagged(
    games: Discussion, store: RatingStore
) -> None:
    app = rating_session(games, store=store, rater="ana")
    _rate(app, 2, yes=1, notes="slow")
    app.next_button.click()
    app.previous_button.click()
    assert app.scale.value == 2
    assert app.questions["watch_three_minutes"].value is True
    assert app.questions["curious_who_mafia"].value is False
    assert app.notes.value == "slow"
    assert "✓ Saved: 2 Somewhat Interesting (by ana," in app.status.value
    assert not app.roles_button.disabled
    app.scale.value = 3
    assert "Changed since it was saved" in app.status.value
    app.save_button.click()
    assert store.events().height == 2  # history kept
    assert store.ratings().rows() == [("game-over-budget", "ana", 3.0)]


def test_a_store_refusal_is_shown_and_nothing_claims_to_be_saved(
    games: Discussion, store: RatingStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = rating_session(games, store=store, rater="ana")

    def refuse(*_a: object, **_k: object) -> int:
        raise InputError(str(store.path), "ratings store error (database is locked)")

    monkeypatch.setattr(store, "submit", refuse)
    app.scale.value = 4
    app.save_button.click()
    assert "Not saved:" in app.status.value and "database is locked" in app.status.value
    assert "✓" not in app.status.value
    assert app.roles_button.disabled


def test_a_rater_needs_a_name(games: Discussion, store: RatingStore) -> None:
    with pytest.raises(Exception, match="rater's name"):
        rating_session(games, store=store, rater="  ")


def test_the_rater_page_asks_the_name_then_shows_that_raters_session(
    games: Discussion, store: RatingStore
) -> None:
    store.save_rating("ben", "game-over-budget", 3)
    page = rater_page(games, store)
    name = page.children[1].children[0]
    start = page.children[1].children[1]
    start.click()
    assert "Type your name first." in page.children[2].value
    name.value = "ben"
    start.click()
    session = page.children[1]
    assert isinstance(session, RatingSession)
    assert session.rater == "ben"
    assert session.game_id == "game-pass"  # resumed after ben's first rating
    given = rater_page(games, store, rater="cat")
    assert isinstance(given.children[1], RatingSession)


def test_the_ratings_chart_puts_a_dot_per_rater_and_a_mean_tick(store: RatingStore) -> None:
    from toolkit.views.rating import ratings_chart

    store.save_rating("ana", "g1", 2)
    store.save_rating("ben", "g1", 4)
    spec = ratings_chart(store.latest()).to_dict()
    dots, means = spec["layer"][:2]
    assert dots["mark"]["type"] == "circle"
    assert dots["encoding"]["color"]["field"] == "rater"
    assert means["mark"]["type"] == "tick"
    assert means["encoding"]["x"]["aggregate"] == "mean"
    rows = spec["datasets"][dots["data"]["name"]]
    assert sorted((r["rater"], r["score"]) for r in rows) == [("ana", 2.0), ("ben", 4.0)]


def test_the_ratings_chart_marks_the_pass_mark_and_keeps_equal_ratings_apart(
    store: RatingStore,
) -> None:
    import vl_convert

    from toolkit.views.rating import ratings_chart

    for rater in ("ana", "ben", "cat"):
        store.save_rating(rater, "g1", 3)  # three equal ratings: one dot over another before
    spec = ratings_chart(store.latest()).to_dict()
    dots, means, rule, label = spec["layer"]
    assert dots["encoding"]["yOffset"]["field"] == "rater"  # each rater its own offset
    rows = spec["datasets"][dots["data"]["name"]]
    assert {r["same"] for r in rows} == {3}  # the tooltip says three raters gave it
    assert rule["mark"]["type"] == "rule" and rule["encoding"]["x"]["field"] == "value"
    assert spec["datasets"][rule["data"]["name"]] == [
        {"value": 3.0, "status": "PASS", "label": "pass mark 3.0"}
    ]
    assert label["mark"]["type"] == "text"
    # one human axis title, not "score, Mean of score"
    assert dots["encoding"]["x"]["title"] == means["encoding"]["x"]["title"]
    assert dots["encoding"]["x"]["title"] == "engagement rating (1-5)"
    other = ratings_chart(store.latest(), pass_mark=3.5).to_dict()
    assert other["datasets"][other["layer"][2]["data"]["name"]][0]["value"] == 3.5
    assert vl_convert.vegalite_to_svg(spec).startswith("<svg")


def test_the_session_repr_is_one_short_line(games: Discussion, store: RatingStore) -> None:
    app = rating_session(games, store=store, rater="ana")
    assert repr(app) == "RatingSession(rater='ana', 0 of 3 rated, showing 'game-over-budget')"


def test_run_all_order_a_deleted_store_never_reveals_roles_or_keeps_a_score(
    games: Discussion, tmp_path: Path
) -> None:
    """engagement_rating.ipynb in Run-All order: the session is shown, driven (a rating
    saved), then its store disappears; the rater then clicks Next, Save, Reveal roles."""
    folder = tmp_path / "temp-store"
    store = RatingStore(folder / "ratings.db")
    app = rating_session(games, store=store, rater="you")
    _rate(app, 4, yes=2)
    assert not app.roles_button.disabled  # saved: the roles may be revealed
    for leftover in folder.iterdir():
        leftover.unlink()
    folder.rmdir()

    app.next_button.click()
    assert app.game_id == "game-pass"
    assert app.scale.value is None  # the previous transcript's score is not carried over
    assert all(q.value is None for q in app.questions.values())
    assert app.roles_button.disabled
    assert "Cannot read the ratings store" in app.status.value
    app.scale.value = 3
    app.save_button.click()
    assert "Not saved:" in app.status.value
    assert app.roles_button.disabled
    app.roles_button.click()
    app.reveal_roles()
    assert app.roles.value == ""
    app.previous_button.click()  # the rated one cannot be read back either
    assert app.roles_button.disabled and app.scale.value is None


def test_a_refused_save_after_a_saved_one_hides_the_roles_again(
    games: Discussion, store: RatingStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = rating_session(games, store=store, rater="ana")
    _rate(app, 2)
    app.roles_button.click()
    assert "<b>MAFIA</b>" in app.roles.value

    def refuse(*_a: object, **_k: object) -> int:
        raise InputError(str(store.path), "ratings store error (disk I/O error)")

    monkeypatch.setattr(store, "submit", refuse)
    app.scale.value = 5
    app.save_button.click()
    assert "Not saved:" in app.status.value
    assert app.roles_button.disabled and app.roles.value == ""


def test_rater_names_match_ignoring_case_and_keep_the_first_spelling(
    games: Discussion, store: RatingStore
) -> None:
    first = rating_session(games, store=store, rater="Ana")
    _rate(first, 3)
    again = rating_session(games, store=store, rater="  ana ")
    assert again.rater == "Ana"
    assert again.progress_text() == "1 of 3 rated"
    _rate(again, 4)
    assert sorted(set(store.events()["rater"].to_list())) == ["Ana"]


def test_rating_every_transcript_says_all_done(games: Discussion, store: RatingStore) -> None:
    app = rating_session(games, store=store, rater="ana")
    for score in (2, 3):
        _rate(app, score)
        assert "All done" not in app.status.value
        app.skip_button.click()
    _rate(app, 4)
    assert app.all_done
    assert app.progress_text() == "all 3 rated"
    assert "All done: you have rated all 3 transcripts." in app.status.value
    assert "✓ all 3 rated" in app.progress.value
    back = rating_session(games, store=store, rater="ana")  # coming back when done
    assert "All done" in back.status.value


def test_enter_in_the_name_box_starts_the_session(games: Discussion, store: RatingStore) -> None:
    page = rater_page(games, store)
    name = page.children[1].children[0]
    assert name.continuous_update is False  # the value arrives on Enter (or leaving the box)
    name.value = "ben"  # what the front end sends on Enter
    session = page.children[1]
    assert isinstance(session, RatingSession) and session.rater == "ben"
