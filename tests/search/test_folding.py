"""Folding with a map back to the displayed text: what snippets find and highlight matches by."""

from hypothesis import given
from hypothesis import strategies as st

from app.content.compile.searchtext import _fold_char, fold, fold_with_map

# Characters whose folds are longer (ß, ﬁ, ㎏, İ), composed (a + combining accent), full-width,
# or plain Chinese and ASCII: the cases where the map is and is not the identity.
TEXT = st.text(alphabet="aZß\ufb01\u338f\u0130e\u0301Ｇ显存带宽 .", max_size=30) | st.text(
    max_size=30
)


def _reference(text: str) -> tuple[str, list[int]]:
    out: list[str] = []
    origin: list[int] = []
    for index, char in enumerate(text):
        folded = _fold_char(char)
        out.append(folded)
        origin += [index] * len(folded)
    return "".join(out), origin


@given(TEXT)
def test_the_map_points_each_folded_character_at_the_one_it_came_from(text: str) -> None:
    assert fold_with_map(text) == _reference(text)


def test_a_longer_fold_maps_each_of_its_characters_to_its_origin() -> None:
    folded, origin = fold_with_map("显Straße")
    assert folded == "显strasse"
    assert origin == [0, 1, 2, 3, 4, 5, 5, 6]
    assert fold("ＧＥＭＭ 显存") == fold_with_map("ＧＥＭＭ 显存")[0] == "gemm 显存"
