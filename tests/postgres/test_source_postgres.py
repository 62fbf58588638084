"""PostgresSource against a real server: read-only, typed batches, bound filters,
redaction and one-line errors (the interface in PG_INTERFACE.md)."""

from __future__ import annotations

import socket
import time
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

import polars as pl
import pytest
from pg_cluster import Cluster

from toolkit.errors import InputError
from toolkit.io.source import open_source
from toolkit.io.source_postgres import PostgresSource, redact_uri

SQL = """
CREATE TABLE "Thing" (
    id text PRIMARY KEY,
    n int,
    big bigint,
    x double precision,
    flag boolean,
    at timestamptz,
    plain timestamp(3),
    tags text[],
    doc jsonb,
    uid uuid
);
INSERT INTO "Thing" VALUES
 ('a', 1, 10000000000, 0.5, true, '2026-11-01 12:00:00+01', '2026-11-01 12:00:00.123',
  ARRAY['x','y'], '{"k": [1, 2]}', 'c0a80101-0000-4000-8000-000000000001'),
 ('b', 2, NULL, NULL, false, NULL, NULL, NULL, NULL, NULL),
 ('c', 3, 7, -1.25, NULL, '2026-11-02 00:00:00+00', NULL, '{}', '[]', NULL);
INSERT INTO "Thing" (id, n) SELECT 'r' || i, 100 + i FROM generate_series(1, 2500) i;
CREATE TABLE lower_case (id int, "Mixed Name" text);
"""


@pytest.fixture(scope="module")
def guest(pg_server: Cluster, tmp_path_factory: pytest.TempPathFactory) -> str:
    file = tmp_path_factory.mktemp("sql") / "thing.sql"
    file.write_text(SQL)
    return pg_server.make_database("things", [file])


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # closed again when the block ends


# -- opening and naming ----------------------------------------------------------------


def test_open_source_routes_both_schemes_without_contacting() -> None:
    for url in ("postgresql://u:pw@127.0.0.1:1/db", "postgres://u:pw@127.0.0.1:1/db"):
        src = open_source(url)
        assert isinstance(src, PostgresSource)
        assert src.kind() == "database"
        assert "pw" not in src.url()


def test_redact_uri_removes_passwords_in_every_form() -> None:
    text = (
        "at postgresql://guest:s3cr%40t@db.example:5432/app?sslmode=require and "
        "postgres://u:p@ss@h/db, conninfo host=h password='a b' user=u, "
        "postgresql://h/db?password=qq&sslmode=disable&sslpassword=kk"
    )
    out = redact_uri(text)
    assert out == (
        "at postgresql://guest@db.example:5432/app?sslmode=require and "
        "postgres://u@h/db, conninfo host=h password=*** user=u, "
        "postgresql://h/db?password=***&sslmode=disable&sslpassword=***"
    )


def test_file_methods_refuse_in_one_line() -> None:
    src = open_source("postgresql://u:pw@127.0.0.1:1/db")
    with pytest.raises(InputError, match="a database holds tables, not files"):
        src.fetch(["x"])
    with pytest.raises(InputError, match="a database holds tables, not files"):
        src.glob("*")
    with pytest.raises(InputError, match="never writes"):
        src.put_many({"x": b""})


def test_prisma_schema_parameter_is_taken_out_for_libpq(guest: str) -> None:
    """Prisma's DATABASE_URL carries ?schema=public, which libpq refuses."""
    with PostgresSource(guest + "?schema=public&connection_limit=5") as src:
        assert "Thing" in src.tables()


# -- reading ------------------------------------------------------------------------


def test_tables_lists_case_sensitive_names_and_columns(guest: str) -> None:
    with PostgresSource(guest) as src:
        tables = src.tables()
    assert tables["Thing"][:3] == ("id", "n", "big")
    assert tables["lower_case"] == ("id", "Mixed Name")


def test_frame_types_each_column_as_documented(guest: str) -> None:
    cols = ["id", "n", "big", "x", "flag", "at", "plain", "tags", "doc", "uid"]
    with PostgresSource(guest) as src:
        df = src.frame("Thing", cols, where=[("id", "in", ["a", "b", "c"])], order_by=["id"])
    assert df.schema == pl.Schema(
        {
            "id": pl.Utf8,
            "n": pl.Int64,
            "big": pl.Int64,
            "x": pl.Float64,
            "flag": pl.Boolean,
            "at": pl.Datetime("us", "UTC"),
            "plain": pl.Datetime("us"),
            "tags": pl.List(pl.Utf8),
            "doc": pl.Utf8,
            "uid": pl.Utf8,
        }
    )
    a = df.row(0, named=True)
    assert a["big"] == 10_000_000_000
    assert a["at"] == datetime(2026, 11, 1, 11, 0, tzinfo=UTC)  # +01 read as UTC
    assert a["plain"] == datetime(2026, 11, 1, 12, 0, 0, 123000)
    assert a["tags"] == ["x", "y"]
    assert a["doc"] == '{"k": [1, 2]}'
    assert a["uid"] == "c0a80101-0000-4000-8000-000000000001"
    assert df["tags"].to_list()[2] == []
    assert df.row(1) == ("b", 2, None, None, False, None, None, None, None, None)


def test_where_operators_bind_values(guest: str) -> None:
    with PostgresSource(guest) as src:
        assert src.frame("Thing", ["id"], where=[("n", "<=", 2)], order_by=["id"])[
            "id"
        ].to_list() == ["a", "b"]
        assert src.frame("Thing", ["n"], where=[("n", ">", 2598)])["n"].to_list() == [2599, 2600]
        injected = src.frame("Thing", ["id"], where=[("id", "=", "a' OR '1'='1")])
        assert injected.height == 0
        assert src.frame("Thing", ["id"], where=[("n", ">=", 10**6)]).schema == {"id": pl.Utf8}


def test_select_streams_bounded_batches(guest: str) -> None:
    with PostgresSource(guest) as src:
        sizes = [b.height for b in src.select("Thing", ["id", "n"], batch_rows=1000)]
    assert sizes == [2000, 503]  # whole fetches of 2,000 rows until a batch is full
    assert sum(sizes) == 2503


def test_two_selects_can_interleave(guest: str) -> None:
    with PostgresSource(guest) as src:
        outer = src.select("Thing", ["id"], where=[("n", "<=", 3)])
        first = next(outer)
        inner = src.frame("lower_case", ["id"])
        assert first.height == 3 and inner.height == 0
        assert list(outer) == []


def test_the_session_is_read_only_even_for_a_superuser(pg_server: Cluster, guest: str) -> None:
    admin = pg_server.dsn("postgres", pg_server.admin_password, "things")
    with PostgresSource(admin) as src:
        con = src.connection()
        with pytest.raises(Exception, match="read-only transaction"), con.transaction():
            con.execute("""INSERT INTO "Thing" (id) VALUES ('zz')""")
        with con.transaction():
            shown = con.execute("SHOW default_transaction_read_only").fetchone()
        assert shown == ("on",)


# -- require -------------------------------------------------------------------------


def test_require_names_the_missing_table_and_the_system(guest: str) -> None:
    with PostgresSource(guest) as src:
        src.require("Thing", ["id", "n"], system="Sys (v1)")
        with pytest.raises(InputError) as err:
            src.require("Vote", ["id"], system="2L (Prisma, PostgreSQL)")
    msg = str(err.value)
    assert "table='Vote'" in msg and "2L (Prisma, PostgreSQL)" in msg and "\n" not in msg


def test_require_names_the_missing_columns(guest: str) -> None:
    with PostgresSource(guest) as src, pytest.raises(InputError) as err:
        src.require("Thing", ["id", "turn", "message"], system="2L (Prisma, PostgreSQL)")
    assert "turn, message" in str(err.value)
    assert "2L (Prisma, PostgreSQL)" in str(err.value)


# -- bad input: one line, the password never shown --------------------------------------


def _refused(url: str, password: str) -> str:
    start = time.monotonic()
    with pytest.raises(InputError) as err, PostgresSource(url) as src:
        src.tables()
    assert time.monotonic() - start < 15
    msg = str(err.value)
    assert "\n" not in msg
    assert password not in msg and quote(password, safe="") not in msg
    return msg


def test_wrong_password(pg_server: Cluster) -> None:
    url = pg_server.dsn("toolkit_guest", "not-the-password", "things")
    msg = _refused(url, "not-the-password")
    assert "refused the login" in msg and "password authentication failed" in msg


def test_missing_database(pg_server: Cluster) -> None:
    msg = _refused(pg_server.guest_dsn("no_such_db"), pg_server.guest_password)
    assert "no such database" in msg


def test_server_down(pg_server: Cluster) -> None:
    port = _closed_port()
    msg = _refused(f"postgresql://u:hunter22@127.0.0.1:{port}/db", "hunter22")
    assert "no server is listening there" in msg
    assert msg.startswith(f"postgresql://u@127.0.0.1:{port}/db: cannot connect")


def test_unknown_host() -> None:
    msg = _refused("postgresql://u:hunter22@no-such-host.invalid/db", "hunter22")
    assert "unknown host" in msg


def test_a_server_that_never_answers_times_out(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as listener:  # accepts the TCP connection, never speaks
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        port = listener.getsockname()[1]
        url = f"postgresql://u:hunter22@127.0.0.1:{port}/db?connect_timeout=2"
        msg = _refused(url, "hunter22")
    assert "cannot connect" in msg and "timeout" in msg


def test_statement_timeout(pg_server: Cluster, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLKIT_STATEMENT_TIMEOUT", "0.5")
    with PostgresSource(pg_server.admin_dsn) as src:
        con = src.connection()
        with pytest.raises(Exception) as err, con.transaction():
            con.execute("SELECT pg_sleep(3)")
        said = src.error(err.value, "cannot read")
    assert "longer than 0.5 s" in str(said) and "TOOLKIT_STATEMENT_TIMEOUT" in str(said)


def test_permission_denied_names_select(pg_server: Cluster, tmp_path: Path) -> None:
    file = tmp_path / "secret.sql"
    file.write_text("CREATE TABLE open (id int);")
    guest = pg_server.make_database("perm", [file])
    pg_server.admin_sql("CREATE TABLE hidden (id int)", database="perm")
    with PostgresSource(guest) as src, pytest.raises(InputError) as err:
        src.frame("hidden", ["id"])
    assert "permission denied" in str(err.value) and "SELECT" in str(err.value)


def test_a_huge_text_cell_is_refused_without_reading_it_whole(
    pg_server: Cluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    file = tmp_path / "huge.sql"
    file.write_text(
        "CREATE TABLE t (id int, body text);"
        "INSERT INTO t VALUES (1, 'short'), (2, repeat('é', 3000000));"
    )
    guest = pg_server.make_database("huge", [file])
    with PostgresSource(guest) as src, pytest.raises(InputError) as err:
        src.frame("t", ["id", "body"])
    msg = str(err.value)
    assert "t.body=" in msg and "limit of 1048576 bytes" in msg and "\n" not in msg
    monkeypatch.setenv("TOOLKIT_MAX_CELL_BYTES", str(7_000_000))
    with PostgresSource(guest) as src:
        assert src.frame("t", ["body"])["body"].str.len_chars().to_list() == [5, 3_000_000]


def test_each_transaction_sets_its_own_timeout_as_behind_a_transaction_pooler(
    pg_server: Cluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pooler hands a transaction to a server session without the session's SETs: the
    statement timeout is set again in every transaction (SET LOCAL)."""
    file = tmp_path / "slow.sql"
    file.write_text("CREATE VIEW slow AS SELECT 1 AS x FROM pg_sleep(5);")
    guest = pg_server.make_database("slow", [file])
    monkeypatch.setenv("TOOLKIT_STATEMENT_TIMEOUT", "0.5")
    with PostgresSource(guest) as src:
        con = src.connection()
        with con.transaction():  # what another session of the pool would look like
            con.execute("SET statement_timeout = 0")
        start = time.monotonic()
        with pytest.raises(InputError) as err:
            src.frame("slow", ["x"])
    assert time.monotonic() - start < 4
    assert "cannot read table 'slow'" in str(err.value) and "longer than 0.5 s" in str(err.value)
