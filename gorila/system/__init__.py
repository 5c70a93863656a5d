"""The system around the components: `planning` works out once what a config implies for a run, its
`plan` (`RunPlan`: processes and resources, replay layout, schedules, staleness, rounds);
`agent_builders` make the actors, learners and evaluator from the config and `builders` the shards,
replays, clients and bundles from the config and the plan, `topology` wires
any topology (`build_system`), `driver` drives the run (`run_records` writes what it counts,
`evaluations` evaluates theta+ as it goes, `keeping` checkpoints it, `resumed_replay` says what a
resumed run's replay holds), `scheduler` is the budget policy, `stop_rule` decides when
to evaluate and when a run is solved, `recovery` handles failed components (`faults`: the allowance
and what a fault says), `preflight` checks a config before anything starts, `signals` turns Ctrl-C
and SIGTERM into a clean stop."""
