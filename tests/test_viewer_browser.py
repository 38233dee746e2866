"""``kernel view`` in a real headless Chromium (Debian ``chromium`` + ``chromium-driver``, from
``kernel tools install browser``), driven by Selenium: what a person sees and clicks.

Marked ``browser``: ``tox -e viewer`` runs these (it installs the browser first); the core
environment leaves them out. Without the browser they are skipped with the reason, unless
``KERNEL_REQUIRE_BROWSER=1`` (set by the viewer environment), where that is a failure.

With ``KERNEL_SCREENSHOTS=DIR`` the README's screenshots are written into ``DIR``.
"""

from __future__ import annotations

import os
import re
import struct
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from runbuilder import (
    append,
    attack_payloads,
    hostile_samples,
    kernel_repair_run,
    sample,
    tla_demo_samples,
    write_run,
)
from speckernel.viewer.server import run_key
from test_compare import TASKS, outcomes, rate_a, rate_b
from viewerkit import chromium, serving

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as driver:
        yield driver


def wait_for(condition: Any, timeout: float = 10.0) -> Any:
    """Poll ``condition()`` until it returns something true; fail after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout} s")
        time.sleep(0.1)


def css(driver: Any, selector: str) -> list[Any]:
    return list(driver.find_elements("css selector", selector))


def texts(driver: Any, selector: str) -> list[str]:
    """The rendered text of every element matching ``selector``, read in one script call.

    A live page replaces its rows while it polls, so an element found by one WebDriver call
    can be gone (stale) by the next; reading inside the page is one atomic step.
    """
    return list(driver.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0]), e => e.innerText)",
        selector))


def test_run_list_shows_a_kernel_run(browser, kernel_cli, scripted_model, tmp_path,
                                     pyfunc) -> None:
    run = kernel_repair_run(kernel_cli, scripted_model, tmp_path / "runs" / "repair")
    with serving([tmp_path / "runs"]) as base:
        browser.get(base + "/")
        (row,) = css(browser, "#runs tr.run")
        link = row.find_element("css selector", "a.run-link")
        assert link.text == run_key(run)
        assert "pyfunc 1" in row.text and "prompt" in row.text
        assert row.find_element("css selector", "td.samples").text == "1"
        link.click()
        wait_for(lambda: css(browser, "#samples tr.sample"))
        assert "failure" in css(browser, "#samples tr.sample")[0].text


def test_sample_page_shows_prompt_candidate_diff_and_linked_diagnostic(
        browser, kernel_cli, scripted_model, tmp_path, pyfunc) -> None:
    run = kernel_repair_run(kernel_cli, scripted_model, tmp_path / "run")
    with serving([tmp_path]) as base:
        browser.get(f"{base}/run?{urlencode({'r': run_key(run)})}")
        css(browser, "a.sample-link")[0].click()
        wait_for(lambda: css(browser, "#candidate"))
        transcript = css(browser, "#transcript")[0].text
        assert "Write gcd(a, b): the greatest common divisor" in transcript
        candidate = css(browser, "#candidate table.code")[0]
        assert "a, b = b, a % b" in candidate.text
        # round 2's diff against round 1: min() removed, the loop added
        diff = css(browser, "#round-2 table.diff-table")[0]
        assert [r.text.split() for r in diff.find_elements("css selector", "tr.d-del")] == [
            ["2", "-", "return", "min(a,", "b)"]]
        added = " ".join(r.text for r in diff.find_elements("css selector", "tr.d-add"))
        assert "while b:" in added and "return a +" in added
        # the verdict's diagnostic links to the line it points at, and following it lands there
        link = css(browser, "#verdicts a.diag-link")[0]
        assert link.text == "solution.py:4"
        link.click()
        target = wait_for(lambda: browser.execute_script(
            "return document.querySelector(':target')"))
        assert target.get_attribute("id") == "c0-L4"
        assert "return a +" in target.text and "flagged" in target.get_attribute("class")
        # a permalink reloads the same sample
        permalink = css(browser, "#permalink")[0].get_attribute("href")
        browser.get(permalink)
        assert css(browser, "h1")[0].text.startswith("gcd")


def test_a_filter_narrows_the_list(browser, tmp_path) -> None:
    run = write_run(tmp_path / "run", [sample(f"task{i:02d}", solved=i % 2 == 0)
                                       for i in range(30)])
    with serving([tmp_path]) as base:
        browser.get(f"{base}/run?{urlencode({'r': run_key(run)})}")
        assert len(css(browser, "#samples tr.sample")) == 30
        box = css(browser, "#filters input[name=task]")[0]
        box.send_keys("task1*")
        css(browser, "#apply")[0].click()
        wait_for(lambda: len(css(browser, "#samples tr.sample")) == 10)
        assert {t.split()[0] for t in texts(browser, "#samples tr.sample")} == {
            f"task1{i}" for i in range(10)}
        css(browser, "#filters input[value=failure]")[0].click()
        css(browser, "#apply")[0].click()
        wait_for(lambda: len(css(browser, "#samples tr.sample")) == 5)
        assert "task=task1*&status=failure" in browser.current_url  # a permalink


def test_a_run_in_progress_gains_a_sample_without_a_reload(browser, tmp_path) -> None:
    run = write_run(tmp_path / "runs" / "live", [sample("first")])
    with serving([tmp_path / "runs"]) as base:
        browser.get(f"{base}/run?{urlencode({'r': run_key(run)})}")
        assert len(css(browser, "#samples tr.sample")) == 1
        browser.execute_script("window.__sameDocument = 'yes'")
        append(run, [sample("second", solved=False)])
        wait_for(lambda: len(css(browser, "#samples tr.sample")) == 2)
        assert browser.execute_script("return window.__sameDocument") == "yes"
        assert "second" in texts(browser, "#samples")[0]
        browser.get(base + "/")
        browser.execute_script("window.__sameDocument = 'yes'")
        append(run, [sample("third")])
        wait_for(lambda: texts(browser, "td.samples") == ["3"])
        assert browser.execute_script("return window.__sameDocument") == "yes"


def test_hostile_runs_execute_nothing(browser, tmp_path) -> None:
    for name, payload in attack_payloads().items():
        write_run(tmp_path / name, hostile_samples(payload), benchmark=payload)
    with serving([tmp_path]) as base:
        for name, payload in attack_payloads().items():
            key = run_key(tmp_path / name)
            sample_id = hostile_samples(payload)[0].id
            for path in (f"/run?{urlencode({'r': key})}",
                         f"/sample?{urlencode({'r': key, 's': sample_id})}"):
                browser.get(base + path)
                for link in css(browser, "a.diag-link"):
                    link.click()
                assert browser.execute_script("return window.__pwned") is None, (name, path)
                assert browser.current_url.startswith(base), (name, path)
            # the payload is shown, as text (Markdown decodes entities and NUL becomes U+FFFD)
            word = max(re.findall(r"[A-Za-z_]{4,}", payload), key=len)
            assert word in css(browser, "#transcript")[0].text, name


def _png_size(path: Path) -> tuple[int, int]:
    width, height = struct.unpack(">II", path.read_bytes()[16:24])
    return width, height


def _screenshot(driver: Any, path: Path, width: int = 1400, limit: int = 2400) -> None:
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(width, min(max(int(height) + 20, 600), limit))
    driver.save_screenshot(str(path))
    driver.set_window_size(1400, 1000)


def test_screenshots(browser, tmp_path, monkeypatch) -> None:
    """The README's pictures: the run list, a sample, a comparison."""
    out = Path(os.environ.get("KERNEL_SCREENSHOTS") or tmp_path).resolve()
    monkeypatch.chdir(tmp_path)  # runs are named as from a project directory: runs/...
    runs = Path("runs")
    write_run(runs / "20261122-101500-tla", tla_demo_samples(), benchmark="tla", version="1.0",
              tools={"tla2tools": "1.8.0"})
    a = write_run(runs / "20261123-090000-respec-a", [
        sample(t, model="openai:gpt-4o", solved=sa, digest=t, cost=0.012, tokens=(900, 400),
               metrics={"passed": float(sa), "check_rate": rate_a(i)})
        for i, (t, (sa, _)) in enumerate(zip(TASKS, outcomes(), strict=True))],
        benchmark="respec", version="1.2")
    b = write_run(runs / "20261123-093000-respec-b", [
        sample(t, model="anthropic:claude-sonnet-4-5", solved=sb, digest=t, cost=0.018,
               tokens=(900, 450), metrics={"passed": float(sb), "check_rate": rate_b(i)})
        for i, (t, (_, sb)) in enumerate(zip(TASKS, outcomes(), strict=True))],
        benchmark="respec", version="1.2")
    out.mkdir(parents=True, exist_ok=True)
    with serving([runs]) as base:
        browser.get(base + "/")
        _screenshot(browser, out / "viewer-runs.png", limit=700)
        key = run_key(runs / "20261122-101500-tla")
        sample_id = tla_demo_samples()[0].id
        browser.get(f"{base}/sample?{urlencode({'r': key, 's': sample_id})}")
        _screenshot(browser, out / "viewer-sample.png", limit=2300)
        browser.get(f"{base}/compare?{urlencode([('r', run_key(a)), ('r', run_key(b))])}")
        assert "McNemar" in css(browser, "table.tests")[0].text
        _screenshot(browser, out / "viewer-compare.png", limit=1100)
    for name in ("viewer-runs.png", "viewer-sample.png", "viewer-compare.png"):
        width, height = _png_size(out / name)
        assert width >= 1000 and height >= 500
