"""Interface strings (zh, en) of card kinds and of a card's way back to its note."""

CLOZE_STRINGS: dict[str, tuple[str, str]] = {
    "card.source": ("来自笔记", "From the note"),
    "card.front": ("正面", "Front"),  # a cloze card's block, or the code a question asks about
    "kind.basic": ("问答", "Question"),
    "kind.cloze": ("挖空", "Cloze"),
    "kind.reversed": ("双向", "Reversed"),
    "note.title": ("笔记", "Note"),
    "note.edit": ("在编辑器中打开", "Edit"),
    "note.read_only": (
        "只读视图：在你的编辑器里修改笔记，qbank 会在下次导入时读到改动。",
        "Read-only: change the note in your own editor; qbank reads it on the next import.",
    ),
    "note.line": ("第 {line} 行", "line {line}"),
    "stats.kinds": ("卡片类型", "Cards by kind"),
    "stats.kind": ("类型", "Kind"),
    "mock.cloze_left_out": (
        "模拟面试只问口头问题：挖空卡片不在其中。",
        "A mock interview asks spoken questions only: cloze cards are left out.",
    ),
}
