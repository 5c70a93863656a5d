"""Hyperparameter sweeps: one normal run directory per trial, scheduled by Ray Tune.

- `space`: the search space from the command line or Python (a grid of values, or random draws from a
  range, over any config fields) and the name of each point;
- `driver`: the trials on Ray Tune (the embedded Ray or a cluster), each a training run on the local
  runtime in one Ray process, reporting its records to Tune (so that an early-stopping scheduler such
  as ASHA can end the trials that trail), and one line of progress per trial;
- `table`: the results, per trial and per point over its seeds, as `results.json`, `results.md` and
  the figure `results.png`.
"""
