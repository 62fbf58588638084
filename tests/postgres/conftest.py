"""A real PostgreSQL server for the tests of this folder (never a mock).

``pg_server`` (session-scoped) starts a throwaway cluster from Debian's ``postgresql``
package (``/usr/lib/postgresql/<major>/bin``): ``initdb`` and ``pg_ctl`` in a temporary
folder, as the ``postgres`` system user when the tests run as root, listening on
127.0.0.1 at a free port with password (SCRAM) authentication, stopped and removed at the
end of the session. It has ``admin_dsn`` and ``make_database(name, sql_files)``, which
returns the read-only guest's URI (SELECT only, with a password). The tests skip only
when no server binary is installed (``.ci/run`` installs it).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pg_cluster import Cluster, server_bin


@pytest.fixture(scope="session")
def pg_server() -> Iterator[Cluster]:
    """A running throwaway cluster (see the module's docstring)."""
    bindir = server_bin()
    if bindir is None:
        pytest.skip("no PostgreSQL server binary in /usr/lib/postgresql/*/bin")
    cluster = Cluster(bindir)
    try:
        yield cluster
    finally:
        cluster.stop()
