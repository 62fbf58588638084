"""The organiser's review pages in process (issue 41): each rater's ratings, notes and
skips; disagreements listed by the stated rule and adjudicated beside the originals (the
exports keep the raters' values and mark the organiser's apart); raters added or
reassigned mid-session; every action behind the organiser's token, the page's CSRF token
and a same-origin request, with hostile fields bounded."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from toolkit.load.discussion import load_discussion
from toolkit.rating_server import RatingServer, create_app
from toolkit.ratings.agreement import rating_agreement
from toolkit.ratings.store import RatingStore, Session
from toolkit.rubrics.discussion import DEFAULT_ENGAGEMENT_SCALE

BASE = "http://127.0.0.1:8866"
FORM = {"Content-Type": "application/x-www-form-urlencoded", "Origin": BASE}


@pytest.fixture
def served(tmp_path: Path, games: Path) -> tuple[TestClient, Session, RatingStore]:
    discussion = load_discussion(games)
    store = RatingStore(tmp_path / "ratings.db")
    session, _ = store.open_session(discussion.game_ids, ["ana", "ben", "chidi"], 2, seed=11)
    server = RatingServer.build(store, session, discussion, DEFAULT_ENGAGEMENT_SCALE)
    return TestClient(create_app(server), base_url=BASE), session, store


def _shared(session: Session) -> tuple[str, str, str]:
    """A game and two raters who both have it."""
    for game in session.game_ids:
        have = [r for r, q in session.queues.items() if game in q]
        if len(have) >= 2:
            return game, have[0], have[1]
    raise AssertionError("no shared game")


def _csrf(client: TestClient, url: str) -> str:
    found = re.search(r'name="csrf" value="([0-9a-f]{64})"', client.get(url).text)
    assert found is not None
    return found.group(1)


def _disagree(store: RatingStore, session: Session) -> tuple[str, str, str]:
    game, a, b = _shared(session)
    store.submit(a, game, 1, {"watch_another": True, "agent_stood_out": True}, "dull <b>x</b>")
    store.submit(b, game, 4, {"watch_another": False, "agent_stood_out": True}, "=gripping")
    return game, a, b


def test_the_disagreements_follow_the_stated_rule(
    served: tuple[TestClient, Session, RatingStore],
) -> None:
    client, session, store = served
    game, a, b = _disagree(store, session)
    org = f"/o/{session.organiser_token}"
    page = client.get(f"{org}/disagreements").text
    # 1 and 4 are three steps apart; watch_another yes/no; agent_stood_out agreed (yes, yes)
    assert page.count('class="disagreement"') == 2
    assert "Would you watch another game?" in page
    assert "Did any agent stand out" not in page
    assert f"{a}: <b>1</b>" in page and f"{b}: <b>4</b>" in page
    main = client.get(org).text
    assert re.search(r"<b>2</b>\s*disagreement\(s\) to adjudicate", main)
    # one step apart is no disagreement
    other, c, d = next(
        (g, *[r for r, q in session.queues.items() if g in q][:2])
        for g in session.game_ids
        if g != game and sum(g in q for q in session.queues.values()) >= 2
    )
    store.submit(c, other, 3, {}, "")
    store.submit(d, other, 4, {}, "")
    assert client.get(f"{org}/disagreements").text.count('class="disagreement"') == 2


def test_an_adjudication_is_kept_beside_the_originals_in_every_export(
    served: tuple[TestClient, Session, RatingStore],
) -> None:
    client, session, store = served
    game, a, b = _disagree(store, session)
    org = f"/o/{session.organiser_token}"
    before_csv = client.get(f"{org}/ratings.csv").text
    alpha_before = rating_agreement(store.latest()).alpha_ordinal
    csrf = _csrf(client, f"{org}/disagreements")
    body = {"csrf": csrf, "unit": game, "question": "score", "value": "3",
            "note": "talked it over", "adjudicator": "Org"}  # fmt: skip
    answer = client.post(f"{org}/adjudicate", data=body, headers=FORM, follow_redirects=False)
    assert answer.status_code == 303
    # the raters' ratings as they were: the CSV export, the store, the agreement
    assert client.get(f"{org}/ratings.csv").text == before_csv
    assert sorted(store.latest().filter(transcript_id=game)["score"].to_list()) == [1, 4]
    assert rating_agreement(store.latest()).alpha_ordinal == alpha_before
    exported = client.get(f"{org}/ratings.json").json()
    assert sorted(r["score"] for r in exported["ratings"] if r["game_id"] == game) == [1, 4]
    assert exported["adjudications"] == [
        {
            "unit": game, "question": "score", "adjudicated": 3,
            "originals": {a: 1, b: 4} if a < b else {b: 4, a: 1},
            "note": "talked it over", "adjudicator": "Org",
            "created_at": exported["adjudications"][0]["created_at"],
        }
    ]  # fmt: skip
    rows = list(csv.DictReader(io.StringIO(client.get(f"{org}/adjudications.csv").text)))
    assert [(r["unit"], r["question"], r["adjudicated"]) for r in rows] == [(game, "score", "3")]
    assert json.loads(rows[0]["originals"]) == {a: 1, b: 4}
    page = client.get(f"{org}/disagreements").text
    assert "Adjudicated: <b>3</b>" in page and "by Org" in page
    # a yes/no question too
    body |= {"question": "watch_another", "value": "no", "note": ""}
    assert client.post(f"{org}/adjudicate", data=body, headers=FORM).status_code == 200
    assert store.adjudications()["value"].to_list() == ["3", "false"]


@pytest.mark.parametrize(
    ("change", "status"),
    [
        ({"value": "6"}, 422),  # off the scale
        ({"value": "2.5"}, 422),
        ({"value": "\u00b2"}, 422),  # a superscript two: str.isdigit, yet int() refuses it
        ({"question": "not_a_question", "value": "yes"}, 422),
        ({"unit": "no-such-game"}, 422),
        ({"note": "x" * 20_001}, 422),  # a huge note (the body is under the size bound)
        ({"adjudicator": "o" * 201}, 422),
        ({"csrf": "0" * 64}, 403),
    ],
)
def test_a_bad_adjudication_is_refused_and_nothing_stored(
    served: tuple[TestClient, Session, RatingStore], change: dict[str, str], status: int
) -> None:
    client, session, store = served
    game, _a, _b = _disagree(store, session)
    org = f"/o/{session.organiser_token}"
    body = {"csrf": _csrf(client, f"{org}/disagreements"), "unit": game,
            "question": "score", "value": "3", "note": "", "adjudicator": "org"}  # fmt: skip
    body |= change
    answer = client.post(f"{org}/adjudicate", data=body, headers=FORM, follow_redirects=False)
    assert answer.status_code == status
    assert store.adjudications(history=True).height == 0


def test_the_organisers_actions_need_the_token_csrf_and_the_same_origin(
    served: tuple[TestClient, Session, RatingStore],
) -> None:
    client, session, store = served
    _game, a, _b = _disagree(store, session)
    org = f"/o/{session.organiser_token}"
    csrf = _csrf(client, f"{org}/raters")
    rater = f"/o/{session.raters[a]}"  # a rater's token opens none of it
    for path in ("/raters", "/raters/0", "/disagreements", "/adjudications.csv"):
        assert client.get(rater + path).status_code == 404
    body = {"csrf": csrf, "rater": "mallory"}
    assert client.post(f"{rater}/raters/add", data=body, headers=FORM).status_code == 404
    # a rater's own CSRF token is not the organiser's
    theirs = client.get(f"/r/{session.raters[a]}/1").text
    rater_csrf = re.search(r'content="([0-9a-f]{64})"', theirs)
    assert rater_csrf is not None
    refused = client.post(f"{org}/raters/add", data={"csrf": rater_csrf.group(1), "rater": "x"},
                          headers=FORM)  # fmt: skip
    assert refused.status_code == 403
    cross = {**FORM, "Origin": "https://evil.example"}
    assert client.post(f"{org}/raters/add", data=body, headers=cross).status_code == 403
    as_json = {"Content-Type": "application/json", "Origin": BASE}
    sent = client.post(f"{org}/raters/add", content=json.dumps(body), headers=as_json)
    assert sent.status_code == 415
    big = client.post(f"{org}/raters/add", data={**body, "rater": "x" * 70_000}, headers=FORM)
    assert big.status_code == 413
    assert client.post(f"{org}/raters/add", content=b"csrf=%ff%fe", headers=FORM).status_code == 400
    assert store.session().raters == session.raters  # type: ignore[union-attr]


def test_the_per_rater_page_shows_scores_answers_notes_drafts_and_skips(
    served: tuple[TestClient, Session, RatingStore],
) -> None:
    client, session, store = served
    queue = session.queues["ana"]
    store.submit("ana", queue[0], 2, {"watch_another": False}, "<script>x</script> meh")
    store.save_skip("ana", queue[1], "seen it before")
    org = f"/o/{session.organiser_token}"
    page = client.get(f"{org}/raters/0").text
    assert "Rater: ana" in page and "1 of 2 submitted" in page
    assert "&lt;script&gt;x&lt;/script&gt; meh" in page and "<script>x" not in page
    assert "seen it before" in page and "skipped" in page
    row = re.search(r"<tr class=\"state-submitted\">(.*?)</tr>", page, re.S)
    assert row is not None and ">2</td>" in row.group(1) and ">no</td>" in row.group(1)
    assert client.get(f"{org}/raters/7").status_code == 404


def test_a_rater_added_mid_session_gets_a_queue_and_a_working_link(
    served: tuple[TestClient, Session, RatingStore],
) -> None:
    client, session, store = served
    ana_next = session.queues["ana"][0]
    store.submit("ben", session.queues["ben"][0], 3, {}, "")
    org = f"/o/{session.organiser_token}"
    body = {"csrf": _csrf(client, f"{org}/raters"), "rater": "  Dana O'Neil  "}
    answer = client.post(f"{org}/raters/add", data=body, headers=FORM)
    assert answer.status_code == 200 and "Added <b>Dana O&#39;Neil</b>" in answer.text
    now = store.session()
    assert now is not None and "Dana O'Neil" in now.raters
    assert now.queues["Dana O'Neil"] and now.queues["ana"][0] == ana_next
    link = re.search(r'id="added">.*?<code class="link">(/r/[^<]+)</code>', answer.text, re.S)
    assert link is not None
    assert client.get(link.group(1), follow_redirects=False).status_code == 303  # served at once
    twice = client.post(f"{org}/raters/add", data=body, headers=FORM)
    assert twice.status_code == 422 and "already" in twice.text
    for bad in ("", "a,b", "x" * 201, "tab\there"):
        refused = client.post(f"{org}/raters/add", data={**body, "rater": bad}, headers=FORM)
        assert refused.status_code == 422, bad


def test_reassigning_a_rater_keeps_what_they_rated(
    served: tuple[TestClient, Session, RatingStore],
) -> None:
    client, session, store = served
    first = session.queues["chidi"][0]
    store.submit("chidi", first, 5, {}, "great")
    org = f"/o/{session.organiser_token}"
    csrf = _csrf(client, f"{org}/raters/2")
    answer = client.post(f"{org}/raters/2/reassign", data={"csrf": csrf}, headers=FORM)
    assert answer.status_code == 200 and "reassigned" in answer.text
    now = store.session()
    assert now is not None and now.queues["chidi"] == (first,) and now.off == ("chidi",)
    for game in now.game_ids:
        assert sum(game in q for q in now.queues.values()) == 2
    assert store.latest("chidi")["score"].to_list() == [5]


def test_a_form_sent_as_browsers_send_it_under_no_referrer_is_accepted_only_same_site(
    served: tuple[TestClient, Session, RatingStore],
) -> None:
    """Under ``Referrer-Policy: no-referrer`` a browser posts a form with ``Origin: null``
    (seen in Chromium); ``Sec-Fetch-Site``, which no script can set, tells ours apart."""
    client, session, store = served
    org = f"/o/{session.organiser_token}"
    body = {"csrf": _csrf(client, f"{org}/raters"), "rater": "dana"}
    null = {"Content-Type": "application/x-www-form-urlencoded", "Origin": "null"}
    for site in ("cross-site", "same-site", None):
        headers = null if site is None else {**null, "Sec-Fetch-Site": site}
        refused = client.post(f"{org}/raters/add", data=body, headers=headers)
        assert refused.status_code == 403, site
    assert "dana" not in store.session().raters  # type: ignore[union-attr]
    ours = client.post(f"{org}/raters/add", data=body,
                       headers={**null, "Sec-Fetch-Site": "same-origin"})  # fmt: skip
    assert ours.status_code == 200 and "dana" in store.session().raters  # type: ignore[union-attr]


def test_a_save_from_a_page_whose_place_now_holds_another_game_is_refused(
    served: tuple[TestClient, Session, RatingStore],
) -> None:
    """A page carries an opaque tag of its game; after a rebalance moved the queue under
    it, a save to its old place (now another game) is 409 and nothing is saved."""
    client, session, store = served
    token = session.raters["ana"]
    tags = []
    for n in (1, 2):
        page = client.get(f"/r/{token}/{n}").text
        found = re.search(r'data-unit="([0-9a-f]{32})"', page)
        assert found is not None and session.queues["ana"][n - 1] not in found.group(1)
        tags.append(found.group(1))
    csrf = re.search(r'content="([0-9a-f]{64})"', page)
    assert csrf is not None
    headers = {"Content-Type": "application/json", "X-CSRF-Token": csrf.group(1),
               "Origin": BASE}  # fmt: skip
    body = json.dumps({"score": 3, "answers": {}, "notes": "meant for game 2"})
    for action in ("draft", "submit"):
        sent = client.post(f"/r/{token}/1/{action}", content=body,
                           headers={**headers, "X-Unit": tags[1]})  # fmt: skip
        assert sent.status_code == 409 and "reload" in sent.json()["error"]
    skip = client.post(f"/r/{token}/1/skip", content=json.dumps({"reason": "x"}),
                       headers={**headers, "X-Unit": tags[1]})  # fmt: skip
    assert skip.status_code == 409
    assert store.draft("ana", session.queues["ana"][0]) is None
    assert store.events().height == 0 and store.skips().height == 0
    ok = client.post(f"/r/{token}/2/draft", content=body, headers={**headers, "X-Unit": tags[1]})
    assert ok.status_code == 200


def test_what_calibrate_reads_from_the_exports_is_the_raters_own_values(
    served: tuple[TestClient, Session, RatingStore], tmp_path: Path
) -> None:
    """``toolkit calibrate`` and ``--ratings`` read ratings.json / ratings.csv with
    :func:`toolkit.load.ratings.load_ratings`: an adjudication changes nothing they read."""
    from toolkit.load.ratings import load_ratings

    client, session, store = served
    game, a, b = _disagree(store, session)
    org = f"/o/{session.organiser_token}"
    (tmp_path / "before.json").write_text(client.get(f"{org}/ratings.json").text)
    body = {"csrf": _csrf(client, f"{org}/disagreements"), "unit": game, "question": "score",
            "value": "2", "note": "", "adjudicator": "org"}  # fmt: skip
    assert client.post(f"{org}/adjudicate", data=body, headers=FORM).status_code == 200
    (tmp_path / "after.json").write_text(client.get(f"{org}/ratings.json").text)
    (tmp_path / "after.csv").write_text(client.get(f"{org}/ratings.csv").text)
    assert "adjudications" in json.loads((tmp_path / "after.json").read_text())
    want = sorted([(game, a, 1.0), (game, b, 4.0)])
    for name in ("before.json", "after.json", "after.csv"):
        got = load_ratings(tmp_path / name).frame.sort("game_id", "rater").rows()
        assert sorted((g, r, float(s)) for g, r, s in got) == want, name


def test_raters_added_by_another_process_are_served_within_a_second(
    served: tuple[TestClient, Session, RatingStore], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``toolkit rate DIR --add-rater NAME`` run beside a serving ``toolkit rate``: the
    server reads its session again once the store's roster mark changed."""
    from toolkit.rating_server import pages

    client, session, store = served
    assert client.get(f"/r/{session.raters['ana']}", follow_redirects=False).status_code == 303
    other = RatingStore(store.path)  # as another process opens it
    now = other.add_raters(["dana"])
    dana = f"/r/{now.raters['dana']}"
    monkeypatch.setattr(pages, "ROSTER_CHECK_S", 3600.0)  # not looked at yet: unknown
    assert client.get(dana, follow_redirects=False).status_code == 404
    monkeypatch.setattr(pages, "ROSTER_CHECK_S", 0.0)
    assert client.get(dana, follow_redirects=False).status_code == 303
    page = client.get(f"/o/{session.organiser_token}/raters").text
    assert "dana" in page


def _cells(page: str, unit: str) -> list[str]:
    """The cells of the row of ``unit`` on a rater's page, as HTML."""
    row = re.search(rf"<tr class=\"state-[a-z-]+\"><td class=\"num\">\d+</td>"
                    rf"<td><code>{re.escape(unit)}</code></td>(.*?)</tr>", page, re.S)  # fmt: skip
    assert row is not None, page
    return re.findall(r"<td[^>]*>(.*?)</td>", row.group(1), re.S)


def test_the_per_rater_page_shows_adjudications_beside_the_raters_own_values(
    served: tuple[TestClient, Session, RatingStore],
) -> None:
    client, session, store = served
    game, a, b = _disagree(store, session)  # a: 1, watch yes; b: 4, watch no
    org = f"/o/{session.organiser_token}"
    body = {"csrf": _csrf(client, f"{org}/disagreements"), "unit": game, "question": "score",
            "value": "3", "note": "talked <i>it</i> over", "adjudicator": "Org"}  # fmt: skip
    assert client.post(f"{org}/adjudicate", data=body, headers=FORM).status_code == 200
    n = list(session.raters).index(a)
    page = client.get(f"{org}/raters/{n}").text
    # cells: state, score, one per question of the scale, notes
    keys = [q.key for q in DEFAULT_ENGAGEMENT_SCALE.questions]
    cells = _cells(page, game)
    score, answers = cells[1], dict(zip(keys, cells[2:-1], strict=True))
    watch, stood = answers["watch_another"], answers["agent_stood_out"]
    # the rater's own score first, the adjudicated one beside it, marked apart
    assert score.split("<")[0].strip() == "1"
    assert 'class="adjudicated-value"' in score and "<b>3</b>" in score
    assert "by Org" in score and 'title="talked &lt;i&gt;it&lt;/i&gt; over"' in score
    assert "<i>it</i>" not in page
    # watch_another: they disagree, nobody adjudicated it yet: the rater's yes and "open"
    assert watch.split("<")[0].strip() == "yes" and "not adjudicated" in watch
    assert f'href="{org}/disagreements#d-' in watch
    # agent_stood_out: both said yes, no disagreement: the rater's value alone
    assert stood.strip() == "yes"
    assert "1 of their disagreements adjudicated, 1 open" in page
    # the other rater's page shows the same adjudication beside their own 4
    other = client.get(f"{org}/raters/{list(session.raters).index(b)}").text
    assert _cells(other, game)[1].split("<")[0].strip() == "4"
    # the store keeps both raters' originals
    assert sorted(store.latest().filter(transcript_id=game)["score"].to_list()) == [1, 4]
