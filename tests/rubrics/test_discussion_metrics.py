"""Each discussion metric on messages built to sit just inside and just outside its rule.

Expected numbers are worked out by hand from the messages written here.
"""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest

from toolkit.frames import (
    DISCUSSION_GAMES_SCHEMA,
    DISCUSSION_LABELS_SCHEMA,
    DISCUSSION_MESSAGES_SCHEMA,
    DISCUSSION_PLAYERS_SCHEMA,
    DISCUSSION_RATINGS_SCHEMA,
    DISCUSSION_VOTES_SCHEMA,
)
from toolkit.load.discussion import Discussion
from toolkit.rubrics.discussion import DISCUSSION_SPEC_1_0_0, score_discussion

GID = "g1"
PLAYERS = [
    ("Ash", "MAFIA"),
    ("Bay", "MAFIA"),
    ("Cole", "VILLAGER"),
    ("Dune", "VILLAGER"),
    ("Eve", "VILLAGER"),
]


def game(
    lines: list[tuple[Any, ...]],
    votes: list[tuple[int, str, str]] = (),  # type: ignore[assignment]
    players: list[tuple[str, str]] = PLAYERS,
    cost: float | None = 1.0,
) -> Discussion:
    """lines: (round, speaker, text) or (round, speaker, text, reply_to_player)."""
    msgs = []
    for turn, line in enumerate(lines, start=1):
        rnd, speaker, text = line[:3]
        reply = line[3] if len(line) > 3 else None
        msgs.append(
            {
                "game_id": GID,
                "message_id": f"m{turn}",
                "turn": turn,
                "round": rnd,
                "speaker": speaker,
                "text": text,
                "in_reply_to": f"id-{reply}" if reply else None,
                "in_reply_to_player": reply,
                "timestamp": None,
            }
        )
    return Discussion(
        games=pl.DataFrame(
            [
                {
                    "game_id": GID,
                    "source_kind": "transcript",
                    "source_file": "t.json",
                    "cost_usd": cost,
                }
            ],
            schema=DISCUSSION_GAMES_SCHEMA,
        ),
        players=pl.DataFrame(
            [
                {"game_id": GID, "player_id": n, "name": n, "role": r, "alive": True, "position": i}
                for i, (n, r) in enumerate(players)
            ],
            schema=DISCUSSION_PLAYERS_SCHEMA,
        ),
        messages=pl.DataFrame(msgs, schema=DISCUSSION_MESSAGES_SCHEMA),
        votes=pl.DataFrame(
            [{"game_id": GID, "round": r, "voter": v, "target": t} for r, v, t in votes],
            schema=DISCUSSION_VOTES_SCHEMA,
        ),
    )


def metric(d: Discussion, key: str, **kw: Any) -> dict[str, Any]:
    report = score_discussion(d, **kw)
    row = report.metrics.filter(pl.col("key") == key)
    assert row.height == 1
    return row.row(0, named=True)


# --- 2. strategic depth (>= 0.60) -------------------------------------------------------


def test_strategic_three_of_five_is_exactly_the_threshold_and_passes() -> None:
    d = game(
        [
            (1, "Cole", "I am voting now."),  # vot- inflection
            (1, "Dune", "That was an accusation."),  # accus- inflection
            (1, "Eve", "Thinking hard."),  # think- inflection
            (1, "Ash", "Nice weather."),
            (1, "Bay", "Hello all."),
        ]
    )
    m = metric(d, "strategic_depth")
    assert m["score"] == pytest.approx(0.6)
    assert m["status"] == "PASS"
    assert m["detail"] == "3/5 messages strategic"


def test_strategic_four_of_seven_is_just_below_and_fails() -> None:
    d = game(
        [
            (1, "Cole", "Because."),
            (1, "Dune", "Trustworthy?"),
            (1, "Eve", "Evidences."),
            (1, "Ash", "I believe so."),
            (1, "Bay", "Hello."),
            (1, "Cole", "Lovely."),
            (1, "Dune", "Bye."),
        ]
    )
    m = metric(d, "strategic_depth")
    assert m["score"] == pytest.approx(4 / 7)
    assert m["status"] == "FAIL"


def test_strategic_keyword_inside_another_word_does_not_count() -> None:
    # "distrust" does not start with "trust"; "devote" does not start with "vot".
    report = score_discussion(game([(1, "Cole", "I distrust devotees."), (1, "Dune", "Hi.")]))
    ev = report.evidence.messages
    assert ev["strategic"].to_list() == [False, False]


# --- 3. coherence (>= 0.70) --------------------------------------------------------------


def _coherence_lines(linked: int, unlinked: int) -> list[tuple[Any, ...]]:
    lines: list[tuple[Any, ...]] = [(1, "Ash", "Opening words here.")]
    for i in range(linked):
        lines.append((1, "Bay", f"Point {i}.", "Ash"))  # has a reply id
    for i in range(unlinked):
        lines.append((1, "Cole", f"Lone {i}."))  # names nobody, shares no long words
    return lines


def test_coherence_seven_of_ten_passes_at_the_threshold() -> None:
    # The rubric's formula: coherent / total messages, the first message included
    # (issue 23 item 12): 1 opening + 7 linked + 2 lone = 7/10.
    m = metric(game(_coherence_lines(7, 2)), "coherence")
    assert m["score"] == pytest.approx(0.7)
    assert m["status"] == "PASS"
    assert m["detail"] == "7/10 messages link to one of the previous 3"


def test_coherence_two_of_three_fails() -> None:
    m = metric(game(_coherence_lines(2, 0)), "coherence")
    assert m["score"] == pytest.approx(2 / 3)
    assert m["status"] == "FAIL"


def test_coherence_counts_the_first_message_in_the_denominator() -> None:
    # 1 opening + 7 linked + 3 lone: 7/11 under the formula (FAIL); rubric 1.0.0 left
    # the first message out (7/10, PASS).
    lines = _coherence_lines(7, 3)
    m = metric(game(lines), "coherence")
    assert m["score"] == pytest.approx(7 / 11)
    assert m["status"] == "FAIL"
    old = metric(game(lines), "coherence", spec=DISCUSSION_SPEC_1_0_0)
    assert old["score"] == pytest.approx(0.7)
    assert old["detail"] == "7/10 messages after the first link to the previous 3"


def test_coherence_rules_naming_window_and_shared_long_words() -> None:
    lines: list[tuple[Any, ...]] = [
        (1, "Ash", "Quiet."),
        (1, "Bay", "Hmm."),
        (1, "Cole", "Ok."),
        (1, "Dune", "Yes."),
        (1, "Eve", "Ash is odd."),  # Ash spoke 4 messages back: outside the window
        (1, "Ash", "Dune is odd."),  # Dune spoke 2 back: inside
        (1, "Bay", "strange silence everywhere"),  # 2+ long words shared with the next
        (1, "Cole", "strange silence indeed"),  # shares "strange", "silence" (>= 5 letters)
        (1, "Dune", "odd vote"),  # shares only short words ("odd") with turn 6
        (1, "Eve", "indeed quite"),  # shares only one long word ("indeed") with turn 8
    ]
    ev = score_discussion(game(lines)).evidence.messages
    assert ev["coherent"].to_list() == [
        False,  # the first message: nothing before it to link to
        False,
        False,
        False,
        False,
        True,
        False,
        True,
        False,
        False,
    ]
    reasons = ev["coherence_reason"].to_list()
    assert reasons[0] == "first message: nothing before it to link to"
    assert reasons[5] == "names Dune (turn 4)"
    assert reasons[7] == "shares silence, strange with turn 7"


# --- 4. role consistency (>= 0.80) --------------------------------------------------------


def test_role_one_break_in_five_passes_one_in_four_fails() -> None:
    five = [
        (1, "Ash", "I'm certain Cole is hiding something."),  # Mafia over-certain
        (1, "Cole", "Hello."),
        (1, "Dune", "Hello."),
        (1, "Eve", "Hello."),
        (1, "Bay", "Hello."),
    ]
    m = metric(game(five), "role_consistency")
    assert m["score"] == pytest.approx(0.8)
    assert m["status"] == "PASS"
    assert m["detail"] == "1 role breaks in 5 messages"
    m = metric(game(five[:4]), "role_consistency")
    assert m["score"] == pytest.approx(0.75)
    assert m["status"] == "FAIL"


@pytest.mark.parametrize(
    ("speaker", "text", "broken", "why"),
    [
        ("Ash", "Bay is suspicious, honestly.", True, "Mafia accuses fellow Mafia (Bay)"),
        ("Ash", "Cole is suspicious, honestly.", False, "in role"),  # accusing a villager
        ("Ash", "Bay is lovely. Cole is suspicious.", False, "in role"),  # not the same sentence
        ("Ash", "As a Mafia member I disagree.", True, "Mafia reveals role (as a mafia)"),
        ("Cole", "Eve is mafia.", True, "Villager accuses without a reason (is mafia)"),
        ("Cole", "Eve is mafia because she dodged.", False, "in role"),
        ("Cole", "Look at someone else.", True, "Villager deflects without a reason"),
        ("Cole", "Dune is innocent.", True, "Villager defends without evidence (is innocent)"),
        ("Cole", "Dune is innocent, I noticed her vote.", False, "in role"),
    ],
)
def test_role_break_rules(speaker: str, text: str, broken: bool, why: str) -> None:
    ev = score_discussion(game([(1, speaker, text)])).evidence.messages
    assert ev["role_break"].to_list() == [broken]
    assert ev["role_break_reason"][0].startswith(why)


# Issue 23 item 8: every example the source rubric gives for metric 4, said by a Mafia
# (Ash, partner Bay) and by a Villager (Cole): (text, Mafia breaks?, Villager breaks?).
RUBRIC_ROLE_EXAMPLES = [
    # Mafia should deflect subtly; a Villager deflecting without a reason breaks role.
    ("That seems hasty.", False, True),
    ("Let's not jump to conclusions.", False, True),
    ("Let's not be too hasty.", False, True),  # the rubric's FAIL (Villager)
    ("That seems hasty, let us not jump to conclusions.", False, True),
    # Mafia appear helpful; looking at the evidence is not a Villager break either.
    ("Let's look at the evidence.", False, False),
    # Mafia defend allies; a Villager defending without evidence breaks role.
    ("I think you're being too harsh on Bay.", False, True),
    # The rubric's PASS (Mafia): a stated lack of evidence is no reason for a Villager.
    (
        "I think you're jumping to conclusions about Bay. We don't have solid evidence yet.",
        False,
        True,
    ),
    # The rubric's PASS (Villager): analyses a vote, builds the case.
    ("Eve voted for Dune without explanation. That's suspicious.", False, False),
    # The rubric's FAIL (Mafia): too aggressive; for a Villager, a random accusation.
    ("I think Eve is definitely Mafia!", True, True),
    # What Villagers should do: analyse votes, build cases, question, form alliances.
    ("Dune and Eve voted together.", False, False),
    ("I think Eve is Mafia because she dodged every question.", False, False),
    ("Why did you vote for Eve?", False, False),
    ("I trust Dune's reasoning.", False, False),
    # A question deflecting is still a deflection.
    ("Why are you looking at me?", False, True),
]


@pytest.mark.parametrize(("text", "mafia_breaks", "villager_breaks"), RUBRIC_ROLE_EXAMPLES)
def test_role_rubric_examples_for_both_roles(
    text: str, mafia_breaks: bool, villager_breaks: bool
) -> None:
    ev = score_discussion(game([(1, "Ash", text), (1, "Cole", text)])).evidence.messages
    assert ev["role_break"].to_list() == [mafia_breaks, villager_breaks], ev[
        "role_break_reason"
    ].to_list()


# Issue 37: a general statement about the game accuses nobody (the real 2L game's first
# message said "statistically at least two of you are Mafia hiding among us"); an
# accusation of a player, in the same message or sentence, still counts.
GENERAL_OR_ACCUSING = [
    ("Ten alive, and statistically at least two of you are Mafia hiding among us.", False),
    ("Someone is lying.", False),
    ("One of us must be Mafia.", False),
    ("Some of them are probably suspicious.", False),
    ("We need to vote out the Mafia before it is too late.", False),
    ("I suspect someone is lying.", False),
    ("There are Mafia among us.", False),
    ("Two of you are Mafia. Eve is mafia.", True),
    ("Someone is lying and Eve is Mafia.", True),
    ("I suspect Eve.", True),
    ("Vote for Dune.", True),
    ("Eve is lying.", True),
]


@pytest.mark.parametrize(("text", "accuses"), GENERAL_OR_ACCUSING)
def test_a_general_statement_about_the_game_is_no_accusation(text: str, accuses: bool) -> None:
    ev = score_discussion(game([(1, "Cole", text)])).evidence.messages
    assert ev["role_break"].to_list() == [accuses], ev["role_break_reason"].to_list()
    if accuses:
        assert ev["role_break_reason"][0].startswith("Villager accuses without a reason")


def test_villager_deflection_names_the_rubric_cue() -> None:
    ev = score_discussion(
        game([(1, "Cole", "That seems hasty, let us not jump to conclusions.")])
    ).evidence.messages
    assert ev["role_break_reason"][0] == (
        "Villager deflects without a reason (seems hasty, jump to conclusions)"
    )


# --- 5. personality diversity (>= 0.50) ----------------------------------------------------


def test_similarity_is_dice_on_bigrams_ignoring_whitespace() -> None:
    # "ab cd" -> ab, bc, cd; "abce" -> ab, bc, ce: 2 shared of 3 + 3 -> 4/6.
    sim = score_discussion(game([(1, "Cole", "ab cd"), (1, "Dune", "abce")])).evidence.similarity
    assert sim.filter(pl.col("speaker") == "Cole")["similarity"][0] == pytest.approx(4 / 6)


def test_diversity_exactly_070_is_not_unique() -> None:
    # 10 bigrams each, the first 7 shared: 2*7/20 = 0.70, not below 0.70.
    d = game([(1, "Cole", "abcdefghXYZ"), (1, "Dune", "abcdefghUVW")])
    sim = score_discussion(d).evidence.similarity
    assert sim["similarity"].to_list() == pytest.approx([0.7, 0.7])
    m = metric(d, "personality_diversity")
    assert m["score"] == 0.0
    assert m["status"] == "FAIL"


def test_diversity_two_of_four_unique_passes_one_of_three_fails() -> None:
    twins = [(1, "Cole", "abcdef"), (1, "Dune", "abcdeg")]  # 8/10 = 0.8: alike
    m = metric(game([*twins, (1, "Eve", "qrstuv"), (1, "Ash", "klmnop")]), "personality_diversity")
    assert m["score"] == pytest.approx(0.5)
    assert m["status"] == "PASS"
    m = metric(game([*twins, (1, "Eve", "qrstuv")]), "personality_diversity")
    assert m["score"] == pytest.approx(1 / 3)
    assert m["status"] == "FAIL"


def test_diversity_with_one_speaker_is_absent() -> None:
    m = metric(game([(1, "Cole", "abc"), (1, "Cole", "def")]), "personality_diversity")
    assert m["score"] is None
    assert m["status"] == "N/A"


def test_reviewer_diversity_labels_decide_a_speaker_and_are_counted() -> None:
    # Issue 23 item 10: the rubric's manual check ("could I identify this agent by their
    # language style?") as a reviewer label per player, over the similarity measure.
    twins = [(1, "Cole", "abcdef"), (1, "Dune", "abcdeg")]  # 0.8 alike: neither unique
    d = game([*twins, (1, "Eve", "qrstuv")])
    assert metric(d, "personality_diversity")["score"] == pytest.approx(1 / 3)
    labels = pl.DataFrame(
        [
            {"game_id": GID, "kind": "diversity", "item_id": "Cole", "label": True},
            {"game_id": GID, "kind": "diversity", "item_id": "Eve", "label": True},  # same
        ],
        schema=DISCUSSION_LABELS_SCHEMA,
    )
    m = metric(d, "personality_diversity", labels=labels)
    assert m["score"] == pytest.approx(2 / 3)
    assert m["status"] == "PASS"
    assert m["detail"] == "2/3 speakers unique (max similarity 0.8); 1 decided by a reviewer"
    card = score_discussion(d, labels=labels).scorecards[0]
    assert card.meta["labels_overridden"]["diversity"] == 1
    assert "reviewer labels overrode 1 speaker(s)' personality diversity" in card.warnings


def test_fascinating_sign_off_is_read_from_the_labels() -> None:
    d = game([(1, "Ash", "Hello.")])
    assert score_discussion(d).scorecards[0].meta["signed_off"] is None
    labels = pl.DataFrame(
        [{"game_id": GID, "kind": "fascinating", "item_id": "game", "label": True}],
        schema=DISCUSSION_LABELS_SCHEMA,
    )
    assert score_discussion(d, labels=labels).scorecards[0].meta["signed_off"] is True


# --- 6. anti-repetition (>= 0.90) --------------------------------------------------------

ELEVEN = "one two three four five six seven eight nine ten eleven"


def test_repetition_one_repeat_in_ten_phrases_passes() -> None:
    # 11 words -> 9 phrases; "one two three" again -> 1 more phrase, a repeat: 1 - 1/10.
    m = metric(game([(1, "Cole", ELEVEN), (1, "Cole", "one two three")]), "anti_repetition")
    assert m["score"] == pytest.approx(0.9)
    assert m["status"] == "PASS"
    assert m["detail"] == "1 repeats in 10 3-word phrases"


def test_repetition_one_repeat_in_nine_phrases_fails() -> None:
    ten = ELEVEN.rsplit(" ", 1)[0]
    m = metric(game([(1, "Cole", ten), (1, "Cole", "one two three")]), "anti_repetition")
    assert m["score"] == pytest.approx(1 - 1 / 9)
    assert m["status"] == "FAIL"


def test_same_phrase_from_another_speaker_is_not_a_repeat() -> None:
    m = metric(
        game([(1, "Cole", "one two three"), (1, "Dune", "one two three")]), "anti_repetition"
    )
    assert m["score"] == 1.0
    assert m["detail"] == "0 repeats in 2 3-word phrases"


def test_phrases_with_game_terms_are_left_out() -> None:
    # "we voted today" (voted: a game term) is left out of both counts.
    d = game([(1, "Cole", "we voted today"), (1, "Cole", "we voted today")])
    m = metric(d, "anti_repetition")
    assert m["score"] is None
    assert m["status"] == "N/A"


def test_rubric_example_i_think_name_is_suspicious_fifteen_times_is_repetition() -> None:
    # Issue 23 item 7, the rubric's own failing example: one agent says "I think [name]
    # is suspicious" fifteen times. Names become a placeholder, so whoever is named the
    # three phrases ("i think <name>", "think <name> is", "<name> is suspicious") come
    # back fifteen times each: 45 uses, 42 repeats.
    names = ["Ash", "Bay", "Dune", "Eve", "Ash"] * 3
    d = game([(1, "Cole", f"I think {n} is suspicious.") for n in names])
    m = metric(d, "anti_repetition")
    assert m["score"] == pytest.approx(1 - 42 / 45)
    assert m["status"] == "FAIL"
    assert m["detail"] == "42 repeats in 45 3-word phrases"
    phrases = score_discussion(d).evidence.phrases
    assert sorted(phrases["phrase"].to_list()) == [
        "<name> is suspicious",
        "i think <name>",
        "think <name> is",
    ]
    assert phrases["uses"].to_list() == [15, 15, 15]
    # Rubric 1.0.0 left every phrase holding a name out: no repetition seen at all.
    assert metric(d, "anti_repetition", spec=DISCUSSION_SPEC_1_0_0)["status"] == "N/A"


def test_a_name_of_several_words_is_one_placeholder() -> None:
    players = [*PLAYERS, ("Mary Ann", "VILLAGER")]
    d = game(
        [(1, "Cole", "I trust Mary Ann today."), (1, "Cole", "I trust Mary Ann today.")],
        players=players,
    )
    phrases = score_discussion(d).evidence.phrases
    assert phrases["phrase"].to_list() == ["i trust <name>", "trust <name> today"]
    assert phrases["repeats"].to_list() == [1, 1]


# --- 1. memory accuracy (>= 0.80) ---------------------------------------------------------

VOTES = [(1, "Cole", "Ash"), (1, "Dune", "Bay"), (1, "Eve", "Ash")]
ROUND1 = [(1, "Ash", "Hello."), (1, "Bay", "Hi there.")]


def test_memory_four_of_five_accurate_passes() -> None:
    lines = [
        *ROUND1,
        (2, "Eve", "In round 1, Cole voted for Ash."),  # accurate (vote)
        (2, "Eve", "Last round Dune voted for Bay."),  # accurate (vote, round 1)
        (2, "Eve", "Earlier Ash said hello."),  # accurate (Ash spoke at turn 1)
        (2, "Eve", "Earlier Bay said hi."),  # accurate
        (2, "Eve", "Earlier Cole voted for Bay."),  # inaccurate: Cole voted for Ash
    ]
    m = metric(game(lines, VOTES), "memory_accuracy")
    assert m["score"] == pytest.approx(0.8)
    assert m["status"] == "PASS"
    assert m["detail"] == "4/5 references accurate"


def test_memory_three_of_four_accurate_fails() -> None:
    lines = [
        *ROUND1,
        (2, "Eve", "In round 1, Cole voted for Ash."),
        (2, "Eve", "Earlier Ash said hello."),
        (2, "Eve", "Earlier Bay said hi."),
        (2, "Eve", "Earlier Dune said plenty."),  # inaccurate: Dune never spoke
    ]
    m = metric(game(lines, VOTES), "memory_accuracy")
    assert m["score"] == pytest.approx(0.75)
    assert m["status"] == "FAIL"


def test_memory_rules_round_not_happened_actor_unknown_review_and_pronouns() -> None:
    lines = [
        (1, "Ash", "Hello."),
        (2, "Bay", "In round 3 Cole voted for Ash."),  # round 3 has not happened
        (2, "Bay", "Earlier someone voted for Ash."),  # actor cannot be identified
        (2, "Bay", "That was earlier."),  # no checkable claim: needs review
        (2, "Cole", "Earlier you said hello.", "Ash"),  # you = the player replied to
        (2, "Cole", "Last round I voted for Ash."),  # I = the speaker
    ]
    refs = score_discussion(game(lines, VOTES)).evidence.references
    assert refs["verdict"].to_list() == [
        "inaccurate",
        "inaccurate",
        "needs review",
        "accurate",
        "accurate",
    ]
    assert refs["reason"][0] == "round 3 has not happened"
    assert refs["reason"][1].startswith("actor cannot be identified")
    assert refs["actor"].to_list()[3:] == ["Ash", "Cole"]
    m = metric(game(lines, VOTES), "memory_accuracy")
    assert m["score"] == pytest.approx(2 / 4)
    assert m["detail"] == "2/4 references accurate; 1 need review (not scored)"


def test_last_round_in_round_one_names_a_round_that_has_not_happened() -> None:
    refs = score_discussion(game([(1, "Ash", "Last round Bay said nothing.")])).evidence.references
    assert refs["verdict"].to_list() == ["inaccurate"]
    assert refs["reason"][0] == "round 0 has not happened"


def test_no_references_scores_one_and_says_so() -> None:
    m = metric(game([(1, "Ash", "Hello.")]), "memory_accuracy")
    assert m["score"] == 1.0
    assert m["status"] == "PASS"
    # a PASS never says N/A beside it ("[PASS] ... N/A (scored 1.0)" read as a contradiction)
    assert m["detail"] == "1.0 by 2L's rule: no checkable references to past events"


def test_reviewer_label_decides_a_needs_review_reference() -> None:
    d = game([(1, "Ash", "Hello."), (2, "Bay", "That was earlier.")])
    labels = pl.DataFrame(
        [{"game_id": GID, "kind": "memory", "item_id": "m2#0", "label": False}],
        schema=DISCUSSION_LABELS_SCHEMA,
    )
    refs = score_discussion(d, labels=labels).evidence.references
    assert refs["verdict"].to_list() == ["inaccurate"]
    assert metric(d, "memory_accuracy", labels=labels)["score"] == 0.0


# --- 7. engagement (>= 3.0) --------------------------------------------------------------


def _ratings(*scores: float) -> pl.DataFrame:
    return pl.DataFrame(
        [{"game_id": GID, "rater": f"r{i}", "score": s} for i, s in enumerate(scores)],
        schema=DISCUSSION_RATINGS_SCHEMA,
    )


def test_engagement_mean_three_passes_and_just_below_fails() -> None:
    d = game([(1, "Ash", "Hello.")])
    m = metric(d, "engagement", ratings=_ratings(4, 2))
    assert m["score"] == 3.0
    assert m["status"] == "PASS"
    m = metric(d, "engagement", ratings=_ratings(3, 2, 3))
    assert m["score"] == pytest.approx(8 / 3)
    assert m["status"] == "FAIL"


def test_engagement_without_rating_is_pending() -> None:
    m = metric(game([(1, "Ash", "Hello.")]), "engagement")
    assert m["score"] is None
    assert m["status"] == "PENDING"
    assert m["detail"] == "pending: no rating yet"


def test_reviewer_labels_override_strategic_and_role_and_are_counted() -> None:
    d = game([(1, "Ash", "Nice weather."), (1, "Cole", "Eve is mafia.")])
    labels = pl.DataFrame(
        [
            {"game_id": GID, "kind": "strategic", "item_id": "m1", "label": True},
            {"game_id": GID, "kind": "role", "item_id": "m2", "label": True},  # consistent
        ],
        schema=DISCUSSION_LABELS_SCHEMA,
    )
    report = score_discussion(d, labels=labels)
    ev = report.evidence.messages
    assert ev["strategic"].to_list() == [True, False]  # m1 labelled; m2 has no keyword
    assert ev["role_break"].to_list() == [False, False]
    assert (
        "reviewer labels overrode 1 strategic and 1 role label(s)" in report.scorecards[0].warnings
    )


def test_stance_claims_need_an_earlier_message_naming_or_answering_the_object() -> None:
    lines = [
        *ROUND1,
        (1, "Cole", "I think Dune is odd."),
        (1, "Dune", "Why me?", "Cole"),
        (2, "Eve", "Earlier Cole accused Dune."),  # turn 3 names Dune
        (2, "Eve", "Earlier Dune attacked Cole."),  # turn 4 answers Cole
        (2, "Eve", "Earlier Cole defended Eve."),  # Cole never named Eve
        (2, "Eve", "Earlier Ash said hello."),  # a speech claim: any earlier message
    ]
    refs = score_discussion(game(lines, VOTES)).evidence.references
    assert refs["kind"].to_list() == ["stance", "stance", "stance", "said"]
    assert refs["verdict"].to_list() == ["accurate", "accurate", "inaccurate", "accurate"]
    assert refs["reason"].to_list() == [
        "Cole accused Dune: matches message of turn 3",
        "Dune attacked Cole: matches message of turn 4",
        "Cole defended Eve: no earlier message supports it",
        "Ash said: matches message of turn 1",
    ]
