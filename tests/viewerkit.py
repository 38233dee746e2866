"""The viewer as its tests meet it: served by uvicorn on a free port of 127.0.0.1 in a thread,
and driven by Selenium in Debian's headless Chromium (``kernel tools install browser``)."""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from speckernel.viewer.server import bind, make_server
from speckernel.viewer.toolchain import CHROMEDRIVER, chromium_flags, find_browser


@contextmanager
def serving(dirs: Sequence[Path]) -> Iterator[str]:
    """The viewer over ``dirs``; yields its base URL (``http://127.0.0.1:PORT``)."""
    sock = bind(0)
    server = make_server(dirs, sock)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the viewer did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


@contextmanager
def chromium(width: int = 1400, height: int = 1000) -> Iterator[Any]:
    """A Selenium driver on headless Chromium with a fresh profile and every background network
    feature off (the machine has no network: Chromium would otherwise hang on look-ups). Without
    Chromium the test is skipped, or fails where ``KERNEL_REQUIRE_BROWSER=1`` (CI) says it must
    run."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    browser = find_browser()
    if browser is None:
        reason = "Chromium/chromedriver missing: kernel tools install browser"
        if os.environ.get("KERNEL_REQUIRE_BROWSER") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    profile = tempfile.mkdtemp(prefix="speckernel-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in chromium_flags(profile, width, height):
        options.add_argument(flag)
    service = Service(executable_path=shutil.which(CHROMEDRIVER) or CHROMEDRIVER,
                      env={**os.environ, "SE_AVOID_STATS": "true"})
    driver = webdriver.Chrome(options=options, service=service)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
