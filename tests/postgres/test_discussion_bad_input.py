"""Bad input from a 2L PostgreSQL database, each against the real server: one line on
stderr, exit 2, the URI shown without its password, no traceback, within the deadlines;
and libpq's own ways of giving the password (PGPASSWORD, ~/.pgpass) accepted."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

from pg_cluster import GUEST, Cluster

ROOT = Path(__file__).resolve().parents[2]
SQL = ROOT / "sample_runs" / "discussions" / "2l-postgres.sql"
CLI = "import sys; from toolkit.cli import main; sys.exit(main(sys.argv[1:]))"
SYSTEM = "2L (Prisma, PostgreSQL)"


def run_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", CLI, *args],
        capture_output=True, text=True, timeout=120, cwd=ROOT, env=env,
    )  # fmt: skip


def refused(url: str, secret: str, tmp_path: Path, *extra: str) -> str:
    """Run ``toolkit discussion URL`` with JSON output and a JUnit file; check the refusal
    is one line, exit 2, no traceback, quick, and never shows ``secret``; return it."""
    junit = tmp_path / "junit.xml"
    start = time.monotonic()
    done = run_cli("discussion", url, "--format", "json", "--junit", str(junit), *extra)
    assert time.monotonic() - start < 60
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    written = junit.read_text() if junit.exists() else ""
    for text in (done.stdout, done.stderr, written):
        assert secret not in text and quote(secret, safe="") not in text
    assert lines[0].startswith("toolkit discussion: error: postgresql://")
    return lines[0]


def db_with(pg_server: Cluster, name: str, tmp_path: Path, sql: str) -> str:
    """A database of the 2L sample changed by ``sql`` (run after it)."""
    change = tmp_path / f"{name}.sql"
    change.write_text(sql)
    return pg_server.make_database(name, [SQL, change])


# -- the server, the login, the database ------------------------------------------------------


def test_wrong_password(pg_server: Cluster, tmp_path: Path) -> None:
    pg_server.make_database("bad_pw", [SQL])
    url = pg_server.dsn(GUEST, "Wr0ng-Secret", "bad_pw")
    line = refused(url, "Wr0ng-Secret", tmp_path)
    assert f"postgresql://{GUEST}@127.0.0.1:{pg_server.port}/bad_pw: cannot connect" in line
    assert "refused the login" in line and "password authentication failed" in line


def test_unknown_host(tmp_path: Path) -> None:
    line = refused("postgresql://guest:Hunter-22@no-such-host.invalid/db", "Hunter-22", tmp_path)
    assert "postgresql://guest@no-such-host.invalid/db: cannot connect: unknown host" in line


def test_server_down(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    line = refused(f"postgresql://guest:Hunter-22@127.0.0.1:{port}/db", "Hunter-22", tmp_path)
    assert "no server is listening there" in line


def test_missing_database(pg_server: Cluster, tmp_path: Path) -> None:
    line = refused(pg_server.guest_dsn("no_such_game_db"), pg_server.guest_password, tmp_path)
    assert "no such database" in line and "no_such_game_db" in line


# -- not 2L's tables ------------------------------------------------------------------------


def test_missing_table(pg_server: Cluster, tmp_path: Path) -> None:
    url = db_with(pg_server, "no_msgs", tmp_path, 'DROP TABLE "DiscussionMessage";')
    line = refused(url, pg_server.guest_password, tmp_path)
    assert "table='DiscussionMessage'" in line and SYSTEM in line


def test_missing_column(pg_server: Cluster, tmp_path: Path) -> None:
    url = db_with(pg_server, "no_turn", tmp_path, 'ALTER TABLE "DiscussionMessage" DROP "turn";')
    line = refused(url, pg_server.guest_password, tmp_path)
    assert "table='DiscussionMessage'" in line and "missing column(s) turn" in line
    assert SYSTEM in line


def test_a_table_of_another_shape(pg_server: Cluster, tmp_path: Path) -> None:
    url = db_with(
        pg_server, "other_game", tmp_path,
        'DROP TABLE "Game" CASCADE; CREATE TABLE "Game" (id serial, title text, payload jsonb);',
    )  # fmt: skip
    line = refused(url, pg_server.guest_password, tmp_path)
    assert "table='Game'" in line
    assert "missing column(s) status, roundNumber, playerCount, createdAt" in line
    assert "found: id, title, payload" in line and SYSTEM in line


def test_a_value_of_the_wrong_type(pg_server: Cluster, tmp_path: Path) -> None:
    url = db_with(
        pg_server, "text_round", tmp_path,
        'ALTER TABLE "DiscussionMessage" ALTER "roundNumber" TYPE text;'
        """UPDATE "DiscussionMessage" SET "roundNumber" = 'two' WHERE id = 'base-7-2-m07';""",
    )  # fmt: skip
    line = refused(url, pg_server.guest_password, tmp_path)
    assert "Game[base-7-2].discussionMessages.6.roundNumber='two'" in line


def test_a_time_that_is_no_time(pg_server: Cluster, tmp_path: Path) -> None:
    url = db_with(
        pg_server, "text_time", tmp_path,
        'ALTER TABLE "Game" ALTER "createdAt" TYPE text;'
        """UPDATE "Game" SET "createdAt" = 'yesterday' WHERE id = 'base-7-3';""",
    )  # fmt: skip
    line = refused(url, pg_server.guest_password, tmp_path)
    assert "Game.2.createdAt='yesterday': not an ISO-8601 timestamp" in line


def test_a_huge_text_cell(pg_server: Cluster, tmp_path: Path) -> None:
    url = db_with(
        pg_server, "huge_msg", tmp_path,
        """UPDATE "DiscussionMessage" SET message = repeat('blah ', 400000)
           WHERE id = 'base-7-1-m03';""",
    )  # fmt: skip
    line = refused(url, pg_server.guest_password, tmp_path)
    assert "DiscussionMessage.message='blah blah" in line
    assert "over the reading edge's limit of 1048576 bytes" in line


def test_a_role_without_select(pg_server: Cluster, tmp_path: Path) -> None:
    url = pg_server.make_database("no_grant", [SQL])
    pg_server.admin_sql(f'REVOKE SELECT ON "Vote" FROM {GUEST}', database="no_grant")
    line = refused(url, pg_server.guest_password, tmp_path)
    assert "permission denied for table Vote" in line and "needs SELECT" in line


# -- libpq's ways of giving the password ------------------------------------------------------


def test_pgpassword_and_pgpass_are_used(pg_server: Cluster, tmp_path: Path) -> None:
    pg_server.make_database("libpq_ways", [SQL])
    bare = f"postgresql://{GUEST}@127.0.0.1:{pg_server.port}/libpq_ways?sslmode=disable"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    with_env = run_cli("discussion", bare, "--format", "json",
                       env={**env, "PGPASSWORD": pg_server.guest_password})  # fmt: skip
    assert with_env.returncode in (0, 1), with_env.stderr
    home = tmp_path / "home"
    home.mkdir()
    pgpass = home / ".pgpass"
    escaped = re.sub(r"([:\\])", r"\\\1", pg_server.guest_password)
    pgpass.write_text(f"127.0.0.1:{pg_server.port}:libpq_ways:{GUEST}:{escaped}\n")
    pgpass.chmod(0o600)
    with_file = run_cli("discussion", bare, "--format", "json", env={**env, "HOME": str(home)})
    assert with_file.returncode in (0, 1), with_file.stderr
    assert with_env.stdout == with_file.stdout and '"base-7-1"' in with_file.stdout
    for done in (with_env, with_file):
        assert pg_server.guest_password not in done.stdout + done.stderr
