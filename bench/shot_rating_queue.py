"""The picture docs/rating_queue.png: the organiser's "interval, as ratings arrive"
section of a planted informative session, in Chromium (Playwright).

Usage:
    python bench/shot_rating_queue.py [docs/rating_queue.png]

400 synthetic games (people's score rounded Normal(3.2, 0.9) on 1-5; a judge +0.6 too high,
off by sd 0.2, or 1.5 on the 10 % it flags), a budget of 60 drawn in the informative order
(seed 9), every drawn game rated by one of two raters. The server runs in a child process
on 127.0.0.1 (a free port); the games' transcripts are the sample's three, so the others are
listed as "not in the folder" further down the page (not in the picture).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from playwright.sync_api import sync_playwright

from toolkit.load.discussion import load_discussion
from toolkit.rating_server import RatingServer, create_app
from toolkit.rating_server.run import bind_socket, serve
from toolkit.ratings.informative import informative_probabilities, poisson_draw
from toolkit.ratings.store import RatingStore
from toolkit.ratings.store.draws import Draw
from toolkit.rubrics.discussion import DEFAULT_ENGAGEMENT_SCALE

ROOT = Path(__file__).resolve().parent.parent


def build_and_serve(store_path: str) -> None:
    """The child: make the session, print the organiser token and the port, serve."""
    rng = np.random.default_rng(4)
    n = 400
    ids = [f"game-{k:03d}" for k in range(n)]
    u = np.where(rng.random(n) < 0.1, 1.5, 0.2)
    truth = rng.normal(3.2, 0.9, n)
    judge = np.clip(truth + 0.6 + rng.normal(0, u), 1, 5)
    people = np.clip(np.rint(truth), 1, 5)
    probs = informative_probabilities({i: float(x) for i, x in zip(ids, u, strict=True)}, 60)
    drawn = poisson_draw(probs, 9)
    draws = [Draw(i, probs[i], i in drawn, float(j), float(e))
             for i, j, e in zip(ids, judge, u, strict=True)]  # fmt: skip
    store = RatingStore(store_path)
    session, _ = store.open_session(ids, ["ana", "ben"], 1, seed=9, order="informative",
                                    draws=draws)  # fmt: skip
    score = dict(zip(ids, people, strict=True))
    for rater, queue in session.queues.items():
        for gid in queue:
            store.submit(rater, gid, int(score[gid]))
    discussion = load_discussion(ROOT / "sample_runs" / "discussions")
    server = RatingServer.build(store, session, discussion, DEFAULT_ENGAGEMENT_SCALE)
    sock = bind_socket("127.0.0.1", 0)
    print(session.organiser_token, sock.getsockname()[1], flush=True)
    serve(create_app(server), sock)


def main() -> None:
    """Start the child, take the picture of the section, stop the child."""
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "rating_queue.png"
    with tempfile.TemporaryDirectory() as tmp:
        child = subprocess.Popen(
            [sys.executable, __file__, "--serve", str(Path(tmp) / "ratings.db")],
            stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            assert child.stdout is not None
            token, port = child.stdout.readline().split()
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                            args=["--no-sandbox", "--disable-gpu"])  # fmt: skip
                page = browser.new_page(viewport={"width": 900, "height": 1000})
                page.goto(f"http://127.0.0.1:{port}/o/{token}")
                top = page.locator("h2", has_text="as ratings arrive").bounding_box()
                table = page.locator("#narrowing").bounding_box()
                assert top is not None and table is not None
                height = table["y"] + table["height"] - top["y"] + 20
                page.screenshot(path=str(out), clip={"x": 0, "y": top["y"] - 10,
                                                     "width": 900, "height": height})  # fmt: skip
                browser.close()
        finally:
            child.terminate()
            child.wait(timeout=10)
    print(f"wrote {out}")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--serve":
        build_and_serve(sys.argv[2])
    else:
        main()
