"""`gorila suite`: one run per Atari game, then the paper's table beside the published DQN and Gorila
scores. `plan` says what to run and runs a game, `driver` runs the games in turn or at once on Ray,
`table` writes the results table."""
