"""Table 1 (pass rate, hours, dollars per spec) and Figure 4 (performance against the reference
implementation), from recorded samples."""

from __future__ import annotations

from speckernel.model import Candidate, Provenance, Sample, SampleKey, Score, Status, Usage

from speckernel_rocq_ids.report import performance_table, sweep_table, synthesis_table


def sample(task: str, agent: str, index: int, passed: bool, hours: float = 0.0,
           dollars: float = 0.0, **measured: float) -> Sample:
    provenance = Provenance(agent, "m", usage=Usage(cost_usd=dollars), wall_time_s=hours * 3600)
    return Sample(SampleKey(task, agent, "m", index),
                  Status.SUCCESS if passed else Status.FAILURE,
                  Candidate({"Impl.v": ""}, provenance),
                  scores=(Score("rocq_ids.pass", {"pass": 1.0 if passed else 0.0}),),
                  measurements=measured)


def test_table_1_pass_rate_hours_dollars() -> None:
    table = synthesis_table([sample("cc", "ids", 0, True, 2.0, 30.0),
                             sample("cc", "ids", 1, False, 1.0, 10.0),
                             sample("mr", "prompt", 0, False, 0.01, 0.5)])
    assert table.columns[-4:] == ("passed", "pass rate", "hours", "dollars")
    assert table.rows == (("cc", "ids", "m", 2, "1/2", "50%", "1.500", "20.00"),
                          ("mr", "prompt", "m", 1, "0/1", "0%", "0.010", "0.50"))


def test_figure_4_against_the_reference() -> None:
    table = performance_table([
        sample("ryw", "reference", 0, True, throughput_ops_s=1000.0, p99_latency_ms=4.0,
               peak_rss_mb=12.0),
        sample("ryw", "ids", 0, True, throughput_ops_s=2500.0, p99_latency_ms=2.0,
               peak_rss_mb=10.0),
        sample("ryw", "ids", 1, True, throughput_ops_s=3500.0),
        sample("ryw", "ids", 2, False, throughput_ops_s=99999.0),
        sample("mw", "ids", 0, True, throughput_ops_s=800.0),
    ])
    dash = "\u2013"
    assert table.rows == (("mw", "ids", "m", "800", dash, dash, dash, dash),
                          ("ryw", "ids", "m", "3000", "2.00", "10.0", dash, "3.00"),
                          ("ryw", "reference", "m", "1000", "4.00", "12.0", dash, "1.00"))


def test_figure_4_against_the_expert_measured_alongside() -> None:
    """The harness runs the expert reference implementation in the same cluster run."""
    figures = {"throughput_ops_s": 2000.0, "expert_throughput_ops_s": 1000.0, "x_expert": 2.0,
               "throughput_ops_s@put0.5/ops2000": 2000.0, "x_expert@put0.5/ops2000": 2.0,
               "throughput_ops_s@put0.1/ops500": 900.0, "x_expert@put0.1/ops500": 0.9}
    table = performance_table([sample("ryw", "ids", 0, True, **figures)])
    assert table.rows == (("ryw", "ids", "m", "2000", "\u2013", "\u2013", "1000", "2.00"),)
    sweep = sweep_table([sample("ryw", "ids", 0, True, **figures)])
    assert sweep.columns[3:] == ("put0.1/ops500", "put0.5/ops2000")
    assert sweep.rows == (("ryw", "ids", "m", "900 (0.90x)", "2000 (2.00x)"),)


def test_figure_4_without_harness_metrics() -> None:
    table = performance_table([sample("ryw", "reference", 0, True)])
    assert table.rows == ()
    assert "throughput_ops_s, p99_latency_ms, peak_rss_mb" in table.note
