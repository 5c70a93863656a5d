"""`gorila suite`: one run per Atari game, then the paper's table beside the published DQN and Gorila
scores; or one run per MinAtar game beside MinAtar's published DQN curves. `plan` says what to run and
runs a game, `driver` runs the games in turn or at once on Ray, `table` writes the Atari results table
and `minatar_table` the MinAtar one."""
