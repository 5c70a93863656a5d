"""The paper's components, plain objects that never know where they run: `Actor`, `Learner`, the
`Bundle` of both around a local replay, the `Evaluator`, the replay memory (`replay/`) and the
parameter server (`parameter_server/`). A runtime places them; `system.builders` makes them."""
