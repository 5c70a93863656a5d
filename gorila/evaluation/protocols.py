"""Evaluation protocols for Atari: how an evaluation episode begins, how long it may last, what the
agent may do. `PROTOCOL_NAMES` is the list the command line offers; importing this module costs no
torch, Ray or Gymnasium. The episodes themselves are played by `gorila.evaluation.protocol_env`.

- `noop` (DQN, Mnih et al. 2015; Gorila's table 2): up to 30 no-op actions at the start, epsilon
  0.05, at most 18,000 frames (5 minutes). Played on ale-py's vector environment, as in training.
- `human-starts` (Gorila's headline protocol, table 3): each episode begins at a start point reached
  by someone else's play; only the reward earned after the start point counts; at most 108,000 frames
  including those played to reach the start. Played on `AtariGame`, which can replay a start.
- `machado` (Machado et al. 2018): sticky actions (each frame repeats the previous action with
  probability 0.25), the full set of 18 actions, no life-loss signal, at most 108,000 frames. A run
  trained so (`--preset machado`) is played as it was trained, its network choosing among all 18
  actions; a network trained on a game's minimal set (DQN's way) still plays through its minimal
  actions' ALE ids, never choosing one of the others (`gorila.evaluation.protocol_env`).

Every protocol sets its own sticky actions whatever the training used; the network keeps the action
set it was trained with (under `noop` too, a network of 18 actions plays the full set).
"""

from __future__ import annotations

import dataclasses

from gorila.envs.atari_constants import EVAL_MAX_FRAMES, MAX_EPISODE_FRAMES, NOOP_MAX, STICKY_ACTIONS
from gorila.envs.registry import EnvError

DQN_EVAL_EPSILON = 0.05  # exploration rate of DQN's evaluations, kept by every protocol here


@dataclasses.dataclass(frozen=True)
class EvaluationProtocol:
    """One evaluation protocol's settings (frames are emulator frames, 4 per agent step)."""

    name: str
    epsilon: float  # exploration rate of the evaluated policy
    max_frames: int  # cap on an episode's frames (human starts: the start's frames included)
    noop_max: int  # random no-op actions at the start of an episode (up to)
    sticky_actions: float  # probability that a frame repeats the previous action
    full_action_set: bool  # the environment accepts all 18 ALE actions
    start_points: bool  # episodes begin at recorded start points
    life_loss_signal: bool = False  # evaluation never ends anything at a life loss

    def settings(self) -> dict:
        return dataclasses.asdict(self)


PROTOCOLS = {
    protocol.name: protocol
    for protocol in (
        EvaluationProtocol("noop", DQN_EVAL_EPSILON, EVAL_MAX_FRAMES, NOOP_MAX, 0.0, False, False),
        EvaluationProtocol("human-starts", DQN_EVAL_EPSILON, MAX_EPISODE_FRAMES, 0, 0.0, False, True),
        EvaluationProtocol("machado", DQN_EVAL_EPSILON, MAX_EPISODE_FRAMES, 0, STICKY_ACTIONS, True, False),
    )
}
PROTOCOL_NAMES = tuple(PROTOCOLS)
LABELS = {"noop": "null-op starts", "human-starts": "human starts", "machado": "sticky actions (Machado et al.)"}


def trained_protocol(sticky_actions: float, atari: bool) -> str:
    """The protocol a run is evaluated under when none is named: `machado` for an Atari run trained
    with sticky actions, so that it is played as it was trained; `noop` otherwise."""
    return "machado" if atari and sticky_actions > 0 else "noop"


def get_protocol(name: str) -> EvaluationProtocol:
    if name not in PROTOCOLS:
        raise EnvError(f"unknown protocol {name!r}; choose one of {', '.join(PROTOCOLS)}")
    return PROTOCOLS[name]
