"""The MySQL dialect's engine: a private MariaDB server, started in the kernel sandbox.

LeetCode and Polygon queries are MySQL: ``IF()``, decimal division (``7/2`` is ``3.5000``), a
case-insensitive collation, a scalar subquery with two rows is an error, ``GROUP BY`` with bare
columns. SQLite gets all of these wrong, so tasks whose facts say ``"dialect": "mysql"`` run on
a real MariaDB server from Debian (``mariadb-server``, toolchain ``mariadb``):

* :class:`Server`: one ``mariadbd`` per kernel process, started on the first MySQL check with
  ``ctx.sandbox.open`` — its own unprivileged user, no network (``--skip-networking``), a Unix
  socket and a fresh data directory (``mariadb-install-db``) in the sandbox's work directory,
  which is a path of this machine, so the client here reaches the socket. It serves every check
  of the run and is stopped when the process ends (and by the sandbox if the kernel dies).
* :class:`MariadbEngine`: one check's throwaway database ``c<random>`` with the task's schema,
  loaded table by table for each test database (foreign keys checked, parents first) and
  dropped at the end. Queries run as a user that may only read that database, inside a
  ``READ ONLY`` transaction, under ``max_statement_time`` (the check's remaining budget); a
  result of more than ``MAX_ROWS`` rows is cut and counts as that query's failure.

The client is PyMySQL in the kernel process: it only sends text and reads rows (blocking I/O,
run in a thread by the verifier); everything CPU-bound (parsing, the search plan) runs in the
kernel's worker processes.
"""

from __future__ import annotations

import atexit
import contextlib
import secrets
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pymysql
import pymysql.cursors
from speckernel.errors import KernelError
from speckernel.sandbox.base import Limits, Sandbox, SandboxProcess

from speckernel_respec.domains.sql_search import (
    Database,
    Deadline,
    Failed,
    Rejected,
    parents_first,
)
from speckernel_respec.domains.sql_syntax import Schema, Table
from speckernel_respec.domains.sql_values import Value

MAX_ROWS = 10_000
"""Most rows read of one result; a longer one is that query's failure on the database."""

START_S = 60.0
"""How long the server may take to come up (install of the system tables included)."""

SQL_MODE = "STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION"
"""Strict loading (a value the column cannot hold is an error, not a silent coercion); no
ONLY_FULL_GROUP_BY, as the LeetCode ground truths group with bare columns."""

_START = (
    "mkdir files && mariadb-install-db --no-defaults --datadir=\"$PWD/data\" "
    "--auth-root-authentication-method=normal --skip-test-db --skip-name-resolve "
    ">install.log 2>&1 || { cat install.log >&2; exit 1; }; "
    "exec mariadbd --no-defaults --datadir=\"$PWD/data\" --socket=\"$PWD/sock\" "
    "--skip-networking --skip-log-bin --performance-schema=OFF --innodb-buffer-pool-size=32M "
    "--log-error=\"$PWD/server.log\" --pid-file=\"$PWD/server.pid\" "
    "--secure-file-priv=\"$PWD/files\" --character-set-server=utf8mb4 "
    "--collation-server=utf8mb4_general_ci --max-connections=64 "
    "--innodb-flush-log-at-trx-commit=0 --innodb-doublewrite=0 "
    f"--sql-mode={SQL_MODE} --max-statement-time=30"
)
"""The server's command line (fixed text, no model output), run by ``/bin/sh`` for ``$PWD``."""

READER = "reader"
"""The account queries run as: SELECT on the check databases, nothing else."""


class Server:
    """One MariaDB server in the sandbox and the root connection that manages it."""

    def __init__(self, process: SandboxProcess) -> None:
        self.process = process
        self.socket = Path(process.workdir, "sock")
        self.lock = threading.Lock()

    @staticmethod
    def start(sandbox: Sandbox) -> Server:
        process = sandbox.open(["/bin/sh", "-c", _START],
                               env={"PATH": "/usr/sbin:/usr/bin:/bin", "LANG": "C.UTF-8"},
                               limits=Limits(wall_s=30 * 24 * 3600.0, memory_mb=1536,
                                             disk_mb=1024, processes=64),
                               stdin=False, stdout="devnull", stderr="pipe")
        server = Server(process)
        deadline = time.monotonic() + START_S
        while time.monotonic() < deadline:
            if process.poll() is not None:
                why = process.stderr.read().decode(errors="replace")[-500:] \
                    if process.stderr else ""
                process.close()
                raise KernelError(f"the MariaDB server did not start: {why.strip()}")
            if server.socket.exists():
                with contextlib.suppress(pymysql.MySQLError):
                    server._setup()
                    return server
            time.sleep(0.05)
        process.close()
        raise KernelError(f"the MariaDB server did not start within {START_S:g} s")

    def connect(self, user: str = "root", database: str | None = None,
                read_timeout: float | None = None) -> pymysql.connections.Connection[Any]:
        return pymysql.connect(unix_socket=str(self.socket), user=user, database=database,
                               autocommit=True, charset="utf8mb4",
                               read_timeout=int(read_timeout) + 1 if read_timeout else None,
                               cursorclass=pymysql.cursors.SSCursor)

    def _setup(self) -> None:
        with self.connect() as connection, connection.cursor() as cursor:
            cursor.execute(f"CREATE USER IF NOT EXISTS '{READER}'@'localhost'")

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def close(self) -> None:
        self.process.close()


_SERVERS: dict[str, Server] = {}
_SERVERS_LOCK = threading.Lock()


def server_for(sandbox: Sandbox) -> Server:
    """The process's server (started in ``sandbox`` on first use, restarted there if it
    died): one per kernel process, shared by every check of the run."""
    with _SERVERS_LOCK:
        server = _SERVERS.get("server")
        if server is None or not server.alive:
            if server is not None:
                server.close()
            else:
                atexit.register(stop_servers)
            server = _SERVERS["server"] = Server.start(sandbox)
        return server


def stop_servers() -> None:
    """Stop every server this process started (at exit; the sandbox would kill them anyway)."""
    with _SERVERS_LOCK:
        servers = list(_SERVERS.values())
        _SERVERS.clear()
    for server in servers:
        server.close()


def _quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


class MariadbEngine:
    """One check's throwaway database on ``server`` (see the module docstring); implements
    ``sql_search.Engine``."""

    reloads_to_reverse = True

    def __init__(self, server: Server, schema: Schema, constraints: Sequence[str],
                 deadline: float) -> None:
        self.schema = schema
        self.constraints = tuple(constraints)
        self.deadline = deadline
        self.order: list[Table] = parents_first(schema)
        self.name = "c" + secrets.token_hex(8)
        self.admin = server.connect(read_timeout=max(1.0, deadline - time.monotonic()) + 5)
        with self.admin.cursor() as cursor:
            cursor.execute(f"CREATE DATABASE {self.name} CHARACTER SET utf8mb4")
            cursor.execute(f"USE {self.name}")
            cursor.execute(f"SET SESSION sql_mode = '{SQL_MODE}'")
            try:
                cursor.execute("SET SESSION foreign_key_checks = 0")  # tables in any order
                for statement in _statements(schema.ddl):
                    cursor.execute(statement)
                cursor.execute("SET SESSION foreign_key_checks = 1")
            except pymysql.MySQLError as exc:
                self.close()
                raise Rejected(f"the schema is not valid MariaDB: {_message(exc)}") from None
            cursor.execute(f"GRANT SELECT ON {self.name}.* TO '{READER}'@'localhost'")
        self.reader = server.connect(READER, self.name,
                                     read_timeout=max(1.0, deadline - time.monotonic()) + 5)
        with self.reader.cursor() as cursor:
            cursor.execute(f"SET SESSION sql_mode = '{SQL_MODE}'")

    def close(self) -> None:
        for connection in (getattr(self, "reader", None), self.admin):
            if connection is not None:
                with contextlib.suppress(pymysql.MySQLError, OSError):
                    connection.close()
        with contextlib.suppress(pymysql.MySQLError, OSError, KernelError), \
                self.admin_again() as cursor:
            cursor.execute(f"DROP DATABASE IF EXISTS {self.name}")

    @contextlib.contextmanager
    def admin_again(self) -> Any:
        connection = pymysql.connect(unix_socket=self.admin.unix_socket, user="root",
                                     autocommit=True)
        try:
            with connection.cursor() as cursor:
                yield cursor
        finally:
            connection.close()

    def _remaining(self) -> float:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise Deadline()
        return left

    def load(self, db: Database) -> bool:
        with self.admin.cursor() as cursor:
            try:
                cursor.execute(f"SET SESSION max_statement_time = {self._remaining():.3f}")
                cursor.execute("START TRANSACTION")
                for table in reversed(self.order):
                    cursor.execute(f"DELETE FROM {_quote(table.name)}")
                for table in self.order:
                    rows = db.tables.get(table.name, ())
                    if rows:
                        marks = ", ".join(["%s"] * len(table.columns))
                        cursor.executemany(f"INSERT INTO {_quote(table.name)} VALUES ({marks})",
                                           [list(r) for r in rows])
                cursor.execute("COMMIT")
            except pymysql.MySQLError as exc:
                with contextlib.suppress(pymysql.MySQLError):
                    cursor.execute("ROLLBACK")
                if _interrupted(exc):
                    raise Deadline() from None
                return False
        try:
            return not any(self.run(c) for c in self.constraints)
        except Failed:
            return False

    def prepare(self, text: str) -> None:
        """``Rejected`` unless the server compiles ``text`` (``PREPARE``, nothing runs)."""
        with self.reader.cursor() as cursor:
            try:
                cursor.execute("PREPARE respec_check FROM %s", (text,))
                cursor.execute("DEALLOCATE PREPARE respec_check")
            except pymysql.MySQLError as exc:
                raise Rejected(_message(exc)) from None

    def run(self, text: str, reverse: bool = False) -> list[tuple[Value, ...]]:
        """The rows of ``text``; the reverse scan order is the rows loaded backwards, which the
        caller arranges (``observe`` reloads the database reversed)."""
        cursor = self.reader.cursor()
        try:
            cursor.execute(f"SET SESSION max_statement_time = {self._remaining():.3f}")
            cursor.execute("START TRANSACTION READ ONLY")
            cursor.execute(text)
            rows = []
            for row in cursor:
                rows.append(tuple(row))
                if len(rows) > MAX_ROWS:
                    self._hang_up()
                    raise Failed(f"more than {MAX_ROWS} rows")
            cursor.close()
            self.reader.rollback()
            return rows
        except pymysql.MySQLError as exc:
            if _interrupted(exc):
                raise Deadline() from None
            with contextlib.suppress(pymysql.MySQLError):
                cursor.close()
                self.reader.rollback()
            raise Failed(_message(exc)) from None

    def _hang_up(self) -> None:
        """Drop the reader's connection in the middle of a long result (reading the rest could
        take the whole budget) and open a fresh one."""
        socket = self.reader.unix_socket
        # pymysql's _force_close drops the socket without the QUIT close() sends first (and
        # close() raises on a connection an error already closed); types-PyMySQL stubs only
        # the public API.
        self.reader._force_close()  # type: ignore[attr-defined]
        self.reader = pymysql.connect(unix_socket=socket, user=READER, database=self.name,
                                      autocommit=True, charset="utf8mb4",
                                      cursorclass=pymysql.cursors.SSCursor)
        with self.reader.cursor() as cursor:
            cursor.execute(f"SET SESSION sql_mode = '{SQL_MODE}'")


def _statements(ddl: str) -> list[str]:
    return [s.strip() for s in ddl.split(";") if s.strip()]


def _message(exc: pymysql.MySQLError) -> str:
    args = exc.args
    return f"{args[0]}: {args[1]}" if len(args) >= 2 else str(exc)


def _interrupted(exc: pymysql.MySQLError) -> bool:
    """Whether the server stopped the statement at ``max_statement_time`` (error 1969)."""
    return bool(exc.args) and exc.args[0] in (1969, 3024)
