"""Interface strings (zh, en) of pages that show a large vault a page at a time."""

VAULT_STRINGS: dict[str, tuple[str, str]] = {
    "folders.title": ("文件夹", "Folders"),
    "folders.all": ("全部笔记", "All notes"),
    "folders.open": ("打开文件夹 {name}", "Open the folder {name}"),
    "folders.decks_here": ("本文件夹的题库", "Decks in this folder"),
    "folders.study": ("学习", "Study"),
    "folders.practise": ("练习", "Practise"),
    "folders.mock": ("模拟面试", "Mock interview"),
    "folders.total": ("总数", "Total"),
    "folders.empty": ("这个文件夹里没有题库。", "There are no decks in this folder."),
    "page.label": ("分页", "Pages"),
    "page.of": ("第 {page} / {pages} 页", "Page {page} of {pages}"),
    "page.previous": ("上一页", "Previous"),
    "page.next": ("下一页", "Next"),
    "tags.more": ("另有 {count} 个标签", "{count} more tags"),
    "error.folder_not_found": ("没有文件夹 “{folder}”。", "no folder '{folder}'"),
}
