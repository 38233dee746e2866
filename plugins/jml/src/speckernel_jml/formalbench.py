"""FormalBench's published dataset from a user-given path (notes §A1).

``base/meta_data.jsonl`` has one program per line (``code``, ``class_name``, ``javadoc`` and in
some copies ``category``); ``base/programs/<Class>.java`` holds the same programs as files (the
file wins when present, as FormalBench's experiments read it). ``diverse/natural.json`` maps each
base class to ``[rule_k, stem]`` pairs naming ``diverse/rule_k/<stem>.java``, the "natural"
transformed variants FormalBench's loader reads; a pair whose file is missing is skipped.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from speckernel.errors import KernelError
from speckernel.model import Task

from speckernel_jml.bundled import make_task
from speckernel_jml.javasource import top_level_class
from speckernel_jml.testinputs import calls_as_metadata, calls_in_javadoc

PREFIX = "formalbench"


def _description(javadoc: str) -> str:
    """The Javadoc's text without its comment markers (the MBPP-style "Write a function ...")."""
    lines = []
    for raw in javadoc.strip().removeprefix("/**").removesuffix("*/").splitlines():
        line = raw.strip().lstrip("* \t").strip()
        if line:
            lines.append(line)
    return "\n".join(lines)


def load_base(root: Path) -> Iterator[Task]:
    """Formal-Base: one task per meta_data line, in file order (no reference specs)."""
    meta = root / "base" / "meta_data.jsonl"
    if not meta.is_file():
        raise KernelError(f"option formalbench_path: no {meta}")
    programs = root / "base" / "programs"
    for number, line in enumerate(meta.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            class_name = str(record["class_name"])
        except (ValueError, KeyError, TypeError) as exc:
            raise KernelError(f"{meta}:{number}: not a FormalBench record ({exc})") from exc
        program = programs / f"{class_name}.java"
        code = program.read_text(encoding="utf-8") if program.is_file() else str(record["code"])
        description = _description(str(record.get("javadoc", "")))
        yield make_task(
            f"{PREFIX}/{class_name}", class_name, code, description,
            {"category": record.get("category"), "source": "formalbench", "base_task": None,
             "rule": None, "test_class": None, "test_source": None,
             "test_calls": calls_as_metadata(calls_in_javadoc(description))},
        )


def load_diverse(root: Path, base: dict[str, Task]) -> Iterator[Task]:
    """Formal-Diverse's natural subset: one task per listed variant whose file exists, keyed
    ``<base>--<rule>--<stem>`` as upstream's loader does."""
    natural = root / "diverse" / "natural.json"
    if not natural.is_file():
        raise KernelError(f"option formalbench_path: no {natural}")
    mapping = json.loads(natural.read_text(encoding="utf-8"))
    for base_class in sorted(mapping):
        origin = base.get(f"{PREFIX}/{base_class}")
        if origin is None:
            continue
        for rule, stem in sorted(tuple(pair) for pair in mapping[base_class]):
            path = root / "diverse" / rule / f"{stem}.java"
            if not path.is_file():
                continue
            code = path.read_text(encoding="utf-8")
            class_name = top_level_class(code) or base_class
            yield make_task(
                f"{origin.id}--{rule}--{stem}", class_name, code,
                str(origin.metadata["description"]),
                {"category": origin.metadata.get("category"), "source": "formalbench-diverse",
                 "base_task": origin.id, "rule": rule, "test_class": None,
                 "test_source": None, "test_calls": origin.metadata.get("test_calls", [])},
            )
