"""A run directory is claimed at launch, atomically: two launches never share one, and one that cannot
be made or is not empty is named in one line."""
import os
from concurrent.futures import ThreadPoolExecutor

import pytest

from gorila.config import Config, ConfigError
from gorila.records.run_dirs import claim_run_dir


def error_of(claim, config) -> str:
    with pytest.raises(ConfigError) as error:
        claim(config)
    return str(error.value)


def test_launches_in_the_same_second_never_share_a_default_run_dir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    config = Config()
    with ThreadPoolExecutor(8) as pool:
        claimed = list(pool.map(lambda _: claim_run_dir(config), range(16)))
    paths = [path for path, created in claimed]
    assert all(created for _, created in claimed)
    assert len(set(paths)) == 16 and all(path.is_dir() for path in paths)
    assert all(str(path.parent) == "runs" and path.name.startswith("CartPole-v1-") for path in paths)


def test_an_explicit_run_dir_is_created_at_once(tmp_path):
    path, created = claim_run_dir(Config(run_dir=str(tmp_path / "a" / "run")))
    assert created and path.is_dir()
    assert claim_run_dir(Config(run_dir=str(path))) == (path, False)     # empty: still usable
    (path / "metrics.jsonl").write_text("")
    assert error_of(claim_run_dir, Config(run_dir=str(path))).endswith("already exists and is not empty; "
                                                                       "choose another --run-dir")


def test_a_run_dir_that_cannot_be_made_is_named(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert error_of(claim_run_dir, Config(run_dir=str(blocker / "run"))) == \
        f"run_dir: cannot create {blocker / 'run'} (Not a directory)"
    assert error_of(claim_run_dir, Config(run_dir=str(blocker))) == \
        f"run_dir: {blocker} is a file; choose another --run-dir"


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through permissions")
def test_a_read_only_parent_is_refused(tmp_path):
    (tmp_path / "ro").mkdir(mode=0o555)
    assert error_of(claim_run_dir, Config(run_dir=str(tmp_path / "ro" / "run"))).startswith(
        f"run_dir: cannot create {tmp_path / 'ro' / 'run'} (Permission denied)")
