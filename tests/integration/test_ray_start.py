"""The embedded Ray's start on a busy machine: when Ray's node misses Ray's fixed 30 s to register, the
start is tried again and a real Ray comes up; any other failure is raised at once."""

import pytest
import ray

from gorila.runtime.ray import cluster


def test_a_node_that_missed_its_registration_window_is_started_again(monkeypatch, capsys):
    real, calls = cluster._start_embedded_once, []

    def late_once(slots):
        calls.append(slots)
        if len(calls) == 1:  # what Ray raises when its raylet registers after 30 s
            raise Exception("The current node timed out during startup. This could happen because ...")
        real(slots)

    monkeypatch.setattr(cluster, "_start_embedded_once", late_once)
    try:
        cluster.start_embedded(1)
        assert ray.is_initialized() and ray.cluster_resources()["CPU"] >= 1
    finally:
        cluster.disconnect()
    assert calls == [1, 1]
    assert "starting it again (2 of 3)" in capsys.readouterr().err


def test_other_start_failures_and_the_last_attempt_are_raised(monkeypatch):
    calls = []

    def fails(slots, error):
        calls.append(slots)
        raise error

    monkeypatch.setattr(cluster, "_start_embedded_once", lambda slots: fails(slots, RuntimeError("no space left")))
    with pytest.raises(RuntimeError, match="no space left"):
        cluster.start_embedded(1)
    assert len(calls) == 1
    calls.clear()
    late = Exception("The current node timed out during startup.")
    monkeypatch.setattr(cluster, "_start_embedded_once", lambda slots: fails(slots, late))
    with pytest.raises(Exception, match="timed out during startup"):
        cluster.start_embedded(1, attempts=2)
    assert len(calls) == 2
