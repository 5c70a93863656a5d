"""Replay: per-stream ring storage (each frame stored once) and uniform n-step sampling."""

from gorila.components.replay.memory import ReplayMemory
from gorila.components.replay.storage import StreamStorage

__all__ = ["ReplayMemory", "StreamStorage"]
