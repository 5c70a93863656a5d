"""The kinds of component and the driver's worker ids (`gorila.placement`)."""

import pytest

from gorila.core import ShardServer
from gorila.placement import BUNDLE, PARAMETER_SHARD, Kind, WorkerId


def test_a_worker_id_names_its_kind_by_the_enum_also_when_read_as_text():
    assert WorkerId("actor", 3).role is Kind.ACTOR
    assert WorkerId("actor", 3) == WorkerId(Kind.ACTOR, 3) and str(WorkerId(Kind.BUNDLE, 0)) == "bundle 0"
    with pytest.raises(ValueError):
        WorkerId("actress", 0)


def test_a_worker_role_hosting_shards_waits_for_its_state_and_keeps_its_kind():
    hosting = BUNDLE.hosting_shards()
    assert hosting.name is Kind.BUNDLE and hosting.hosts_shards and hosting.waits_for_state
    assert not BUNDLE.hosts_shards and PARAMETER_SHARD.contract is ShardServer and PARAMETER_SHARD.server
