"""The SQL domain's MySQL dialect on a real MariaDB server (started by the verifier in the
kernel sandbox: an unprivileged, network-less instance on a Unix socket in its work directory).

Every refutation is re-run here on a fresh database of the same server, through the test's own
client; the found cases of issue 13 get true verdicts in this dialect too; MySQL's own meanings
(decimal division, a scalar subquery with two rows is an error, ``IF()``) decide verdicts.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pymysql
import pytest
from conftest import FOUND
from speckernel.model import Candidate, Provenance, Status, Verdict
from speckernel.sandbox.local import LocalSandbox

from speckernel_respec import plugin, tasks
from speckernel_respec.domains.sql_mariadb import server_for, stop_servers
from speckernel_respec.toolchain import MariadbToolchain

pytestmark = pytest.mark.anyio

LEETCODE = """
CREATE TABLE Employee (employee_id INT, department_id INT, primary_flag ENUM('Y','N') NOT NULL,
                       PRIMARY KEY (employee_id, department_id));
"""
GROUND_TRUTH = ("SELECT employee_id, department_id FROM Employee GROUP BY employee_id "
                "HAVING COUNT(*) = 1 UNION SELECT employee_id, department_id FROM Employee "
                "WHERE primary_flag = 'Y'")


@pytest.fixture(scope="module", autouse=True)
def mariadb() -> Iterator[None]:
    status = MariadbToolchain().detect()
    if not status.found:
        pytest.skip(f"MariaDB is not installed ({status.detail}): kernel tools install respec")
    yield
    stop_servers()


async def verdict_of(make_ctx: Callable[..., Any], schema: str, oracle: str, text: str,
                     timeout_s: float = 4.0) -> Verdict:
    task = tasks.Entry("sql", "t", "A query.", oracle, {"schema": schema,
                                                         "dialect": "mysql"}).task()
    candidate = Candidate({"spec.sql": text}, Provenance("t", "m"))
    return await plugin.loaded().verifiers["sql"].verify(candidate, task,
                                                         make_ctx(timeout_s=timeout_s))


def rerun_on_mariadb(schema: str, oracle: str, candidate: str, counterexample: Any) -> None:
    """Rebuild the counterexample in a fresh database of the server and check that the two
    queries differ on it (or that only the candidate fails)."""
    server = server_for(SANDBOX)
    name = "t" + secrets.token_hex(6)
    connection = pymysql.connect(unix_socket=str(server.socket), user="root", autocommit=True)
    try:
        with connection.cursor() as cursor:
            cursor.execute(f"CREATE DATABASE {name}")
            cursor.execute(f"USE {name}")
            for statement in filter(str.strip, schema.split(";")):
                cursor.execute(statement)
            for table, content in counterexample["database"].items():
                marks = ", ".join(["%s"] * len(content["columns"]))
                cursor.executemany(f"INSERT INTO {table} VALUES ({marks})", content["rows"])
            cursor.execute(oracle)
            a = sorted(map(repr, cursor.fetchall()))
            try:
                cursor.execute(candidate)
            except pymysql.MySQLError:
                return
            b = sorted(map(repr, cursor.fetchall()))
            assert a != b
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"DROP DATABASE IF EXISTS {name}")
        connection.close()


SANDBOX = LocalSandbox()


@pytest.mark.parametrize("case", FOUND["cases"], ids=lambda c: c["name"])
async def test_the_found_cases_get_a_true_verdict_on_mariadb(
        make_ctx: Callable[..., Any], case: dict[str, str]) -> None:
    schema = FOUND["schemas"][case["schema"]]["mysql"]
    verdict = await verdict_of(make_ctx, schema, case["oracle"], case["candidate"])
    kind = verdict.data["verdict"]
    if case["truth"] == "equivalent":
        assert kind in ("equivalent", "bounded", "unknown"), verdict
    else:
        assert kind == "refuted", verdict
        rerun_on_mariadb(schema, case["oracle"], case["candidate"],
                         verdict.data["counterexample"])


@pytest.mark.parametrize(("candidate", "expected"), [
    (GROUND_TRUTH + " ", "equivalent"),
    ("SELECT e.employee_id, e.department_id FROM Employee e WHERE e.primary_flag = 'Y' OR "
     "e.employee_id IN (SELECT employee_id FROM Employee GROUP BY employee_id "
     "HAVING COUNT(DISTINCT department_id) = 1)", "bounded"),
    ("SELECT employee_id, department_id FROM Employee WHERE primary_flag = 'Y'", "refuted"),
    ("SELECT employee_id, IF(primary_flag = 'Y', department_id, NULL) FROM Employee",
     "refuted"),
    ("SELECT (SELECT employee_id FROM Employee), 1 FROM Employee", "refuted"),
    ("DROP TABLE Employee", "invalid"),
    ("SELECT employee_id, department_id FROM Employe", "invalid"),
])
async def test_leetcode_style_candidates(make_ctx: Callable[..., Any], candidate: str,
                                         expected: str) -> None:
    verdict = await verdict_of(make_ctx, LEETCODE, GROUND_TRUTH, candidate, timeout_s=8.0)
    assert verdict.data["verdict"] == expected, verdict
    if expected == "refuted":
        rerun_on_mariadb(LEETCODE, GROUND_TRUTH, candidate, verdict.data["counterexample"])


async def test_mysql_division_is_decimal_not_integer(make_ctx: Callable[..., Any]) -> None:
    """In SQLite ``SUM(x) / COUNT(*)`` on integers truncates; in MySQL it is a decimal with
    four digits, so it equals ``AVG(x)`` when no x is NULL — never refuted on MariaDB."""
    schema = "CREATE TABLE t (id INT PRIMARY KEY, x INT NOT NULL);"
    verdict = await verdict_of(make_ctx, schema, "SELECT AVG(x) FROM t",
                               "SELECT SUM(x) / COUNT(*) FROM t")
    assert verdict.data["verdict"] in ("bounded", "unknown"), verdict
    sqlite = tasks.Entry("sql", "t", "q", "SELECT AVG(x) FROM t",
                         {"schema": schema.replace("INT", "INTEGER")}).task()
    refuted = await plugin.loaded().verifiers["sql"].verify(
        Candidate({"spec.sql": "SELECT SUM(x) / COUNT(*) FROM t"}, Provenance("t", "m")),
        sqlite, make_ctx())
    assert refuted.data["verdict"] == "refuted", refuted


async def test_a_broken_oracle_is_an_error_and_the_server_is_reused(
        make_ctx: Callable[..., Any]) -> None:
    verdict = await verdict_of(make_ctx, LEETCODE, "SELECT nope FROM Employee",
                               "SELECT employee_id FROM Employee")
    assert verdict.status is Status.ERROR
    first = server_for(SANDBOX)
    assert server_for(SANDBOX) is first and first.alive


@pytest.mark.parametrize("entry", tasks.load_polygon_leetcode(
    Path(__file__).parent / "data" / "polygon_leetcode"), ids=lambda e: e.name)
async def test_polygon_problems_run_on_mariadb_and_their_rewrites_are_not_refuted(
        make_ctx: Callable[..., Any], entry: tasks.Entry) -> None:
    """The fixture's schemas (enums, composite keys, index references, inclusion queries)
    load into MariaDB; each reference is equivalent to itself, and each team-written
    alternative ground truth (equivalent by construction) is never refuted."""
    ctx = make_ctx(timeout_s=6.0)
    verifier = plugin.loaded().verifiers["sql"]
    task = entry.task()
    for text, allowed in [(entry.oracle + " ", {"equivalent"}),
                          *((a, {"equivalent", "bounded", "unknown"})
                            for a in entry.facts.get("alternatives", []))]:
        verdict = await verifier.verify(Candidate({"spec.sql": text}, Provenance("t", "m")),
                                        task, ctx)
        assert verdict.data["verdict"] in allowed, (text, verdict)
