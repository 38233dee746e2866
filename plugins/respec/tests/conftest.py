"""Shared fixtures: which domains are installed, small upstream-format datasets written on the
fly, the public upstream data when it is there, a verifier context on the local sandbox."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from speckernel.components import VerifyContext
from speckernel.sandbox.base import Limits
from speckernel.testing import verify_context
from speckernel.yamlio import load_yaml, plain

from speckernel_respec import plugin

FOUND_FILE = Path(__file__).parent / "data" / "sql_found.yaml"
FOUND: dict[str, Any] = plain(load_yaml(FOUND_FILE.read_text("utf-8"), str(FOUND_FILE)))
"""The SQL query pairs of issue 13's findings, with their truth (``data/sql_found.yaml``)."""

SHARED_DATA = Path(__file__).resolve().parents[3].parent / "shared" / "data" / "respec"
"""The public upstream inputs (FOLIO, DeepRegex) beside the repository; never copied into it."""

REGEXES = [("lines containing the word 'dog'", ".*dog.*"),
           ("lines made only of digits", "[0-9]+"),
           ("lines that do not contain the letter 'e'", "~(.*e.*)")]

FOLIO_LINES = [
    {"premises": ["All cats are mammals.", "Tom is a cat."],
     "premises-FOL": ["∀x (Cat(x) → Mammal(x))", "Cat(tom)"],
     "conclusion": "Tom is a mammal.", "conclusion-FOL": "Mammal(tom)", "label": "True"},
    {"premises": ["All cats are mammals.", "Tom is a cat."],
     "premises-FOL": ["∀x (Cat(x) → Mammal(x))", "Cat(tom)"],
     "conclusion": "Tom loves Ann.", "conclusion-FOL": "Loves(tom, ann)", "label": "Uncertain"},
]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def present() -> tuple[str, ...]:
    """The domains whose module imports here (the others are being written or lack a dep)."""
    return tuple(plugin.loaded().verifiers)


def require(domain: str) -> None:
    """Skip the calling test unless ``domain``'s verifier is installed."""
    missing = plugin.loaded().missing
    if domain in missing:
        pytest.skip(f"domain {domain} not available: {missing[domain]}")


@pytest.fixture
def regex_data(tmp_path: Path) -> Path:
    """A three-task DeepRegex dataset (src.txt/targ.txt); needs the regex domain."""
    require("regex")
    root = tmp_path / "deepregex" / "Tiny"
    root.mkdir(parents=True)
    (root / "src.txt").write_text("".join(nl + "\n" for nl, _ in REGEXES), encoding="utf-8")
    (root / "targ.txt").write_text("".join(rx + "\n" for _, rx in REGEXES), encoding="utf-8")
    return root


@pytest.fixture
def folio_data(tmp_path: Path) -> Path:
    """A two-line FOLIO jsonl file (one story, two conclusions)."""
    path = tmp_path / "folio.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in FOLIO_LINES),
                    encoding="utf-8")
    return path


@pytest.fixture
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"no public upstream data at {SHARED_DATA}")
    return SHARED_DATA


@pytest.fixture
def make_ctx() -> Iterator[Callable[..., VerifyContext]]:
    """``make_ctx(**options)``: a verifier context like the runner's (local sandbox, kernel
    worker pool for ``run_sync``, the plugin's detected tools); its workers stop at the end."""
    made: list[VerifyContext] = []

    def make(**options: Any) -> VerifyContext:
        ctx = verify_context(toolchains=plugin.loaded().toolchains, limits=Limits(wall_s=60),
                             options={"timeout_s": 4.0, **options})
        made.append(ctx)
        return ctx

    yield make
    for ctx in made:
        ctx.workers.close()
