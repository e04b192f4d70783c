"""``hand_common.metrics``' instruments: prometheus-client's, with ``labels`` cached per label set
and histogram buckets found by bisection — the same samples as the library's own."""

from __future__ import annotations

import math

import prometheus_client
from prometheus_client import CollectorRegistry

from hand_common import metrics

BUCKETS = metrics.FAST_BUCKETS


def _samples(metric) -> dict:
    return {(s.name, tuple(sorted(s.labels.items()))): s.value for f in metric.collect() for s in f.samples
            if not s.name.endswith("_created")}  # when a series began: differs between two metrics


def test_a_cached_histogram_counts_as_the_librarys_own() -> None:
    ours = metrics.histogram("hand_test_cached_seconds", "t", ["path"], buckets=BUCKETS,
                             registry=CollectorRegistry())
    lib = prometheus_client.Histogram("hand_test_cached_seconds", "t", ["path"], buckets=BUCKETS,
                                      registry=CollectorRegistry())
    values = [0.0, 0.0005, 0.0007, 0.001, 0.003, 0.25, 9.9, 10.0, 11.0, 1e9, -1.0, math.nan]
    for m in (ours, lib):
        for v in values:
            m.labels("local").observe(v)
        m.labels(path="forwarded").observe(0.02)
    assert _samples(ours).keys() == _samples(lib).keys()
    for key, value in _samples(lib).items():
        assert _samples(ours)[key] == value or (math.isnan(value) and math.isnan(_samples(ours)[key])), key


def test_labels_is_one_child_per_label_set_and_remove_forgets_it() -> None:
    gauge = metrics.gauge("hand_test_cached_lag", "t", ["group", "partition"], registry=CollectorRegistry())
    child = gauge.labels("g", "0")
    assert gauge.labels("g", "0") is child and gauge.labels(group="g", partition="0") is child
    child.set(5)
    gauge.remove("g", "0")
    assert ("hand_test_cached_lag", (("group", "g"), ("partition", "0"))) not in _samples(gauge)
    fresh = gauge.labels("g", "0")
    assert fresh is not child
    fresh.set(2)
    assert _samples(gauge)[("hand_test_cached_lag", (("group", "g"), ("partition", "0")))] == 2
    gauge.clear()
    assert gauge.labels("g", "0") is not fresh


def test_the_null_metric_takes_every_call_the_services_make() -> None:
    null = metrics.NULL_METRIC
    assert null.labels("a", "b") is null and null.labels(kind="x") is null
    null.inc(); null.dec(2); null.set(1); null.observe(0.1); null.remove("a"); null.clear()
    with null.time():
        pass
