"""Experiments built on training and evaluation: the paper's 49-game table (`suite/`), reports of runs
and suites with plots and video (`report/`), and `gorila bench` (`bench`)."""
