"""The rating server's routes in process (Starlette's test client): who may read and write
what, CSRF and origin checks, escaping, neutral labels, drafts, submit, the organiser's
page and exports. The browser-level behaviour is in tests/e2e/test_rater_page.py."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from toolkit.load.discussion import load_discussion
from toolkit.rating_server import CSP, MAX_BODY_BYTES, RatingServer, create_app
from toolkit.ratings.store import RatingStore, Session
from toolkit.rubrics.discussion import DEFAULT_ENGAGEMENT_SCALE

BASE = "http://127.0.0.1:8866"
HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)>'


@pytest.fixture
def served(tmp_path: Path, games: Path) -> tuple[TestClient, Session, RatingStore]:
    # a transcript is untrusted text: a speaker's message holds markup and a script
    hostile = json.loads((games / "game-pass.json").read_text())
    hostile["messages"][0]["message"] = HOSTILE
    (games / "game-pass.json").write_text(json.dumps(hostile))
    discussion = load_discussion(games)
    store = RatingStore(tmp_path / "ratings.db")
    session, _ = store.open_session(discussion.game_ids, ["ana", "ben", "chidi"], 2, seed=11)
    server = RatingServer.build(store, session, discussion, DEFAULT_ENGAGEMENT_SCALE)
    return TestClient(create_app(server), base_url=BASE), session, store


def _csrf(client: TestClient, url: str) -> str:
    page = client.get(url)
    assert page.status_code == 200
    found = re.search(r'<meta name="csrf-token" content="([0-9a-f]{64})">', page.text)
    assert found is not None
    return found.group(1)


def _save(
    client: TestClient, url: str, csrf: str, body: object, **headers: str
) -> tuple[int, dict[str, object]]:
    response = client.post(
        url,
        content=json.dumps(body),
        headers={"Content-Type": "application/json", "X-CSRF-Token": csrf, **headers},
    )
    return response.status_code, response.json()


def test_a_rater_starts_at_their_first_game_and_sees_a_neutral_label_only(
    served: tuple[TestClient, Session, RatingStore],
) -> None:
    client, session, _store = served
    token = session.raters["ana"]
    home = client.get(f"/r/{token}", follow_redirects=False)
    assert home.status_code == 303 and home.headers["location"] == f"/r/{token}/1"
    page = client.get(f"/r/{token}/1").text
    assert "Game 1 of 2" in page
    for gid in session.game_ids:  # no game id anywhere before rating
        assert gid not in page
    assert "MAFIA" not in page and "VILLAGER" not in page  # nor any role
    assert "Somewhat Interesting" in page and "Would you voluntarily watch" in page


def test_the_transcript_is_escaped_and_the_page_has_no_inline_script_or_style(
    served: tuple[TestClient, Session, RatingStore],
) -> None:
    client, session, _store = served
    rater = next(r for r, q in session.queues.items() if "game-pass" in q)
    token = session.raters[rater]
    n = session.queues[rater].index("game-pass") + 1
    response = client.get(f"/r/{token}/{n}")
    page = response.text
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in page or (
        "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page
    )
    assert "<img src=x" not in page
    scripts = re.findall(r"<script\b[^>]*>", page)
    assert scripts == ['<script src="/static/rater.js" defer>']
    assert "style=" not in page and "<style" not in page
    assert response.headers["content-security-policy"] == CSP
    assert "'unsafe-inline'" not in CSP
    assert response.headers["referrer-policy"] == "no-referrer"


def test_a_draft_is_saved_at_once_and_shown_again_on_the_page(
    served: tuple[TestClient, Session, RatingStore],
) -> None:
    client, session, store = served
    token = session.raters["ana"]
    csrf = _csrf(client, f"/r/{token}/2")
    status, body = _save(
        client,
        f"/r/{token}/2/draft",
        csrf,
        {"score": 2, "answers": {"watch_another": False}, "notes": "slow <b>start</b>"},
    )
    assert status == 200 and body["saved"] is True
    draft = store.draft("ana", session.queues["ana"][1])
    assert draft is not None and (draft.score, draft.notes) == (2, "slow <b>start</b>")
    assert store.events().height == 0  # a draft is not a rating
    page = client.get(f"/r/{token}/2").text
    assert re.search(r'value="2"\s+checked', page)
    assert re.search(r'name="q-watch_another" value="no" checked', page)
    assert "slow &lt;b&gt;start&lt;/b&gt;</textarea>" in page


def test_submit_stamps_the_instrument_and_moves_to_the_next_game_then_all_done(
    served: tuple[TestClient, Session, RatingStore],
) -> None:
    client, session, store = served
    token = session.raters["ben"]
    csrf = _csrf(client, f"/r/{token}/1")
    status, body = _save(client, f"/r/{token}/1/submit", csrf, {"score": 4, "notes": "tense"})
    assert status == 200 and body["next"] == f"/r/{token}/2"
    status, body = _save(client, f"/r/{token}/2/submit", csrf, {"score": 5})
    assert body["next"] == f"/r/{token}/done"
    rows = store.latest("ben").sort("event_id").rows(named=True)
    assert [(r["transcript_id"], r["score"], r["instrument"]) for r in rows] == [
        (session.queues["ben"][0], 4, "2L-1.0.0"),
        (session.queues["ben"][1], 5, "2L-1.0.0"),
    ]
    done = client.get(f"/r/{token}/done").text
    assert "All done" in done and "all 2 games" in done
    # once submitted, the game's id and roles are shown
    page = client.get(f"/r/{token}/1").text
    assert session.queues["ben"][0] in page and "MAFIA" in page
    assert "Submitted: 4 Engaging" in page
    assert client.get(f"/r/{token}", follow_redirects=False).headers["location"].endswith("/done")


def test_a_submit_without_a_score_is_refused_and_saves_nothing(
    served: tuple[TestClient, Session, RatingStore],
) -> None:
    client, session, store = served
    token = session.raters["ana"]
    csrf = _csrf(client, f"/r/{token}/1")
    status, body = _save(client, f"/r/{token}/1/submit", csrf, {"answers": {}})
    assert status == 422 and "choose a score" in str(body["error"])
    assert store.events().height == 0


def test_another_raters_token_cannot_read_or_write_and_unknown_tokens_find_nothing(
    served: tuple[TestClient, Session, RatingStore],
) -> None:
    client, session, store = served
    ana, ben = session.raters["ana"], session.raters["ben"]
    ana_csrf = _csrf(client, f"/r/{ana}/1")
    # ana's CSRF token does not open ben's queue for writing
    status, _ = _save(client, f"/r/{ben}/1/draft", ana_csrf, {"score": 1})
    assert status == 403
    status, _ = _save(client, f"/r/{ben}/1/submit", ana_csrf, {"score": 1})
    assert status == 403
    # positions beyond ana's own queue, other tokens, the organiser's pages: nothing
    assert client.get(f"/r/{ana}/3").status_code == 404
    assert client.get(f"/r/{ana}/0").status_code == 404
    assert client.get(f"/r/{'x' * 32}/1").status_code == 404
    assert client.get(f"/o/{ana}").status_code == 404
    assert client.get(f"/o/{ana}/ratings.csv").status_code == 404
    assert client.get(f"/r/{session.organiser_token}/1").status_code == 404
    status, _ = _save(client, f"/r/{'x' * 32}/1/draft", ana_csrf, {"score": 1})
    assert status == 404
    assert store.events().height == 0 and store.drafts().height == 0


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"X-CSRF-Token": ""}, 403),
        ({"Origin": "http://evil.example"}, 403),
        ({"Origin": "null"}, 403),
        ({"Sec-Fetch-Site": "cross-site"}, 403),
        ({"Content-Type": "text/plain"}, 415),
    ],
)
def test_a_save_without_the_pages_csrf_token_or_from_another_site_is_refused(
    served: tuple[TestClient, Session, RatingStore], headers: dict[str, str], status: int
) -> None:
    client, session, store = served
    token = session.raters["ana"]
    csrf = _csrf(client, f"/r/{token}/1")
    got, body = _save(client, f"/r/{token}/1/draft", csrf, {"score": 3}, **headers)
    assert got == status, body
    assert store.drafts().height == 0
    # the same save from the page's own origin goes through
    ok, _ = _save(client, f"/r/{token}/1/draft", csrf, {"score": 3}, Origin=BASE)
    assert ok == 200


@pytest.mark.parametrize(
    "body",
    [
        {"score": 9},
        {"score": "4"},
        {"score": True},
        {"answers": {"not_a_question": True}},
        {"answers": {"watch_another": "yes"}},
        {"notes": 5},
        [1, 2],
    ],
)
def test_a_save_with_values_off_the_instrument_is_refused(
    served: tuple[TestClient, Session, RatingStore], body: object
) -> None:
    client, session, store = served
    token = session.raters["ana"]
    csrf = _csrf(client, f"/r/{token}/1")
    status, answer = _save(client, f"/r/{token}/1/draft", csrf, body)
    assert status == 422 and answer["error"]
    assert store.drafts().height == 0


def test_a_save_too_large_or_not_json_is_refused(
    served: tuple[TestClient, Session, RatingStore],
) -> None:
    client, session, _store = served
    token = session.raters["ana"]
    csrf = _csrf(client, f"/r/{token}/1")
    headers = {"Content-Type": "application/json", "X-CSRF-Token": csrf}
    big = client.post(f"/r/{token}/1/draft", content=b" " * (MAX_BODY_BYTES + 1), headers=headers)
    assert big.status_code == 413
    bad = client.post(f"/r/{token}/1/draft", content=b"{not json", headers=headers)
    assert bad.status_code == 400
    deep = client.post(f"/r/{token}/1/draft", content=b"[" * 5000, headers=headers)
    assert deep.status_code == 400


def test_the_organiser_sees_progress_agreement_and_exports_the_ratings(
    served: tuple[TestClient, Session, RatingStore],
) -> None:
    client, session, store = served
    org = session.organiser_token
    page = client.get(f"/o/{org}").text
    assert "Not yet: alpha needs a game rated by two raters." in page
    # every game is rated by both of its raters: ana and the other rater agree exactly
    for rater, queue in session.queues.items():
        token = session.raters[rater]
        csrf = _csrf(client, f"/r/{token}/1")
        for n, gid in enumerate(queue, start=1):
            score = {"game-pass": 4, "game-over-budget": 2, "game-role-repetition": 1}[gid]
            status, _ = _save(client, f"/r/{token}/{n}/submit", csrf, {"score": score})
            assert status == 200
    page = client.get(f"/o/{org}").text
    assert "6 of 6 ratings submitted" in page
    assert re.search(r'<b id="alpha">1\.000</b>', page)
    for rater in session.raters:
        assert re.search(rf"<td>{rater}</td><td class=\"num\">2 of 2</td>", page)
    exported = client.get(f"/o/{org}/ratings.csv")
    assert exported.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(exported.text)))
    assert len(rows) == 6
    assert {r["instrument"] for r in rows} == {"2L-1.0.0"}
    assert {(r["game_id"], r["score"]) for r in rows} == {
        ("game-pass", "4"),
        ("game-over-budget", "2"),
        ("game-role-repetition", "1"),
    }
    data = client.get(f"/o/{org}/ratings.json").json()
    assert data["overlap"] == 2 and len(data["ratings"]) == 6
    assert store.ratings().height == 6


def test_the_organiser_sees_who_started_a_game_and_when_they_last_saved(
    served: tuple[TestClient, Session, RatingStore],
) -> None:
    client, session, _store = served
    token = session.raters["ana"]
    csrf = _csrf(client, f"/r/{token}/1")
    status, _ = _save(client, f"/r/{token}/1/draft", csrf, {"score": 2, "notes": "hmm"})
    assert status == 200
    page = client.get(f"/o/{session.organiser_token}").text
    row = re.search(r"<tr><td>ana</td>.*?</tr>", page, re.S)
    assert row is not None
    cells = re.findall(r"<td[^>]*>(.*?)</td>", row.group(0), re.S)
    assert cells[1] == "0 of 2" and cells[2] == "1"  # submitted, started
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", cells[4])  # last saved
    ben = re.search(r"<tr><td>ben</td>.*?</tr>", page, re.S)
    assert ben is not None and "<td>never</td>" in ben.group(0)


def test_the_organisers_backup_holds_a_raters_unsubmitted_draft_and_restores_it(
    served: tuple[TestClient, Session, RatingStore], tmp_path: Path
) -> None:
    import zipfile

    client, session, _store = served
    token = session.raters["ana"]
    csrf = _csrf(client, f"/r/{token}/1")
    status, _ = _save(client, f"/r/{token}/1/draft", csrf, {"score": 3, "notes": "half-typed"})
    assert status == 200
    org = session.organiser_token
    assert 'href="/o/' + org + '/backup.zip"' in client.get(f"/o/{org}").text
    got = client.get(f"/o/{org}/backup.zip")
    assert got.status_code == 200 and got.headers["content-type"] == "application/zip"
    assert re.match(r'attachment; filename="ratings-backup-\d{8}T\d{6}Z\.zip"',
                    got.headers["content-disposition"])  # fmt: skip
    archive = tmp_path / "download.zip"
    archive.write_bytes(got.content)
    with zipfile.ZipFile(archive) as zipped:
        assert "drafts.parquet" in zipped.namelist()
    fresh = RatingStore(tmp_path / "moved.db")
    fresh.restore(archive)
    draft = fresh.draft("ana", session.queues["ana"][0])
    assert draft is not None and (draft.score, draft.notes) == (3, "half-typed")
    # only the organiser's token opens it
    assert client.get(f"/o/{token}/backup.zip").status_code == 404
    assert client.get("/o/not-a-token/backup.zip").status_code == 404


def test_the_bare_address_says_nothing_about_the_session(
    served: tuple[TestClient, Session, RatingStore],
) -> None:
    client, session, _store = served
    page = client.get("/").text
    assert "private link" in page
    assert not any(t in page for t in [*session.raters.values(), session.organiser_token])
    assert not any(r in page for r in session.raters)


def test_a_store_that_refuses_is_a_503_that_names_no_path_to_the_rater(
    served: tuple[TestClient, Session, RatingStore],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from toolkit.errors import InputError

    client, session, store = served
    token = session.raters["ana"]
    csrf = _csrf(client, f"/r/{token}/1")

    def refuse(*args: object, **kwargs: object) -> None:
        raise InputError(str(store.path), "ratings store error (disk I/O error)")

    monkeypatch.setattr(store, "save_many", refuse)
    status, body = _save(client, f"/r/{token}/1/draft", csrf, {"score": 3})
    assert status == 503
    assert body == {"error": "the ratings store could not save: tell your organiser"}
    err = capsys.readouterr().err
    assert "disk I/O error" in err and token not in err


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner),
    max_leaves=12,
)
_BODIES = st.one_of(
    _JSON,
    st.fixed_dictionaries(
        {},
        optional={
            "score": _JSON,
            "answers": st.one_of(
                _JSON,
                st.dictionaries(
                    st.sampled_from([*(q.key for q in DEFAULT_ENGAGEMENT_SCALE.questions), "x"]),
                    _JSON,
                ),
            ),
            "notes": _JSON,
        },
    ),
)


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(body=_BODIES, action=st.sampled_from(["draft", "submit"]))
def test_any_json_body_is_saved_or_refused_with_a_reason_never_a_server_error(
    served: tuple[TestClient, Session, RatingStore], body: object, action: str
) -> None:
    client, session, store = served
    token = session.raters["chidi"]
    csrf = _csrf(client, f"/r/{token}/1")
    before = (store.events().height, store.drafts().to_dicts())
    status, answer = _save(client, f"/r/{token}/1/{action}", csrf, body)
    assert status in (200, 422), (status, answer)
    if status == 422:
        assert isinstance(answer["error"], str) and answer["error"]
        assert (store.events().height, store.drafts().to_dicts()) == before
    else:
        draft = store.draft("chidi", session.queues["chidi"][0])
        assert draft is not None and isinstance(body, dict)
        assert draft.score == body.get("score")
