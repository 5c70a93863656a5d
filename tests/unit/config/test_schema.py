"""A cluster address is read in one place: HOST:PORT, or a ValueError that says what was expected."""

import pytest

from gorila.config.schema import split_address


def test_an_address_is_a_host_and_a_port():
    assert split_address("127.0.0.1:6379") == ("127.0.0.1", 6379)
    assert split_address("head.cluster:1") == ("head.cluster", 1)


@pytest.mark.parametrize("address", ["localhost", ":6379", "host:", "host:port", "host:0", "host:65536", "host:-1"])
def test_anything_else_is_refused_with_what_was_expected(address):
    with pytest.raises(ValueError, match=r"address must be HOST:PORT or auto, got"):
        split_address(address)
