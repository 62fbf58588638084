"""The organiser's page shows the estimate's interval narrowing as ratings arrive: the
people-only mean without judge scores, the PPI++ estimate with them (informative order:
weighed by each game's probability of being rated)."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from toolkit.load.discussion import load_discussion
from toolkit.rating_server import RatingServer, create_app
from toolkit.ratings.store import RatingStore
from toolkit.ratings.store.draws import Draw
from toolkit.rubrics.discussion import DEFAULT_ENGAGEMENT_SCALE

BASE = "http://127.0.0.1:8866"


def _client(tmp_path: Path, games: Path, draws: list[Draw] | None) -> tuple[
    TestClient, str, RatingStore, list[str]
]:  # fmt: skip
    discussion = load_discussion(games)
    ids = sorted(discussion.game_ids)
    store = RatingStore(tmp_path / "ratings.db")
    order = "informative" if draws and any(d.probability < 1 for d in draws) else None
    session, _ = store.open_session(ids, ["ana"], 1, seed=2, order=order,
                                    draws=draws)  # fmt: skip
    server = RatingServer.build(store, session, discussion, DEFAULT_ENGAGEMENT_SCALE)
    return TestClient(create_app(server), base_url=BASE), session.organiser_token, store, ids


def _rows(page: str) -> list[list[str]]:
    table = page.split('<table class="grid" id="narrowing">', 1)[1].split("</table>", 1)[0]
    return [re.findall(r'<td class="num">([^<]*)</td>', row) for row in table.split("<tr>")[2:]]


def test_before_two_games_are_rated_it_says_not_yet(tmp_path: Path, games: Path) -> None:
    client, org, store, ids = _client(tmp_path, games, None)
    store.submit("ana", ids[0], 4)
    page = html.unescape(client.get(f"/o/{org}").text)
    assert "Not yet: the interval needs two games rated." in page


def test_without_judge_scores_each_row_is_the_people_only_mean_so_far(
    tmp_path: Path, games: Path
) -> None:
    """Scores 4, 2, 3 in that order: after two, mean 3 with sd 1 (over n) so half-width
    1.96 / sqrt(2); after three, mean 3 with sd sqrt(2/3), half-width 1.96 sqrt(2/3)/sqrt(3)."""
    client, org, store, ids = _client(tmp_path, games, None)
    for gid, score in zip(ids, (4, 2, 3), strict=True):
        store.submit("ana", gid, score)
    page = html.unescape(client.get(f"/o/{org}").text)
    assert "The people's mean of the games rated so far" in page
    assert 'id="narrowing-chart"' in page and "<polygon points=" in page
    z = 1.959963984540054
    two, three = z / 2**0.5, z * (2 / 3) ** 0.5 / 3**0.5
    assert _rows(page) == [
        ["2", "2", "3.000", f"[{3 - two:.3f}, {3 + two:.3f}]", f"{2 * two:.3f}"],
        ["3", "3", "3.000", f"[{3 - three:.3f}, {3 + three:.3f}]", f"{2 * three:.3f}"],
    ]


def test_with_judge_scores_it_is_the_ppi_estimate_and_says_the_order(
    tmp_path: Path, games: Path
) -> None:
    """Every game rated: lam is 0 and the estimate is the people's mean weighed by 1/p
    (drawn with 0.5, 0.8, 1, all rated: weights 2, 1.25, 1 on scores 4, 2, 3, so
    (8 + 2.5 + 3) / 4.25 = 3.176), whatever the judge."""
    ids = ["game-over-budget", "game-pass", "game-role-repetition"]
    draws = [Draw(g, p, True, j, 1.0) for g, p, j in zip(ids, (0.5, 0.8, 1.0), (5.0, 4.0, 1.0),
                                                         strict=True)]  # fmt: skip
    client, org, store, got_ids = _client(tmp_path, games, draws)
    assert got_ids == ids
    for gid, score in zip(ids, (4, 2, 3), strict=True):
        store.submit("ana", gid, score)
    page = html.unescape(client.get(f"/o/{org}").text)
    assert "The judge's scores corrected by the ratings so far (PPI++" in page
    assert "informative order: each rated game weighed by the inverse" in page
    assert _rows(page)[-1][:3] == ["3", "3", f"{13.5 / 4.25:.3f}"]


@pytest.mark.parametrize("persona", [False])
def test_the_section_is_one_of_the_page(tmp_path: Path, games: Path, persona: bool) -> None:
    client, org, _store, _ids = _client(tmp_path, games, None)
    page = html.unescape(client.get(f"/o/{org}").text)
    assert page.count("The estimate's interval, as ratings arrive") == 1
