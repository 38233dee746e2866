"""What ``kernel list`` and ``kernel list options respec`` show for this plugin: every
component it registers, every metric they report and every option of its benchmarks say in one
line what they are, and an option description names only options that exist."""

from __future__ import annotations

import re

import pytest
from speckernel.plugins import Registry

from speckernel_respec import plugin

NAMED_OPTION = re.compile(r"\boption (\w+)|\b(\w+)=")
"""How a description refers to another option: ``option NAME`` or ``NAME=VALUE``."""


@pytest.fixture(scope="module")
def registry() -> Registry:
    registry = Registry()
    registry.add_plugin(plugin, "respec")
    assert not registry.failures
    return registry


def one_line(text: object) -> bool:
    return isinstance(text, str) and bool(text.strip()) and "\n" not in text


def test_every_option_is_described_and_names_only_real_options(registry: Registry) -> None:
    benchmarks = list(registry.all("benchmark"))
    assert benchmarks
    for bench in benchmarks:
        described = dict(bench.option_descriptions)
        assert set(described) == set(bench.options), bench.name
        for key, text in described.items():
            assert one_line(text), (bench.name, key)
            named = {a or b for a, b in NAMED_OPTION.findall(text)}
            assert named <= set(bench.options), (bench.name, key, named - set(bench.options))


def test_every_component_and_metric_is_described(registry: Registry) -> None:
    for kind, table in registry.components.items():
        for name, obj in table.items():
            assert one_line(obj.description), (kind, name)
            for metric in getattr(obj, "metrics", ()):
                assert one_line(metric.description), (kind, name, metric.name)
    assert registry.names("scorer") and registry.names("verifier") and registry.names("agent")
