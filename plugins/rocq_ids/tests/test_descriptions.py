"""What ``kernel list`` and ``kernel list options`` show for this plugin: every component it
registers, every metric they report and every option of its benchmarks say in one line what
they are, and an option description names only options that exist."""

from speckernel.testing import undescribed

from speckernel_rocq_ids import plugin


def test_everything_the_plugin_registers_is_described() -> None:
    assert undescribed(plugin, "rocq_ids") == []
