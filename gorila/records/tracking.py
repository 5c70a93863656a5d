"""Weights & Biases tracking (`--track`): the run's config and the same scalars as TensorBoard.

Optional: `pip install 'gorila[track]'`. Every record's scalars go to W&B under their TensorBoard tags
(`train/fps`, `eval/eval_return_mean`, ...) with `env_frames`, which is their x-axis. W&B's own step
only counts the records: an evaluation of the parameters at some frames finishes after training
records of later frames were logged, and a resumed run logs again the frames its stopped part had
logged past the checkpoint, and W&B drops whatever is logged at a step below its last.

The run directory keeps the W&B run's id (`wandb-run-id`), so that `gorila train --resume` continues
the same W&B run, and W&B's own files (`wandb/`: with WANDB_MODE=offline, a local run to `wandb sync`).
"""

from __future__ import annotations

from pathlib import Path

from gorila.config import Config, ConfigError
from gorila.records.durable import write_text_atomically

INSTALL = "pip install 'gorila[track]'"
RUN_ID_FILE = "wandb-run-id"
LOCAL_MODES = ("offline", "dryrun", "disabled")  # W&B modes that need no account


def check_tracking(config: Config) -> None:
    """A tracked run can start a W&B run here without anyone answering a prompt: wandb is installed,
    and W&B runs offline or has an API key. Else a ConfigError that says what to do.

    Without a key and with a terminal, `wandb.init` would stop the run to ask for one; without a
    terminal it fails with a traceback. Whether a key is there is read without asking (`prompt=False`)
    and without the network (`verify=False`).
    """
    if not config.track:
        return
    try:
        import wandb
    except ImportError:
        raise ConfigError(f"track: Weights & Biases is not installed ({INSTALL})") from None
    try:
        local = wandb.setup().settings.mode in LOCAL_MODES
        logged_in = local or wandb.login(prompt=False, verify=False)
    except Exception as error:  # its settings (a WANDB_MODE it does not know) or its credentials file
        raise ConfigError(f"track: Weights & Biases cannot start: {one_line(error)}") from None
    if not logged_in:
        raise ConfigError(
            "track: Weights & Biases has no API key here; run `wandb login` (or set WANDB_API_KEY), "
            "or set WANDB_MODE=offline to write a local run to `wandb sync` later"
        )


def one_line(error: Exception) -> str:
    """An exception's message on one line (W&B's and pydantic's run over several)."""
    return " ".join(str(error).split()) or type(error).__name__


class WandbRun:
    """A W&B run beside TensorBoard: `log` takes what TensorBoard is given, `finish` ends the run."""

    def __init__(self, run):
        self.run = run
        run.define_metric("env_frames")
        run.define_metric("*", step_metric="env_frames")

    @classmethod
    def start(cls, config: Config, run_dir: Path) -> WandbRun | None:
        """The W&B run of a tracked training run (None when `config.track` is off): a new one, or the
        one whose id the run directory keeps (a resumed run)."""
        if not config.track:
            return None
        check_tracking(config)
        import wandb

        id_file = Path(run_dir) / RUN_ID_FILE
        run_id = id_file.read_text().strip() if id_file.is_file() else None
        try:
            run = wandb.init(
                project=config.wandb_project,
                entity=config.wandb_entity or None,
                name=config.wandb_run_name or Path(run_dir).name,
                dir=str(run_dir),
                config=config.to_dict(),
                id=run_id,
                resume="allow",
            )
        except wandb.errors.Error as error:
            raise ConfigError(
                f"track: Weights & Biases could not start a run ({one_line(error)}); "
                "set WANDB_MODE=offline to write a local run instead"
            ) from None
        write_text_atomically(id_file, run.id + "\n")
        return cls(run)

    def log(self, tags: dict, env_frames: int) -> None:
        self.run.log({"env_frames": int(env_frames), **tags})

    def finish(self, exit_code: int) -> None:
        """End the run: 0 finished, anything else failed (130: interrupted), as the process exits."""
        self.run.finish(exit_code=exit_code)
