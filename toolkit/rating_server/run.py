"""Running the rating server: one uvicorn process on a socket bound with SO_REUSEADDR.

The socket is bound before anything is printed, so a port that is taken is reported at
once (one line, exit 2), and a restart right after a crash binds at once: SO_REUSEADDR
lets a new listener take a port whose old connections linger in TIME_WAIT, as every
server does. uvicorn's access log is off: a rater's address holds their private token.
"""

from __future__ import annotations

import errno
import socket

import uvicorn
from starlette.applications import Starlette

from toolkit.errors import InputError
from toolkit.rating_server.guard import GuardedH11Protocol

__all__ = ["bind_socket", "serve", "server_config"]


def bind_socket(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (``port`` 0: any free one), SO_REUSEADDR.

    Raises:
        InputError: the port is taken or may not be used, or the host is not an address
            of this machine.
    """
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise InputError(
            None, f"unknown host ({exc.strerror})", field="--host", value=host
        ) from exc
    family, _type, _proto, _name, address = infos[0]
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise InputError(
                None, f"port {port} on {host} is in use: choose another", field="--port",
                value=port,
            ) from exc  # fmt: skip
        if exc.errno == errno.EACCES:
            raise InputError(
                None, f"port {port} on {host} may not be used by this user", field="--port",
                value=port,
            ) from exc  # fmt: skip
        raise InputError(
            None, f"cannot listen on {host}:{port} ({exc.strerror})", field="--host", value=host
        ) from exc
    sock.set_inheritable(True)
    return sock


def serve(app: Starlette, sock: socket.socket) -> None:
    """Serve ``app`` on ``sock`` with uvicorn (one process) until interrupted (Ctrl-C or
    SIGTERM: a clean stop, no traceback)."""
    config = server_config(app)
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except KeyboardInterrupt:  # Ctrl-C: uvicorn has shut down cleanly, then re-raised it
        pass
    finally:
        sock.close()


def server_config(app: Starlette) -> uvicorn.Config:
    """uvicorn's configuration of the rating server: no access log, the h11 protocol
    with deadlines on a request's headers and body and a cap on connections per client
    address (:mod:`toolkit.rating_server.guard`), idle keep-alive closed after 5 s."""
    return uvicorn.Config(
        app,
        http=GuardedH11Protocol,
        access_log=False,  # addresses hold private tokens: never logged
        log_level="warning",
        server_header=False,
        timeout_keep_alive=5,
        timeout_graceful_shutdown=5,
        lifespan="off",
    )
