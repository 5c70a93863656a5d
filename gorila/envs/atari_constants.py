"""DQN's Atari settings (Mnih et al., 2015), and Machado et al.'s (2018) sticky actions: the one place
they are written down.

ale-py's vector environment (training, null-op evaluation) and `AtariGame` (the other evaluation
protocols, start points) both play by them, and the evaluation results record them.
"""

FRAMESKIP = 4  # emulator frames per agent step: each action is repeated 4 times
FRAME_MAX_POOL = 2  # the observed frame is the pixel-wise max of the last 2 frames
FRAME_SIZE = 84  # frames are shrunk to 84x84 grey
STACK = 4  # an observation stacks the last 4 frames
NOOP_MAX = 30  # null-op starts: up to 30 no-op actions at the start of an episode
FULL_ACTIONS = 18  # ALE's full action set; a game's minimal set is smaller
NOOP, FIRE = 0, 1  # ALE action ids
STICKY_ACTIONS = 0.25  # Machado et al. (2018): each frame repeats the previous action with this
# probability (DQN played without: 0.0)
EVAL_MAX_FRAMES = 18_000  # 5 minutes at 60 Hz: DQN's evaluation cap on an episode
MAX_EPISODE_FRAMES = 108_000  # 30 minutes at 60 Hz: ale-py's default cap, used in training and by
# the human-starts and Machado et al. (2018) protocols
