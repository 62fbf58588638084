"""A PostgreSQL database as a :class:`~toolkit.io.source_base.Source`: tables, not files.

``postgresql://`` and ``postgres://`` URLs (:func:`toolkit.io.source.open_source`) open a
:class:`PostgresSource`, a read-only guest in someone's database:

- **libpq's conventions**, because the driver is libpq (psycopg 3): the URI's query
  parameters (``sslmode``, ``sslrootcert``, ``options``, ``application_name``, ...), the
  ``PG*`` environment variables (``PGPASSWORD``, ``PGHOST``, ``PGSSLMODE``, ...),
  ``~/.pgpass`` and ``~/.pg_service.conf``. Prisma's own query parameters, which libpq
  refuses (``schema``, ``pgbouncer``, ``connection_limit``, ...), are taken out first:
  ``schema`` names the schema read (``public`` otherwise, or the ``search_path`` given in
  ``options``), the others only tune Prisma's pool and are ignored.
- **Read-only**: every session runs with ``default_transaction_read_only = on`` and every
  transaction is opened ``READ ONLY``; a role with SELECT only is enough.
- **Deadlines**: a connect timeout (the URI's ``connect_timeout``, else
  ``PGCONNECT_TIMEOUT``, else the toolkit's connect deadline ``TOOLKIT_CONNECT_TIMEOUT``,
  5 s) and a statement timeout on each statement (``TOOLKIT_STATEMENT_TIMEOUT``, 60 s).
- **The password is never shown**: :meth:`PostgresSource.url` is the URI without it, and
  every error passes :func:`redact_uri` and has the password itself scrubbed. Errors are
  one-line :class:`~toolkit.errors.InputError` naming the redacted URI.
- **Streaming**: :meth:`PostgresSource.select` reads through a server-side cursor in
  batches held to a row count and a byte budget, each a Polars frame; text cells are held
  to the reading edge's cell limit (``TOOLKIT_MAX_CELL_BYTES``) in the query itself, so a
  huge cell is refused without being transferred whole.

Nothing is contacted until a table is asked for.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import os
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

import polars as pl
import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict
from psycopg.types.numeric import FloatLoader

from toolkit.errors import InputError
from toolkit.io import edge
from toolkit.io.network import deadlines
from toolkit.io.source import is_postgres_url, redact_uri
from toolkit.io.source_base import Folder, Kind, Source

__all__ = [
    "STATEMENT_ENV",
    "PostgresSource",
    "is_postgres_url",
    "redact_uri",
]

#: Seconds one SQL statement may run (``TOOLKIT_STATEMENT_TIMEOUT``, default 60).
STATEMENT_ENV = "TOOLKIT_STATEMENT_TIMEOUT"
DEFAULT_STATEMENT = 60.0

#: Query parameters of Prisma's connection URLs that libpq does not know: ``schema`` is
#: used (the schema read); the rest tune Prisma's pool and are ignored.
PRISMA_PARAMETERS = frozenset(
    {"schema", "pgbouncer", "connection_limit", "pool_timeout", "socket_timeout",
     "statement_cache_size", "sslaccept", "sslidentity"}
)  # fmt: skip

_NOT_FILES = "a database holds tables, not files"
_ROWS_PER_FETCH = 2_000
_BATCH_BYTES = 64 * 1024 * 1024

_CURSORS = itertools.count()
_OPS = frozenset({"=", "<", "<=", ">", ">=", "in"})

#: PostgreSQL type name -> the Polars type of its column (others: text).
_DTYPES: dict[str, pl.DataType] = {
    "bool": pl.Boolean(),
    "int2": pl.Int64(),
    "int4": pl.Int64(),
    "int8": pl.Int64(),
    "float4": pl.Float64(),
    "float8": pl.Float64(),
    "numeric": pl.Float64(),
    "timestamp": pl.Datetime("us"),
    "timestamptz": pl.Datetime("us", "UTC"),
    "date": pl.Date(),
    "_text": pl.List(pl.Utf8()),
    "_varchar": pl.List(pl.Utf8()),
    "_int4": pl.List(pl.Int64()),
    "_int8": pl.List(pl.Int64()),
}


def _statement_seconds() -> float:
    raw = os.environ.get(STATEMENT_ENV, "").strip()
    try:
        value = float(raw)
    except ValueError:
        return DEFAULT_STATEMENT
    return value if 0 < value < 86_400 else DEFAULT_STATEMENT


def _split_prisma(url: str) -> tuple[str, str | None]:
    """The URL without Prisma's own query parameters, and the ``schema`` it names."""
    parts = urlsplit(url)
    if not parts.query:
        return url, None
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    kept = [(k, v) for k, v in pairs if k not in PRISMA_PARAMETERS]
    if len(kept) == len(pairs):
        return url, None
    schema = next((v for k, v in pairs if k == "schema" and v), None)
    query = urlencode(kept, quote_via=quote)
    return urlunsplit(parts._replace(query=query)), schema


class PostgresSource(Source):
    """A PostgreSQL database read by a read-only guest (see the module's docstring).

    Attributes:
        root: the URI without its password (what every message shows).
    """

    def __init__(self, url: str) -> None:
        self._raw = url
        self.root = redact_uri(url)
        self._conninfo, self._schema = _split_prisma(url)
        self._secrets: list[str] = []
        try:
            params = conninfo_to_dict(self._conninfo)
        except psycopg.Error as exc:
            raise InputError(self.root, f"not a PostgreSQL URI ({self._said(exc)})") from None
        for key in ("password", "sslpassword"):
            secret = str(params.get(key) or "")
            if secret:
                self._secrets += [secret, quote(secret, safe=""), secret.strip()]
        self._params = params
        self._con: psycopg.Connection[Any] | None = None
        self._columns: dict[str, dict[str, str]] | None = None

    # -- naming -------------------------------------------------------------------

    @property
    def name(self) -> str:
        """The database's name (``PGDATABASE`` or the user's name when the URI has none)."""
        db = self._params.get("dbname") or os.environ.get("PGDATABASE")
        return str(db or self._params.get("user") or os.environ.get("PGUSER") or "postgres")

    def url(self, path: str | None = None) -> str:
        """The URI without its password (a table's name after ``#`` when given)."""
        return self.root if path is None else f"{self.root}#{path}"

    def join(self, folder: str, *names: str) -> str:
        raise InputError(self.root, _NOT_FILES)

    def lookup(self, folder: str, ref: str) -> str | None:
        return None

    def at(self, path: str) -> Source:
        raise InputError(self.root, _NOT_FILES)

    def identity(self, path: str | None = None) -> str:
        return self.url(path)

    def absolute(self, path: str | None = None) -> str:
        return self.url(path)

    def same_store(self, other: Source) -> bool:
        return isinstance(other, PostgresSource) and other.root == self.root

    # -- not a folder of files ------------------------------------------------------

    def kind(self, path: str | None = None) -> Kind:
        """``"database"``: a database holds tables, not files."""
        return "database"

    def subfolders(self, path: str | None = None) -> list[str]:
        raise InputError(self.root, _NOT_FILES)

    def glob(self, pattern: str) -> list[str]:
        raise InputError(self.root, _NOT_FILES)

    def list_many(
        self, roots: Sequence[str], subs: Sequence[str] = ("",), *, marks: bool = True
    ) -> list[dict[str, Folder]]:
        raise InputError(self.root, _NOT_FILES)

    def fetch(self, paths: Sequence[str]) -> dict[str, bytes | InputError]:
        raise InputError(self.root, _NOT_FILES)

    def fetch_some(self, paths: Sequence[str], budget: int) -> list[bytes | InputError]:
        raise InputError(self.root, _NOT_FILES)

    def put_many(
        self, files: Mapping[str, bytes], *, durable: bool = True, own_folders: bool = False
    ) -> dict[str, OSError | InputError]:
        raise InputError(self.root, "read-only: the toolkit never writes to a database")

    def remove_many(self, paths: Sequence[str]) -> None:
        raise InputError(self.root, "read-only: the toolkit never writes to a database")

    # -- errors ---------------------------------------------------------------------

    def _scrub(self, text: str) -> str:
        text = redact_uri(text)
        for secret in self._secrets:
            if secret:
                text = text.replace(secret, "***")
        return text

    def _said(self, exc: BaseException) -> str:
        lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
        text = "; ".join(lines) or type(exc).__name__
        text = text.removeprefix("connection failed: ")
        return self._scrub(text)[:300]

    def error(self, exc: BaseException, what: str) -> InputError:
        """A driver failure as a one-line :class:`InputError` naming the redacted URI."""
        said = self._said(exc)
        code = getattr(exc, "sqlstate", None) or ""
        if code == "57014" or "statement timeout" in said:
            reason = (
                f"{what}: the statement ran longer than {_statement_seconds():g} s "
                f"(raise {STATEMENT_ENV})"
            )
        elif code in ("28P01", "28000") or "password authentication failed" in said:
            reason = f"{what}: the server refused the login ({said})"
        elif code == "3D000" or ("database" in said and "does not exist" in said):
            reason = f"{what}: no such database ({said})"
        elif code == "42501":
            reason = f"{what}: permission denied ({said}); the role needs SELECT on it"
        elif "timeout expired" in said or "timed out" in said:
            reason = f"{what}: no answer within the connect timeout ({said})"
        elif "translate host name" in said or "Name or service not known" in said:
            reason = f"{what}: unknown host ({said})"
        elif "Connection refused" in said:
            reason = f"{what}: no server is listening there ({said})"
        else:
            reason = f"{what} ({said})"
        return InputError(self.root, reason)

    # -- the connection -----------------------------------------------------------

    def _connect_timeout(self) -> int | None:
        if self._params.get("connect_timeout") or os.environ.get("PGCONNECT_TIMEOUT"):
            return None  # libpq's own setting, as the user gave it
        return max(2, math.ceil(deadlines().connect))

    def connection(self) -> psycopg.Connection[Any]:
        """The open session (opened on first use): read-only, UTC, statement timeout.

        Raises:
            InputError: the server cannot be reached or refuses the login.
        """
        if self._con is not None and not self._con.closed:
            return self._con
        extra: dict[str, Any] = {"application_name": "toolkit"}
        if self._params.get("application_name"):
            extra.pop("application_name")
        timeout = self._connect_timeout()
        if timeout is not None:
            extra["connect_timeout"] = timeout
        try:
            # prepare_threshold=None: no prepared statements, which a transaction pooler
            # (PgBouncer, Supabase's port 6543) cannot keep across transactions
            con = psycopg.connect(self._conninfo, autocommit=True, prepare_threshold=None, **extra)
        except psycopg.Error as exc:
            raise self.error(exc, "cannot connect") from None
        try:
            con.execute("SET default_transaction_read_only = on")
            con.execute(self._settings("SET"))
        except psycopg.Error as exc:
            con.close()
            raise self.error(exc, "cannot set up a read-only session") from None
        con.autocommit = False
        con.read_only = True  # every transaction BEGIN … READ ONLY, too
        # numeric as float (its column is Float64): a Decimal of NaN or beyond a double
        # made Polars panic building the frame (a traceback, not a line naming the cell)
        con.adapters.register_loader("numeric", FloatLoader)
        self._con = con
        return con

    def _settings(self, verb: str) -> sql.Composed:
        """The statement timeout, UTC and the schema, as ``SET`` (the session) or ``SET
        LOCAL`` (each transaction: a transaction pooler may hand every transaction to
        another server session, which has none of the session's settings)."""
        ms = int(_statement_seconds() * 1000)
        parts = [
            sql.SQL(verb + " statement_timeout = {}").format(sql.Literal(ms)),
            sql.SQL(verb + " TIME ZONE 'UTC'"),
        ]
        if self._schema:
            parts.append(sql.SQL(verb + " search_path = {}").format(sql.Identifier(self._schema)))
        return sql.SQL("; ").join(parts)

    @contextlib.contextmanager
    def _transaction(self, con: psycopg.Connection[Any]) -> Iterator[None]:
        """A read-only transaction with the settings of :meth:`_settings`."""
        with con.transaction():
            con.execute(self._settings("SET LOCAL"))
            yield

    def close(self) -> None:
        """Close the session (a later call opens a new one)."""
        if self._con is not None:
            self._con.close()
            self._con = None

    def __enter__(self) -> PostgresSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- tables -------------------------------------------------------------------

    def _catalog(self) -> dict[str, dict[str, str]]:
        """``{table: {column: type name}}`` of the schema read (the first schema of the
        session's search path: ``public`` unless the URI names another)."""
        if self._columns is not None:
            return self._columns
        query = (
            "SELECT c.relname, a.attname, t.typname "
            "FROM pg_catalog.pg_class c "
            "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
            "JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid "
            "JOIN pg_catalog.pg_type t ON t.oid = a.atttypid "
            "WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'v', 'm', 'p', 'f') "
            "AND a.attnum > 0 AND NOT a.attisdropped ORDER BY c.relname, a.attnum"
        )
        con = self.connection()
        try:
            with self._transaction(con):
                rows = con.execute(query).fetchall()
        except psycopg.Error as exc:
            raise self.error(exc, "cannot list the tables") from None
        out: dict[str, dict[str, str]] = {}
        for table, column, type_name in rows:
            out.setdefault(table, {})[column] = type_name
        self._columns = out
        return out

    def tables(self) -> dict[str, tuple[str, ...]]:
        """Table (or view) name, case-sensitive -> its column names, in order.

        Raises:
            InputError: the database cannot be read.
        """
        return {table: tuple(cols) for table, cols in self._catalog().items()}

    def require(self, table: str, columns: Iterable[str], *, system: str) -> None:
        """Check that ``table`` has ``columns``.

        Raises:
            InputError: one line naming the missing table or the missing columns, and
                ``system`` (the system and version that has them).
        """
        catalog = self._catalog()
        if table not in catalog:
            raise InputError(
                self.root, f"no such table in this database ({system} keeps one)",
                field="table", value=table,
            )  # fmt: skip
        missing = [c for c in columns if c not in catalog[table]]
        if missing:
            raise InputError(
                self.root,
                f"missing column(s) {', '.join(missing)}: not the table as {system} "
                f"defines it (found: {', '.join(list(catalog[table])[:8])})",
                field="table",
                value=table,
            )

    def _query(
        self,
        table: str,
        columns: Sequence[str],
        where: Sequence[tuple[str, str, Any]],
        order_by: Sequence[str],
    ) -> tuple[sql.Composed, list[Any]]:
        types = self._catalog().get(table)
        if types is None:
            raise InputError(
                self.root, "no such table in this database", field="table", value=table
            )
        unknown = [c for c in [*columns, *(w[0] for w in where), *order_by] if c not in types]
        if unknown:
            raise InputError(
                self.root, f"no column {unknown[0]!r} in this table", field="table", value=table
            )
        limit = edge.limits().max_cell_bytes
        params: list[Any] = []
        picks: list[sql.Composable] = []
        for col in columns:
            if types[col] not in _DTYPES:  # read as text; a huge cell is cut server-side
                picks.append(sql.SQL("left({}::text, %s)").format(sql.Identifier(col)))
                params.append(limit + 1)
            else:
                picks.append(sql.Identifier(col))
        conds: list[sql.Composable] = []
        for col, op, value in where:
            if op not in _OPS:
                raise ValueError(f"unsupported operator {op!r}")
            if op == "in":
                conds.append(sql.SQL("{} = ANY(%s)").format(sql.Identifier(col)))
                params.append(list(value))
            else:
                conds.append(sql.SQL("{} " + op + " %s").format(sql.Identifier(col)))
                params.append(value)
        query = sql.SQL("SELECT {} FROM {}").format(
            sql.SQL(", ").join(picks), sql.Identifier(table)
        )
        if conds:
            query += sql.SQL(" WHERE ") + sql.SQL(" AND ").join(conds)
        if order_by:
            query += sql.SQL(" ORDER BY ") + sql.SQL(", ").join(map(sql.Identifier, order_by))
        return query, params

    def select(
        self,
        table: str,
        columns: Sequence[str],
        *,
        where: Sequence[tuple[str, str, Any]] = (),
        order_by: Sequence[str] = (),
        batch_rows: int = 50_000,
    ) -> Iterator[pl.DataFrame]:
        """Stream ``columns`` of ``table`` as Polars frames of at most ``batch_rows`` rows
        (and about 64 MiB), through a server-side cursor in a read-only transaction.

        ``where`` items are ``(column, op, value)``, ``op`` one of ``=``, ``<``, ``<=``,
        ``>``, ``>=`` or ``in`` (``value`` a list, sent as ``= ANY(%s)``); values are
        always bound parameters, identifiers always quoted. Column types: integers Int64,
        reals and numeric Float64, bool Boolean, ``timestamptz`` Datetime(us, UTC),
        ``timestamp`` Datetime(us) without a zone (as stored), date Date, ``text[]``
        List(Utf8); json and jsonb as their text (parse it through the reading edge),
        uuid, enums and every other type as text.

        Raises:
            InputError: a missing table or column, a text cell over the reading edge's
                cell limit (``TOOLKIT_MAX_CELL_BYTES``; named by table, column and row),
                a statement timeout, a lost connection, a permission refused.
        """
        query, params = self._query(table, columns, where, order_by)
        types = self._catalog()[table]
        schema = {c: _DTYPES.get(types[c], pl.Utf8()) for c in columns}
        con = self.connection()
        pending: list[pl.DataFrame] = []
        rows, size = 0, 0.0
        try:
            with self._transaction(con), con.cursor(name=f"toolkit_{next(_CURSORS)}") as cur:
                cur.execute(query, params)
                while chunk := cur.fetchmany(_ROWS_PER_FETCH):
                    frame = self._frame(table, schema, chunk)
                    pending.append(frame)
                    rows += frame.height
                    size += frame.estimated_size()
                    if rows >= batch_rows or size >= _BATCH_BYTES:
                        yield pl.concat(pending)
                        pending, rows, size = [], 0, 0.0
        except psycopg.DataError as exc:  # a value the driver cannot load ('infinity')
            raise self._value_error(exc, table, schema) from None
        except psycopg.Error as exc:
            raise self.error(exc, f"cannot read table {table!r}") from None
        if pending:
            yield pl.concat(pending)

    def _value_error(
        self, exc: psycopg.DataError, table: str, schema: Mapping[str, pl.DataType]
    ) -> InputError:
        """A cell the driver cannot load as its column's type (a timestamp of
        ``infinity``, a year beyond 9999): one line naming the table and, when one column
        of that kind was read, the column."""
        said = self._said(exc)
        kinds = (pl.Datetime, pl.Date) if "date" in said or "timestamp" in said else ()
        columns = [c for c, t in schema.items() if kinds and isinstance(t, kinds)]
        field = f"{table}.{columns[0]}" if len(columns) == 1 else f"table {table!r}"
        quoted = re.search(r"'([^']*)'\s*$", said)  # psycopg ends with the value, quoted
        return InputError(
            self.root, f"a value this reader cannot hold ({said})", field=field,
            value=quoted.group(1) if quoted else None,
        )  # fmt: skip

    def _frame(
        self, table: str, schema: Mapping[str, pl.DataType], chunk: list[tuple[Any, ...]]
    ) -> pl.DataFrame:
        """Rows as a frame; a text cell cut at the limit is refused (one line naming the
        table, the column and the start of the value)."""
        try:
            frame = pl.DataFrame(chunk, schema=dict(schema), orient="row")
        except (TypeError, ValueError, OverflowError, pl.exceptions.PolarsError,
                pl.exceptions.PanicException) as exc:  # fmt: skip
            said = " ".join(str(exc).split())[:120]
            raise InputError(
                self.root, f"a value of an unexpected type ({said})", field="table", value=table
            ) from None
        limit = edge.limits().max_cell_bytes
        for col, dtype in schema.items():
            if dtype != pl.Utf8():
                continue
            over = frame.get_column(col).str.len_bytes() > limit
            if over.any():
                row = int(over.arg_true()[0])
                raise InputError(
                    self.root,
                    f"a text cell over the reading edge's limit of {limit} bytes "
                    f"(raise TOOLKIT_MAX_CELL_BYTES to read it)",
                    field=f"{table}.{col}",
                    value=frame[col][row][:40] + "…",
                )
        return frame

    def frame(
        self,
        table: str,
        columns: Sequence[str],
        *,
        where: Sequence[tuple[str, str, Any]] = (),
        order_by: Sequence[str] = (),
        batch_rows: int = 50_000,
    ) -> pl.DataFrame:
        """Every batch of :meth:`select` in one frame (an empty frame with the columns'
        types when no row matches)."""
        parts = list(
            self.select(table, columns, where=where, order_by=order_by, batch_rows=batch_rows)
        )
        if parts:
            return pl.concat(parts)
        types = self._catalog()[table]
        return pl.DataFrame(schema={c: _DTYPES.get(types[c], pl.Utf8()) for c in columns})
