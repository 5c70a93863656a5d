"""Run metrics: one JSON object per line in metrics.jsonl, the same scalars in TensorBoard.

Every record carries `wall_time` (seconds since launch) and `env_frames`; evaluation records also
carry `eval_return_mean` and `eval_return_std`.
"""
from __future__ import annotations

import json
import time
from pathlib import Path


class MetricsWriter:
    def __init__(self, run_dir: str | Path, start_time: float | None = None, tensorboard: bool = True):
        self.run_dir = Path(run_dir)
        self.start = time.time() if start_time is None else start_time
        self.file = open(self.run_dir / "metrics.jsonl", "a", buffering=1)
        self.tb = None
        if tensorboard:
            from torch.utils.tensorboard import SummaryWriter
            self.tb = SummaryWriter(str(self.run_dir / "tensorboard"))

    def elapsed(self) -> float:
        return time.time() - self.start

    def write(self, kind: str, env_frames: int, values: dict) -> dict:
        record = {"kind": kind, "wall_time": round(self.elapsed(), 3), "env_frames": int(env_frames), **values}
        self.file.write(json.dumps(record) + "\n")
        if self.tb is not None:
            for key, value in values.items():
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    self.tb.add_scalar(f"{kind}/{key}", value, env_frames)
        return record

    def hparams(self, config: dict, final: dict) -> None:
        if self.tb is None:
            return
        flat = {k: (v if isinstance(v, (int, float, str, bool)) else str(v)) for k, v in config.items()}
        self.tb.add_hparams(flat, {f"hparam/{k}": v for k, v in final.items()}, run_name=".")

    def close(self) -> None:
        self.file.close()
        if self.tb is not None:
            self.tb.close()


def read_metrics(run_dir: str | Path) -> list[dict]:
    path = Path(run_dir) / "metrics.jsonl"
    records = []
    for line in path.read_text().splitlines():
        try:
            records.append(json.loads(line))
        except ValueError:
            continue
    return records
