"""A throwaway PostgreSQL cluster for tests and benchmarks (never a mock).

Debian's ``postgresql`` package puts the server in ``/usr/lib/postgresql/<major>/bin``;
nothing of the distribution's own cluster is used. :class:`Cluster` runs ``initdb`` and
``pg_ctl`` in a temporary folder, as the ``postgres`` system user when this process runs as
root (the server refuses to run as root), listens on 127.0.0.1 at a free port with password
(SCRAM-SHA-256) authentication for every TCP connection, and keeps its Unix socket inside
the temporary folder (so it never collides with a system cluster). :meth:`Cluster.stop`
stops the server and removes the folder.

Roles: the superuser ``postgres`` (its password in :attr:`Cluster.admin_dsn`) and a
read-only guest (``LOGIN``, SELECT only on each database made by
:meth:`Cluster.make_database`), the role the toolkit is meant to be given.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import quote

__all__ = ["GUEST", "Cluster", "server_bin"]

#: The read-only guest's role name.
GUEST = "toolkit_guest"


def server_bin() -> Path | None:
    """The newest ``/usr/lib/postgresql/<major>/bin`` holding a ``postgres`` server, or
    ``None`` when PostgreSQL is not installed."""
    found = sorted(
        (Path(p).parent for p in glob.glob("/usr/lib/postgresql/*/bin/postgres")),
        key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0,
    )
    return found[-1] if found else None


def _reachable(folder: Path) -> bool:
    """Whether every folder down to ``folder`` lets other users through (o+x)."""
    return all(os.stat(p).st_mode & 0o001 for p in [folder, *folder.parents])


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Cluster:
    """A running throwaway cluster (see the module's docstring).

    Attributes:
        port: the TCP port on 127.0.0.1.
        admin_password: the superuser's password.
        guest_password: the read-only guest's password (characters that must be
            percent-encoded in a URI, so the encoded form is exercised too).
        folder: the temporary folder holding the data directory and the socket.
    """

    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        self.admin_password = "adm-" + secrets.token_hex(8)
        self.guest_password = "gst:" + secrets.token_hex(8) + "/@?"
        self._as: list[str] = []
        base = None
        if os.geteuid() == 0:  # the server refuses root: run it as the package's user
            try:
                pw = pwd.getpwnam("postgres")
            except KeyError:
                raise RuntimeError(
                    "running as root needs the `postgres` system user (Debian's postgresql "
                    "package creates it)"
                ) from None
            self._as = ["runuser", "-u", "postgres", "--"]
            if not _reachable(Path(tempfile.gettempdir())):
                base = "/tmp"  # the postgres user must reach its folder
        self.folder = Path(tempfile.mkdtemp(prefix="toolkit-pg-", dir=base))
        if self._as:
            os.chown(self.folder, pw.pw_uid, pw.pw_gid)
        self.data = self.folder / "data"
        self.port = 0
        self._start()

    # -- lifecycle ------------------------------------------------------------

    def _run(self, *args: str, stdin: str | None = None) -> str:
        done = subprocess.run(
            [*self._as, *args], input=stdin, capture_output=True, text=True, timeout=120,
            cwd=self.folder,
        )  # fmt: skip
        if done.returncode != 0:
            raise RuntimeError(f"{args[0]} failed ({done.returncode}): {done.stderr[-2000:]}")
        return done.stdout

    def _start(self) -> None:
        pwfile = self.folder / "pw"
        pwfile.write_text(self.admin_password + "\n")
        if self._as:
            shutil.chown(pwfile, "postgres")
        self._run(
            str(self.bindir / "initdb"), "-D", str(self.data), "-U", "postgres",
            f"--pwfile={pwfile}", "--auth-local=scram-sha-256", "--auth-host=scram-sha-256",
            "-E", "UTF8", "--locale=C", "--no-sync",
        )  # fmt: skip
        pwfile.unlink()
        for attempt in range(5):
            self.port = _free_port()
            opts = (
                f"-c listen_addresses=127.0.0.1 -c port={self.port} "
                f"-c unix_socket_directories={self.folder} -c fsync=off "
                "-c full_page_writes=off -c synchronous_commit=off -c max_connections=40"
            )
            try:
                self._run(
                    str(self.bindir / "pg_ctl"), "-D", str(self.data), "-l",
                    str(self.folder / "log"), "-o", opts, "-w", "-t", "60", "start",
                )  # fmt: skip
                break
            except RuntimeError:
                if attempt == 4:
                    raise
        self.admin_sql(
            f"CREATE ROLE {GUEST} LOGIN PASSWORD '{self.guest_password}' "
            "NOSUPERUSER NOCREATEDB NOCREATEROLE"
        )

    def stop(self) -> None:
        """Stop the server (fast shutdown) and remove the folder."""
        with contextlib.suppress(Exception):
            self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "fast", "stop")
        shutil.rmtree(self.folder, ignore_errors=True)

    # -- connecting -------------------------------------------------------------

    def dsn(self, user: str, password: str, database: str = "postgres") -> str:
        """A ``postgresql://`` URI for ``user`` on ``database`` over TCP."""
        return (
            f"postgresql://{quote(user, safe='')}:{quote(password, safe='')}"
            f"@127.0.0.1:{self.port}/{quote(database, safe='')}"
        )

    @property
    def admin_dsn(self) -> str:
        """The superuser's URI (database ``postgres``)."""
        return self.dsn("postgres", self.admin_password)

    def admin_sql(self, sql: str, database: str = "postgres") -> str:
        """Run ``sql`` as the superuser through ``psql`` (stops at the first error)."""
        return self._psql(database, "-c", sql)

    def _psql(self, database: str, *args: str) -> str:
        env = {**os.environ, "PGPASSWORD": self.admin_password}
        done = subprocess.run(
            [str(self.bindir / "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1",
             "-p", str(self.port), "-U", "postgres", "-d", database, *args],
            capture_output=True, text=True, timeout=600, env=env,
        )  # fmt: skip
        if done.returncode != 0:
            raise RuntimeError(f"psql failed ({done.returncode}): {done.stderr[-2000:]}")
        return done.stdout

    def make_database(self, name: str, sql_files: Sequence[Path]) -> str:
        """Create database ``name`` from ``sql_files`` (each run with ``psql -f``, as a
        user would) and return the read-only guest's URI for it (SELECT only)."""
        self.admin_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        self.admin_sql(f'CREATE DATABASE "{name}"')
        for file in sql_files:
            self._psql(name, "-f", str(file))
        self.admin_sql(
            f'REVOKE ALL ON DATABASE "{name}" FROM PUBLIC; '
            f'GRANT CONNECT ON DATABASE "{name}" TO {GUEST}; '
            f"REVOKE CREATE ON SCHEMA public FROM PUBLIC; "
            f"GRANT USAGE ON SCHEMA public TO {GUEST}; "
            f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {GUEST};",
            database=name,
        )
        return self.guest_dsn(name)

    def guest_dsn(self, database: str) -> str:
        """The read-only guest's URI for ``database``."""
        return self.dsn(GUEST, self.guest_password, database)


def wait_closed(port: int, timeout: float = 10.0) -> None:
    """Wait until nothing listens on 127.0.0.1:``port``."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) != 0:
                return
        time.sleep(0.1)
