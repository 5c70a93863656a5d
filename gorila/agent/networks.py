"""Q-networks (MLP, Nature CNN, MinAtar's small CNN, the Impala ResNet; optional dueling head and
LayerNorm) and the flat-vector view of their parameters.

Each network is a torso (features) and a head built as `head(features, num_actions, hidden, dueling,
layer_norm)`: `QHead` by default; `heads.DistributionalHead` (C51's atoms, noisy layers) fits the same slot.

Parameters and gradients travel between components as one flat float32 vector;
`flat_parameters`, `load_flat_parameters` and `flat_gradients` are the only conversions.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from gorila.agent.impala import impala_features, impala_torso
from gorila.plugins import PluginError, is_reference, reference_of, resolve_callable


def _hidden(x: torch.Tensor, layers, norms=()) -> torch.Tensor:
    """Linear layers, each followed by its LayerNorm in `norms` (if any) and a ReLU, called through
    their weights: for the small networks of classic control, nn.Module's per-call machinery costs
    more than the arithmetic."""
    for i, layer in enumerate(layers):
        x = F.linear(x, layer.weight, layer.bias)
        if norms:
            x = F.layer_norm(x, norms[i].normalized_shape, norms[i].weight, norms[i].bias, norms[i].eps)
        x = F.relu(x)
    return x


def _dense(x: torch.Tensor, layers, norms=()) -> torch.Tensor:
    """`_hidden` through all but the last of `layers`, then the last one bare (the outputs)."""
    return F.linear(_hidden(x, layers[:-1], norms), layers[-1].weight, layers[-1].bias)


def hidden_then_out(features: int, hidden: int, outputs: int, layer_norm: bool, linear=nn.Linear) -> nn.Sequential:
    """features -> hidden (-> LayerNorm) -> ReLU -> outputs, through `linear` layers (nn.Linear or a noisy one)."""
    norm = [nn.LayerNorm(hidden)] if layer_norm else []
    return nn.Sequential(linear(features, hidden), *norm, nn.ReLU(), linear(hidden, outputs))


def dueling(value: torch.Tensor, advantage: torch.Tensor) -> torch.Tensor:
    """V(s) + A(s, a) - mean_a A(s, a) (Wang et al. 2016): [B, 1] and [B, A] Q-value streams, or
    [B, 1, N] and [B, A, N] per atom (Rainbow's dueling over a distribution's logits)."""
    return value + advantage - advantage.mean(dim=1, keepdim=True)


class QHead(nn.Module):
    """Maps features to Q-values; dueling splits them into V(s) + A(s, a) - mean_a A(s, a)."""

    def __init__(self, features: int, num_actions: int, hidden: int, dueling: bool, layer_norm: bool = False):
        super().__init__()
        self.dueling = dueling
        self.advantage = hidden_then_out(features, hidden, num_actions, layer_norm)
        self._advantage = self._layers(self.advantage)  # the same layers, for `_dense`
        if dueling:
            self.value = hidden_then_out(features, hidden, 1, layer_norm)
            self._value = self._layers(self.value)

    @staticmethod
    def _layers(stream: nn.Sequential) -> tuple[list, list]:
        return [m for m in stream if isinstance(m, nn.Linear)], [m for m in stream if isinstance(m, nn.LayerNorm)]

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        advantage = _dense(features, *self._advantage)
        if not self.dueling:
            return advantage
        return dueling(_dense(features, *self._value), advantage)


class CellNorm(nn.Module):
    """LayerNorm over the channels of each cell of a [B, C, H, W] map: what a LayerNorm after a
    convolution normalises in PQN's networks (flax's, on channels-last maps)."""

    def __init__(self, channels: int):
        super().__init__()
        self.norm = nn.LayerNorm(channels)

    def forward(self, maps: torch.Tensor) -> torch.Tensor:
        return self.norm(maps.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)


def _conv_block(conv: nn.Conv2d, layer_norm: bool) -> list[nn.Module]:
    """A convolution (-> CellNorm) -> ReLU."""
    return [conv, CellNorm(conv.out_channels), nn.ReLU()] if layer_norm else [conv, nn.ReLU()]


class MLPQNetwork(nn.Module):
    """Fully connected Q-network for vector observations (classic control)."""

    def __init__(
        self,
        obs_dim: int,
        num_actions: int,
        hidden_sizes=(128, 128),
        dueling: bool = False,
        layer_norm: bool = False,
        head=QHead,
    ):
        super().__init__()
        layers, width = [], obs_dim
        for size in hidden_sizes[:-1]:
            layers += [nn.Linear(width, size), *([nn.LayerNorm(size)] if layer_norm else []), nn.ReLU()]
            width = size
        self.torso = nn.Sequential(nn.Flatten(), *layers)
        self._hidden = [m for m in layers if isinstance(m, nn.Linear)]
        self._norms = [m for m in layers if isinstance(m, nn.LayerNorm)]
        self.head = head(width, num_actions, hidden_sizes[-1], dueling, layer_norm)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self.head.forward(_hidden(obs.float().flatten(1), self._hidden, self._norms))


class NatureCNN(nn.Module):
    """The DQN network of Mnih et al. (2015) on 4x84x84 uint8 frames, scaled to [0, 1] inside."""

    def __init__(self, in_channels: int, num_actions: int, dueling: bool = False, layer_norm: bool = False, head=QHead):
        super().__init__()
        self.torso = nn.Sequential(
            *_conv_block(nn.Conv2d(in_channels, 32, 8, stride=4), layer_norm),
            *_conv_block(nn.Conv2d(32, 64, 4, stride=2), layer_norm),
            *_conv_block(nn.Conv2d(64, 64, 3, stride=1), layer_norm),
            nn.Flatten(),
        )
        self.head = head(64 * 7 * 7, num_actions, 512, dueling, layer_norm)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        # Observations stay uint8 until here: the division is the network's first operation, one pass
        # that keeps the bytes' layout. Replay hands minibatches over channels last (a [B, k, H, W] view
        # of [B, H, W, k] bytes), which sends the convolutions to oneDNN's NHWC kernels: a learner step
        # of 32 on 2 CPU threads takes 0.67 of its NCHW time (benchmarks/NOTES.md).
        return self.head(self.torso(obs / 255.0))


class MinAtarCNN(nn.Module):
    """The Q-network of MinAtar's DQN (Young & Tian 2019): one 3x3 convolution with 16 filters,
    stride 1, on Cx10x10 boolean frames, then 128 rectified units, then one Q-value per action."""

    FILTERS, HIDDEN = 16, 128

    def __init__(self, obs_shape: tuple, num_actions: int, dueling: bool = False, layer_norm: bool = False, head=QHead):
        super().__init__()
        channels, height, width = obs_shape
        conv = nn.Conv2d(channels, self.FILTERS, 3, stride=1)
        self.torso = nn.Sequential(*_conv_block(conv, layer_norm), nn.Flatten())
        self.head = head(self.FILTERS * (height - 2) * (width - 2), num_actions, self.HIDDEN, dueling, layer_norm)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        # Cells are 0/1 (bool or uint8) until here: the cast is the network's first operation, read as
        # bytes (torch casts bytes to float several times faster than booleans, to the same values).
        cells = obs.view(torch.uint8) if obs.dtype == torch.bool else obs
        return self.head(self.torso(cells.float()))


class ImpalaCNN(nn.Module):
    """The Impala network (`impala`) on CxHxW frames: the ResNet torso, then a head of 256 rectified
    units. Atari's uint8 frames are scaled to [0, 1] inside; MinAtar's 0/1 cells (`scale` 1) are not."""

    HIDDEN = 256

    def __init__(self, obs_shape: tuple, num_actions: int, dueling: bool = False, scale: float = 255.0, head=QHead):
        super().__init__()
        channels, height, width = obs_shape
        self.scale = scale
        self.torso = impala_torso(channels)
        self.head = head(impala_features(height, width), num_actions, self.HIDDEN, dueling, False)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        cells = obs.view(torch.uint8) if obs.dtype == torch.bool else obs  # as MinAtarCNN reads booleans
        return self.head(self.torso(cells / self.scale))


NATURE_CNN_MIN_SIZE = 36  # smaller frames vanish in its 8x8 / 4x4 / 3x3 convolutions


def build_q_network(
    network,
    obs_shape: tuple,
    num_actions: int,
    hidden_sizes=(128, 128),
    dueling: bool = False,
    layer_norm: bool = False,
    head=QHead,
) -> nn.Module:
    """The Q-network a config asks for; `auto` means the Nature CNN for Atari's image stacks, MinAtar's
    CNN for small images (MinAtar's 10x10 frames), else an MLP; `impala_cnn` is the Impala ResNet on
    either kind of image. `head` builds the network's head (`QHead`: one Q-value per action). A user's
    factory (a callable, or its `module:name`) is called as `factory(obs_shape, num_actions)`."""
    if is_users_network(network):
        if head is not QHead:
            raise ValueError("network: a user's own network brings its own head; another head cannot be put on it")
        return _users_network(network, tuple(obs_shape), num_actions)
    if network == "auto":
        network = _auto_network(obs_shape)
    if network in ("nature_cnn", "minatar_cnn", "impala_cnn") and len(obs_shape) != 3:
        raise ValueError(f"the {network} network needs image observations (C, H, W), got shape {obs_shape}")
    if network == "nature_cnn":
        return NatureCNN(obs_shape[0], num_actions, dueling, layer_norm, head)
    if network == "minatar_cnn":
        if min(obs_shape[1:]) < 3:
            raise ValueError(f"the minatar_cnn network's 3x3 convolution needs frames of at least 3x3, got {obs_shape}")
        return MinAtarCNN(tuple(obs_shape), num_actions, dueling, layer_norm, head)
    if network == "impala_cnn":
        if layer_norm:
            raise ValueError("the impala_cnn network has no layer_norm option")
        # Frames as large as Atari's are its uint8 grey levels; smaller ones are MinAtar's 0/1 cells.
        scale = 255.0 if min(obs_shape[1:]) >= NATURE_CNN_MIN_SIZE else 1.0
        return ImpalaCNN(tuple(obs_shape), num_actions, dueling, scale, head)
    return MLPQNetwork(int(np.prod(obs_shape)), num_actions, tuple(hidden_sizes), dueling, layer_norm, head)


TRUNCATED_NORMAL_STD = 0.87962566103423978  # the std of a unit normal cut at +/- 2


def he_normal_init(model: nn.Module) -> None:
    """PQN's reference initialisation (flax's he_normal and lecun_normal): each convolution and dense
    layer's kernel drawn from a normal cut at two standard deviations, of variance 2 / fan_in where a
    ReLU follows and 1 / fan_in at the Q-value outputs; every bias 0."""
    outputs = {id(head.advantage[-1]) for head in model.modules() if isinstance(head, QHead)}
    outputs |= {id(head.value[-1]) for head in model.modules() if isinstance(head, QHead) and head.dueling}
    for layer in model.modules():
        if isinstance(layer, (nn.Linear, nn.Conv2d)):
            gain = 1.0 if id(layer) in outputs else 2.0
            std = math.sqrt(gain / layer.weight[0].numel()) / TRUNCATED_NORMAL_STD
            with torch.no_grad():
                nn.init.trunc_normal_(layer.weight, 0.0, std, -2 * std, 2 * std)
                nn.init.zeros_(layer.bias)


def is_users_network(network) -> bool:
    """Whether a config's `network` is the user's own factory (a callable or its `module:name`)."""
    return callable(network) or is_reference(network)


def _users_network(factory, obs_shape: tuple, num_actions: int) -> nn.Module:
    """The module a user's factory makes; ValueError when it makes something else."""
    try:
        model = resolve_callable(factory, "network")(obs_shape, num_actions)
    except PluginError as error:
        raise ValueError(str(error)) from None
    if not isinstance(model, nn.Module):
        raise ValueError(
            f"network: {reference_of(factory)}(obs_shape, num_actions) returned a "
            f"{type(model).__name__}, not a torch.nn.Module"
        )
    return model


def _auto_network(obs_shape: tuple) -> str:
    if len(obs_shape) != 3:
        return "mlp"
    return "nature_cnn" if min(obs_shape[1:]) >= NATURE_CNN_MIN_SIZE else "minatar_cnn"


def q_network_for(config, info) -> nn.Module:
    """The Q-network an experiment's config asks for, shaped for its environment (an `EnvInfo`)."""
    model = build_q_network(
        config.network, info.obs_shape, info.num_actions, config.hidden_sizes, config.dueling, config.layer_norm
    )
    if config.weight_init == "he_normal" and not is_users_network(config.network):
        he_normal_init(model)
    return model


def flat_parameters(model: nn.Module) -> np.ndarray:
    """theta as one float32 numpy vector (a copy)."""
    return torch.nn.utils.parameters_to_vector(model.parameters()).detach().cpu().numpy().astype(np.float32)


def _parameters(model) -> list:
    """A module's parameters, or the list of them a caller keeps to avoid walking the module again."""
    return list(model.parameters()) if isinstance(model, nn.Module) else model


def load_flat_parameters(model, flat) -> None:
    """Overwrite the parameters of a model (or of its parameter list) from a vector made by
    `flat_parameters` (an array, or a tensor on any device)."""
    parameters = _parameters(model)
    vector = flat if torch.is_tensor(flat) else torch.as_tensor(np.asarray(flat, dtype=np.float32))
    torch.nn.utils.vector_to_parameters(vector.to(parameters[0].device, torch.float32), parameters)


def flat_gradients(model) -> torch.Tensor:
    """The gradient of every parameter of a model (or of its parameter list), concatenated in
    parameter order (zeros where none): a fresh tensor on the parameters' device."""
    parts = [
        p.grad.reshape(-1) if p.grad is not None else torch.zeros(p.numel(), device=p.device)
        for p in _parameters(model)
    ]
    return torch.cat(parts).detach()


def num_parameters(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


def computing_in(precision: str, device: torch.device | str):
    """The context a learner's forward passes run in. `bfloat16`: the networks' convolutions and matrix
    products compute in bfloat16 under torch.autocast (on a CPU with AVX-512 BF16 an atari-fast update
    takes 0.74 of its float32 time, 0.55 with the Impala network; benchmarks/NOTES.md), while
    parameters, gradients and the optimizer's state stay float32; the learners cast the networks'
    outputs back to float32 before any target or loss arithmetic. `float32`: no change. A learner
    resolves `auto` once (`resolved_precision`) and passes what it resolved to."""
    return torch.autocast(torch.device(device).type, dtype=torch.bfloat16, enabled=precision == "bfloat16")


def resolved_precision(precision: str, device: torch.device | str) -> str:
    """`precision` with `auto` made `bfloat16` or `float32` for `device` (`bfloat16_native`)."""
    if precision != "auto":
        return precision
    return "bfloat16" if bfloat16_native(torch.device(device)) else "float32"


def bfloat16_native(device: torch.device, cpu_flags: str | None = None) -> bool:
    """Whether `device` computes bfloat16 products in its own instructions, where autocast pays: a CUDA
    GPU that supports it (Ampere on), an x86 CPU with AVX-512 BF16 or AMX, an Arm CPU with BF16 (Linux's
    /proc/cpuinfo flags, or `cpu_flags`). A CPU that only emulates bfloat16 (AVX-512 without BF16, or
    none) computes it no faster than float32, and one whose flags cannot be read is taken as such."""
    if device.type == "cuda":
        return torch.cuda.is_available() and torch.cuda.is_bf16_supported()
    if device.type != "cpu":
        return False
    if cpu_flags is None:
        try:
            cpu_flags = Path("/proc/cpuinfo").read_text()
        except OSError:
            return False
    flags = set(cpu_flags.split())
    return bool(flags & {"avx512_bf16", "amx_bf16", "bf16"})
