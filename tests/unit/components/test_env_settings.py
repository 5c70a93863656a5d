"""Actors and evaluators play the game as the config says: a `--preset machado` actor and its evaluator
both step emulators with sticky actions and the full action set, the actor without life-loss terminals."""

from gorila.components.actor import Actor
from gorila.config import build_config
from gorila.messages import EnvInfo
from gorila.system import builders
from gorila.system.agent_builders import actor_for, make_evaluator


def breakout(actions: int) -> EnvInfo:
    return EnvInfo((4, 84, 84), "uint8", actions, (84, 84), 4, 4, True)


def actor_of(config, info: EnvInfo) -> Actor:
    """Actor 0 of `config`, its network taken from theta_0 (no parameter server, no replay)."""

    class Theta:
        def pull(self, prefetch=False):
            return builders.initial_parameters(config, info), False

    return actor_for(config, info, 0, Theta(), writer=None)


def test_a_machado_actor_and_its_evaluator_play_with_sticky_full_actions():
    config = build_config("machado", overrides={"env": "Breakout", "runtime": "local", "eval_episodes": 2})
    actor, evaluator = actor_of(config, breakout(18)), make_evaluator(config, breakout(18))
    try:
        for env in (actor.env, evaluator.env):
            assert (env.sticky_actions, env.num_actions, env._max_frames, env._life_loss) == (0.25, 18, 108_000, False)
    finally:
        actor.env.close()
        evaluator.close()


def test_a_dqn_actor_keeps_the_minimal_set_and_the_life_loss_signal():
    actor = actor_of(build_config("atari", overrides={"env": "Breakout", "runtime": "local"}), breakout(4))
    try:
        assert (actor.env.sticky_actions, actor.env.num_actions, actor.env._life_loss) == (0.0, 4, True)
    finally:
        actor.env.close()
