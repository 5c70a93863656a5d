"""`gorila report RUN_DIR`: a short summary of a run and a PNG of its learning curve."""
from __future__ import annotations

from pathlib import Path

from gorila.checkpoint import CheckpointError
from gorila.metrics import read_metrics


def human_normalised(env: str, score: float) -> float | None:
    """100 * (score - random) / (human - random) for the paper's Atari games (null-op starts)."""
    from gorila.envs import EnvError, reference_scores, resolve_env
    try:
        spec = resolve_env(env)
        reference = reference_scores(spec.game) if spec.kind == "atari" else None
    except (EnvError, KeyError):
        return None
    if not reference:
        return None
    return 100.0 * (score - reference["random"]) / (reference["human"] - reference["random"])


def plot_learning_curve(records: list[dict], path: Path, title: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    train = [r for r in records if r.get("kind") == "train" and "return_mean" in r]
    evals = [r for r in records if "eval_return_mean" in r]
    figure, axis = plt.subplots(figsize=(7, 4))
    if train:
        axis.plot([r["env_frames"] for r in train], [r["return_mean"] for r in train], label="training return (recent)")
    if evals:
        frames = [r["env_frames"] for r in evals]
        means = [r["eval_return_mean"] for r in evals]
        stds = [r.get("eval_return_std", 0.0) for r in evals]
        axis.errorbar(frames, means, yerr=stds, fmt="o-", capsize=3, label="greedy evaluation")
    axis.set_xlabel("environment frames")
    axis.set_ylabel("episode return")
    axis.set_title(title)
    axis.grid(alpha=0.3)
    axis.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def report_run(run_dir: str) -> str:
    run = Path(run_dir)
    if not (run / "metrics.jsonl").is_file():
        raise CheckpointError(f"{run} is not a run directory (no metrics.jsonl)")
    import yaml
    config = yaml.safe_load((run / "config.yaml").read_text()) if (run / "config.yaml").is_file() else {}
    records = read_metrics(run)
    evals = [r for r in records if "eval_return_mean" in r]
    train = [r for r in records if r.get("kind") == "train"]
    env = config.get("env", "?")
    lines = [f"run {run}: {env}, runtime {config.get('runtime', '?')}, {config.get('actors', '?')} actors, "
             f"{config.get('learners', '?')} learners, {config.get('param_shards', '?')} parameter shards"]
    if train:
        last = train[-1]
        lines.append(f"trained {last['env_frames']:,} frames, {last.get('updates', 0):,} updates in "
                     f"{last['wall_time']:.1f} s")
    if evals:
        best = max(evals, key=lambda r: r["eval_return_mean"])
        lines.append(f"evaluations: {len(evals)}; last {evals[-1]['eval_return_mean']:.1f}; best "
                     f"{best['eval_return_mean']:.1f} at {best['env_frames']:,} frames ({best['wall_time']:.1f} s)")
        normalised = human_normalised(env, best["eval_return_mean"])
        if normalised is not None:
            lines.append(f"best human-normalised score: {normalised:.1f}%")
    plot = run / "learning_curve.png"
    plot_learning_curve(records, plot, f"{env} ({config.get('runtime', '')})")
    lines.append(f"learning curve: {plot}")
    return "\n".join(lines)
