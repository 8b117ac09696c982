import gc

from app.content.compile.collection import FULL_AFTER, fewer_full_collections


def test_full_collections_are_rarer_inside_and_as_before_after() -> None:
    before = gc.get_threshold()
    with fewer_full_collections():
        assert gc.get_threshold()[2] >= FULL_AFTER
        with fewer_full_collections():  # an import overlapping another
            assert gc.get_threshold()[2] >= FULL_AFTER
        assert gc.get_threshold()[2] >= FULL_AFTER
    assert gc.get_threshold() == before


def test_thresholds_come_back_after_an_error() -> None:
    before = gc.get_threshold()
    try:
        with fewer_full_collections():
            raise ValueError
    except ValueError:
        pass
    assert gc.get_threshold() == before
