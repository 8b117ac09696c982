"""The house layout (`decks/` and `topics/`) on the home page: one list of decks, no folders."""

import re


def test_decks_of_the_house_layout_show_as_one_list_without_a_decks_folder(client):
    page = client.get("/").text
    assert 'class="folder-row"' not in page and 'data-folder="decks"' not in page
    assert page.count('<ul class="listing decks-list"') == 1
    assert re.findall(r'<a class="deck-name" href="/decks/([\w-]+)">', page) == ["kernels", "notes"]
    form = client.get("/practice").text
    assert 'name="folder"' not in form  # no folder to choose from
