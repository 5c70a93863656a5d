"""A run directory is claimed at launch, atomically: two launches never share one, and one that cannot
be made or is not empty is named in one line."""

import os
import pwd
import shutil
import sys
import tempfile
import traceback
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

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
    assert claim_run_dir(Config(run_dir=str(path))) == (path, False)  # empty: still usable
    (path / "metrics.jsonl").write_text("")
    assert error_of(claim_run_dir, Config(run_dir=str(path))).endswith(
        "already exists and is not empty; choose another --run-dir"
    )


def test_a_run_dir_that_cannot_be_made_is_named(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert (
        error_of(claim_run_dir, Config(run_dir=str(blocker / "run")))
        == f"run_dir: cannot create {blocker / 'run'} (Not a directory)"
    )
    assert (
        error_of(claim_run_dir, Config(run_dir=str(blocker)))
        == f"run_dir: {blocker} is a file; choose another --run-dir"
    )


def refuses_a_read_only_folder(folder: Path):
    read_only = folder / "ro"
    read_only.mkdir(mode=0o555)
    assert error_of(claim_run_dir, Config(run_dir=str(read_only / "run"))).startswith(
        f"run_dir: cannot create {read_only / 'run'} (Permission denied)"
    )
    assert error_of(claim_run_dir, Config(run_dir=str(read_only))) == (
        f"run_dir: cannot write in {read_only} (Permission denied)"
    )
    read_only.chmod(0o755)  # the same folder, writable: both are claimed
    assert claim_run_dir(Config(run_dir=str(read_only))) == (read_only, False)
    assert claim_run_dir(Config(run_dir=str(read_only / "run"))) == (read_only / "run", True)


def test_a_read_only_parent_or_run_dir_is_refused(tmp_path):
    if os.geteuid() != 0:
        refuses_a_read_only_folder(tmp_path)
        return
    # root writes through permissions: the checks run in a child process that has become `nobody`, in a
    # folder of its own (pytest's tmp_path is root's alone)
    try:
        nobody = pwd.getpwnam("nobody")
        uid, gid = nobody.pw_uid, nobody.pw_gid
    except KeyError:
        uid = gid = 65534
    folder = Path(tempfile.mkdtemp())
    try:
        os.chown(folder, uid, gid)
        pid = os.fork()
        if pid == 0:  # the child: its failure's traceback goes to the test's captured stderr
            code = 1
            try:
                os.setgroups([])
                os.setgid(gid)
                os.setuid(uid)
                refuses_a_read_only_folder(folder)
                code = 0
            except BaseException:
                traceback.print_exc()
            finally:
                sys.stderr.flush()
                os._exit(code)
        assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0, (
            "the checks failed as nobody (its traceback: captured stderr)"
        )
    finally:
        shutil.rmtree(folder)


def test_an_existing_empty_run_dir_is_held_by_one_launch_and_the_second_is_told_who(tmp_path, capsys):
    from gorila import cli
    from gorila.records.run_dirs import LOCK, RunLock

    run_dir = tmp_path / "empty"
    run_dir.mkdir()
    path, created = claim_run_dir(Config(run_dir=str(run_dir)))
    lock = RunLock(path)  # the first launch, still running
    assert (run_dir / LOCK).read_text().startswith(f"gorila pid {os.getpid()} on ")
    with pytest.raises(ConfigError, match=rf"run_dir: {run_dir} is in use by gorila pid {os.getpid()} on "):
        RunLock(run_dir)
    assert cli.main(["train", "--preset", "cartpole", "--runtime", "local", "--run-dir", str(run_dir)]) == 2
    assert f"is in use by gorila pid {os.getpid()}" in capsys.readouterr().err
    lock.release()
    assert list(run_dir.iterdir()) == []  # the lock file is no part of the run


def test_a_lock_left_by_a_killed_run_is_taken_over(tmp_path):
    from gorila.records.run_dirs import LOCK, RunLock

    (tmp_path / LOCK).write_text("gorila pid 1 on elsewhere since long ago\n")  # nobody holds it any more
    RunLock.refuse_if_held(tmp_path)
    lock = RunLock(tmp_path)
    assert (tmp_path / LOCK).read_text().startswith(f"gorila pid {os.getpid()}")
    lock.release()


def test_a_resume_beside_a_live_run_is_refused_before_it_reads_anything(tmp_path, capsys):
    from gorila import cli
    from gorila.records.run_dirs import RunLock

    (tmp_path / "checkpoints").mkdir()
    lock = RunLock(tmp_path)
    assert cli.main(["train", "--resume", str(tmp_path)]) == 2
    assert "is in use by gorila pid" in capsys.readouterr().err
    lock.release()
