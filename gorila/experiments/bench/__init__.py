"""`gorila bench`: each stage of Gorila against its own limit, side by side in one run.

Every figure is a ratio of two rates measured here, one after the other, on the same cores: what the
stage achieves inside Gorila over what the bare operation achieves alone. Absolute rates are printed
too, but only the ratios compare across machines.

- actor:      Atari agent steps/s of one actor at its final epsilon (Nature CNN epsilon-greedy inference
              and replay insert included) / bare ALE stepping with the same preprocessing and random
              actions;
- learner:    updates/s of the full learner step (sample, loss, gradient, push, pull) / a bare PyTorch
              train step on the same network and batch; on the local runtime and on Ray;
- server:     push+pull round trip and applied gradients/s for the Nature CNN with 1, 2, 4, 8 shards
              on Ray / an in-memory copy of the same bytes;
- replay:     bytes per stored Atari transition, insert and sample rates, uniform and prioritised
              (and the prioritised memory's priority updates);
- end_to_end: Atari agent steps/s and updates/s of 1 and 2 bundles on Ray at DQN's ratio (one torch
              thread each), and 1 bundle with as many torch threads as the plain single-process DQN
              (all cores) / that DQN at the same ratio, batch and network;
- memory:     resident memory of a bundle once its replay is full, at the start and end of a window;
- scaling:    (not by default) aggregate Atari frames/s of 1, 2, 4, 8, 16 actors on an embedded Ray;
- shared_device: (not by default) aggregate updates/s of 1 and 4 learners on Ray sharing the device,
              each beside its parameter shard / one bare PyTorch step there (benchmarks/device.sh).

The stage sections are in `stages`, the whole-system ones in `system`, what they share in `common`;
`runner.run_bench` measures the chosen ones. This module itself imports nothing heavy: the command
line shows the sections in its help without loading PyTorch.
"""

SECTIONS = ("actor", "learner", "server", "replay", "end_to_end", "memory")
EXTRA_SECTIONS = ("scaling", "shared_device")  # for machines with a GPU and many cores (benchmarks/device.sh)
