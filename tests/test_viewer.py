"""``kernel view`` over HTTP: every page of a run whose every text is hostile stays inert markup,
the viewer never writes to a run, filters/sorting/pages/follow-up work, and only local requests
for found runs are answered."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlencode

import httpx
import pytest

from runbuilder import (
    append,
    attack_payloads,
    hostile_samples,
    kernel_repair_run,
    sample,
    write_run,
)
from speckernel.model import Status
from speckernel.viewer.server import run_key
from test_runindex import snapshot
from viewerkit import serving

ALLOWED_TAGS = {
    "html", "head", "meta", "title", "link", "script", "style", "body", "header", "main", "a",
    "span", "h1", "h2", "h3", "h4", "h5", "h6", "p", "form", "div", "table", "thead", "tbody",
    "tr", "th", "td", "input", "button", "label", "fieldset", "legend", "select", "option",
    "section", "nav", "ul", "ol", "li", "pre", "code", "details", "summary", "b", "em",
    "strong", "blockquote", "hr", "br", "svg", "line", "rect",
}
"""Every tag the viewer's templates and the Markdown renderer produce; anything else in a page
came from data."""


class Inert(HTMLParser):
    """Collects what in a page could run code, load a resource or leave the page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag not in ALLOWED_TAGS:
            self.problems.append(f"tag <{tag}>")
        for name, value in attrs:
            if name.startswith("on") or name in ("srcdoc", "formaction", "style"):
                self.problems.append(f"attribute {name} on <{tag}>")
            if name in ("href", "src", "action", "data") and value and value[0] not in "/#?":
                self.problems.append(f"{name}={value!r} on <{tag}>")
        if tag == "script" and found != {"src": "/static/viewer.js", "defer": None}:
            self.problems.append(f"script {found}")
        if tag == "meta" and "http-equiv" in found:
            self.problems.append("meta http-equiv")
        if tag == "svg" and found.get("class") != "ci-bar":
            self.problems.append("foreign svg")
        self._in_style = tag == "style"

    def handle_endtag(self, tag: str) -> None:
        self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._in_style and "__pwned" in data:
            self.problems.append("data inside <style>")


def inert(page: str) -> list[str]:
    checker = Inert()
    checker.feed(page)
    checker.close()
    return checker.problems


@pytest.fixture(scope="module")
def attack_runs(tmp_path_factory) -> Path:
    """One run per attack file (and a second model's run, so the comparison renders too)."""
    root = tmp_path_factory.mktemp("attacks")
    for name, payload in attack_payloads().items():
        write_run(root / name, hostile_samples(payload), benchmark=f"b{payload}",
                  tools={payload: payload})
    return root


@pytest.mark.parametrize("attack", sorted(attack_payloads()))
def test_hostile_text_stays_inert_on_every_page(attack_runs: Path, attack: str) -> None:
    payload = attack_payloads()[attack]
    run = attack_runs / attack
    key = run_key(run)
    ids = [s.id for s in hostile_samples(payload)]
    other = write_run(attack_runs.parent / f"other-{attack}", [
        s for s in hostile_samples(payload) if s.status is not Status.ERROR])
    paths = [
        "/", "/?partial=1", f"/run?{urlencode({'r': key})}",
        f"/run?{urlencode({'r': key, 'partial': 1})}",
        f"/run?{urlencode({'r': key, 'task': payload, 'metric': payload, 'low': 0})}",
        f"/run?{urlencode({'r': key, 'sort': 'metric:' + payload, 'desc': 1})}",
        *(f"/sample?{urlencode({'r': key, 's': i})}" for i in ids),
        f"/compare?{urlencode([('r', key), ('r', run_key(other))])}",
        f"/run?{urlencode({'r': payload})}",
        f"/sample?{urlencode({'r': key, 's': payload})}",
    ]
    before = snapshot(run)
    with serving([attack_runs]) as base, httpx.Client(base_url=base) as client:
        for path in paths:
            answer = client.get(path)
            assert answer.status_code in (200, 404), path
            assert answer.headers["content-type"].startswith("text/html")
            assert inert(answer.text) == [], (path, inert(answer.text))
        page = client.get(f"/sample?{urlencode({'r': key, 's': ids[0]})}").text
        raw = client.get(f"/sample.json?{urlencode({'r': key, 's': ids[0]})}")
    assert raw.headers["content-type"] == "application/json"
    assert raw.headers["x-content-type-options"] == "nosniff"
    assert json.loads(raw.text)["key"]["task_id"] == payload
    if attack == "template_syntax.txt":
        assert "{{ 7*7 }}" in page
    assert snapshot(run) == before


def test_sample_page_shows_the_evidence(kernel_cli, scripted_model, run_dir, pyfunc) -> None:
    kernel_repair_run(kernel_cli, scripted_model, run_dir)
    (entry,) = [s.id for s in __import__("speckernel.store").store.RunStore(run_dir)
                .load_samples()]
    key = run_key(run_dir)
    with serving([run_dir]) as base, httpx.Client(base_url=base) as client:
        page = client.get(f"/sample?{urlencode({'r': key, 's': entry})}").text
    # the final verdict's diagnostic links to line 4 of the candidate, which is flagged
    assert '<a class="diag-link" href="#c0-L4">solution.py:4</a>' in page
    assert 'id="c0-L4" class="flagged"' in page
    assert "SyntaxError: invalid syntax" in page and "python 3." in page
    # two rounds; the second is a diff that removes the min() line and adds the loop
    assert 'id="round-1"' in page and 'id="round-2"' in page
    assert page.count('class="d-del"') == 1 and page.count('class="d-add"') >= 5
    # prompts and responses in order, the log, tokens
    assert page.index("Write gcd(a, b)") < page.index("The verifier rejected") < page.index(
        "Here is the fix.")
    assert "verify #1: pyfunc.tests=failure" in page
    assert "tokens in" in page
    assert 'id="previous"' not in page and 'id="next"' not in page  # the run's only sample


def test_samples_link_to_their_neighbours(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", [sample(t) for t in ("a", "b", "c")])
    key = run_key(run)
    ids = [s.id for s in (sample("a"), sample("b"), sample("c"))]
    with serving([tmp_path]) as base, httpx.Client(base_url=base) as client:
        middle = client.get(f"/sample?{urlencode({'r': key, 's': ids[1]})}").text
        first = client.get(f"/sample?{urlencode({'r': key, 's': ids[0]})}").text
    assert f'id="previous" href="/sample?{urlencode({"r": key, "s": ids[0]})}"'.replace(
        "&", "&amp;") in middle
    assert f'id="next" href="/sample?{urlencode({"r": key, "s": ids[2]})}"'.replace(
        "&", "&amp;") in middle
    assert 'id="previous"' not in first and 'id="next"' in first


def test_run_page_filters_sorts_and_pages(tmp_path: Path) -> None:
    samples = [sample(f"task{i:03d}", model=f"m:{'ab'[i % 2]}", solved=i % 3 == 0,
                      metrics={"score": i / 250}, status=Status.TIMEOUT if i % 7 == 0 else None)
               for i in range(250)]
    run = write_run(tmp_path / "run", samples)
    key = run_key(run)

    def rows(client: httpx.Client, **params: object) -> list[str]:
        page = client.get(f"/run?{urlencode({'r': key, **params}, doseq=True)}").text
        return re.findall(r'class="sample-link" href="[^"]*">([^<]*)</a>', page)

    with serving([tmp_path]) as base, httpx.Client(base_url=base) as client:
        assert len(rows(client)) == 100  # one page
        assert rows(client, page=3) == [f"task{i}" for i in range(200, 250)]
        assert rows(client, page=99) == rows(client, page=3)
        assert rows(client, task="task01?") == [f"task01{i}" for i in range(10)]
        assert rows(client, task="TASK01?") == []
        timeouts = rows(client, status="timeout")
        assert timeouts == [f"task{i:03d}" for i in range(0, 250, 7)][:100]
        assert rows(client, status=["timeout", "failure"], model="m:a", solved="no")
        unsolved = rows(client, solved="no")  # a timeout is never solved
        assert unsolved and all(int(t[4:]) % 3 or int(t[4:]) % 7 == 0 for t in unsolved)
        assert rows(client, metric="score", low=0.5, high=0.52) == [
            "task125", "task126", "task127", "task128", "task129", "task130"]
        assert rows(client, sort="metric:score", desc=1)[:2] == ["task249", "task248"]
        assert rows(client, sort="task", desc=1)[0] == "task249"
        assert rows(client, sort="nonsense")[0] == "task000"
        page = client.get(f"/run?{urlencode({'r': key, 'model': 'm:a'})}").text
        assert "of the 125 samples the filters keep" in page
        assert "125 of 250" in page


def test_following_a_run_in_progress(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", [sample("first")])
    key = run_key(run)
    with serving([tmp_path]) as base, httpx.Client(base_url=base) as client:
        stamp = client.get(f"/api/stamp?{urlencode({'r': key})}").text
        everything = client.get("/api/stamp").text
        append(run, [sample("second")])
        assert client.get(f"/api/stamp?{urlencode({'r': key})}").text != stamp
        assert client.get("/api/stamp").text != everything
        fragment = client.get(f"/run?{urlencode({'r': key, 'partial': 1})}")
        assert "second" in fragment.text and "<html" not in fragment.text
        assert fragment.headers["x-stamp"] == client.get(
            f"/api/stamp?{urlencode({'r': key})}").text
        write_run(tmp_path / "new-run", [sample("x")])
        assert "new-run" in client.get("/?partial=1").text


def test_only_local_requests_for_found_runs(tmp_path: Path) -> None:
    write_run(tmp_path / "runs" / "a", [sample("x")])
    (tmp_path / "secret.txt").write_text("secret")
    with serving([tmp_path / "runs"]) as base, httpx.Client(base_url=base) as client:
        assert client.get("/", headers={"host": "attacker.example"}).status_code == 400
        headers = client.get("/").headers
        assert "script-src 'self'" in headers["content-security-policy"]
        assert "frame-ancestors 'none'" in headers["content-security-policy"]
        for r in (str(tmp_path), str(tmp_path / "runs"), "../", "/etc", str(tmp_path / "x")):
            assert client.get(f"/run?{urlencode({'r': r})}").status_code == 404
        assert client.get("/static/../../secret.txt").status_code == 404
        assert client.get("/sample?r=x&s=y").status_code == 404
        assert client.post("/run").status_code == 405
        refused = client.get("/compare").text
        assert "select runs to compare" in refused


def test_kernel_view_refuses_bad_arguments(kernel_cli, tmp_path: Path) -> None:
    missing = kernel_cli("view", tmp_path / "nowhere", "--no-browser")
    assert missing.exit_code == 2 and "no such directory" in missing.stderr
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        taken = kernel_cli("view", tmp_path, "--no-browser", "--port",
                           str(busy.getsockname()[1]))
    assert taken.exit_code == 2 and "choose another --port" in taken.stderr


def test_unusual_run_paths_and_the_comparison_page(tmp_path: Path) -> None:
    a = write_run(tmp_path / "モデル é #1?&x=y", [sample("x", model="m:a"),
                                                sample("y", model="m:a")])
    b = write_run(tmp_path / "b", [sample("x", model="m:b", solved=False),
                                   sample("y", model="m:b", solved=False)])
    with serving([tmp_path]) as base, httpx.Client(base_url=base) as client:
        listed = client.get("/")
        assert listed.status_code == 200 and "モデル é #1?&amp;x=y" in listed.text
        page = client.get(f"/run?{urlencode({'r': run_key(a)})}")
        assert page.status_code == 200 and "x-stamp" in page.headers
        assert client.get(f"/api/stamp?{urlencode({'r': run_key(a)})}").text == page.headers[
            "x-stamp"]
        compared = client.get(f"/compare?{urlencode([('r', run_key(a)), ('r', run_key(b))])}")
        assert compared.status_code == 200
        assert re.search(r'class="num p-value">0\.5</td>', compared.text)  # McNemar b=2, c=0
        assert "2 of 2 task(s) disagree" in compared.text
        refused = client.get(f"/compare?{urlencode({'r': run_key(a)})}").text
        assert "nothing to compare" in refused


def test_kernel_view_serves_until_stopped(tmp_path: Path) -> None:
    """The command itself: it prints its address, serves the runs, and stops on SIGINT."""
    import signal
    import subprocess
    import sys

    write_run(tmp_path / "runs" / "a", [sample("x")])
    proc = subprocess.Popen([sys.executable, "-m", "speckernel", "view", "--port", "0",
                             "--no-browser"], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        url = re.search(r"http://127\.0\.0\.1:\d+/", line)
        assert url, line
        page = httpx.get(url[0], timeout=30)
        assert "runs/a" in page.text
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(30)


def test_numbers_beyond_the_float_range_render(tmp_path: Path) -> None:
    big = 1.7e308
    a = write_run(tmp_path / "a", [sample(f"t{i}", cost=big, metrics={"x": (-1) ** i * big})
                                   for i in range(4)])
    with serving([tmp_path]) as base, httpx.Client(base_url=base) as client:
        assert client.get("/").status_code == 200
        page = client.get(f"/run?{urlencode({'r': run_key(a), 'sort': 'metric:x'})}")
        assert page.status_code == 200 and "$inf" in page.text


def test_an_unknown_price_is_never_shown_as_zero_dollars(tmp_path: Path) -> None:
    """Kernel UX defect M: calls to a model the price table does not list cost an unknown
    amount; every page says so instead of printing $0.0000."""
    unpriced = sample("free", cost=0.0, unpriced=2)
    mixed = sample("mixed", model="m:b", cost=0.03, unpriced=1)
    run = write_run(tmp_path / "run", [unpriced, mixed])
    key = run_key(run)
    with serving([tmp_path]) as base, httpx.Client(base_url=base) as client:
        runs = client.get("/").text
        run_page = client.get(f"/run?{urlencode({'r': key})}").text
        free = client.get(f"/sample?{urlencode({'r': key, 's': unpriced.id})}").text
    assert "$0.0300 + 3 unpriced calls" in runs
    assert "unknown (2 unpriced calls)" in run_page and "$0.0300 + 1 unpriced call<" in run_page
    assert "unknown (2 unpriced calls)" in free
    assert "$0.0000" not in runs + run_page + free
