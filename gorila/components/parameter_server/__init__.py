"""The sharded parameter server holding theta+ (and theta-): shards and the client that fans out to them."""

from gorila.components.parameter_server.client import ParameterClient, slice_bounds
from gorila.components.parameter_server.shard import ParameterShard

__all__ = ["ParameterClient", "ParameterShard", "slice_bounds"]
