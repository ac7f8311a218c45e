"""gc_pause.paused(): no cyclic collection inside the block, the collector's state restored after it."""

import gc

import pytest

from vllm_digest.core import gc_pause


def test_paused_turns_the_collector_off_and_back_on_even_after_an_error():
    assert gc.isenabled()
    with pytest.raises(ValueError):
        with gc_pause.paused():
            assert not gc.isenabled()
            raise ValueError("a failing step")
    assert gc.isenabled()


def test_a_nested_block_leaves_the_collector_off_until_the_outer_one_ends():
    with gc_pause.paused():
        with gc_pause.paused():
            pass
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_collector_turned_off_before_stays_off():
    gc.disable()
    try:
        with gc_pause.paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
