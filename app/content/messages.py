"""Every problem the content pipeline reports, worded in Chinese and in English.

A problem keeps its code and values (`app.content.errors.Said`), so the import report words it
in the reader's language; `qbank check` and the server's log print the English.
"""

PROBLEMS: dict[str, tuple[str, str]] = {
    # The folder and its files.
    "content.content_dir_missing": ("内容目录不存在", "content directory does not exist"),
    "content.no_notes": (
        "没有找到笔记（.md、.markdown 或 .txt 文件）",
        "no notes (.md, .markdown or .txt files) found",
    ),
    "content.symlink_loop": ("符号链接成环，未跟随", "symlink loop; not followed"),
    "content.symlink_dangling": (
        "符号链接指向不存在的文件，未跟随",
        "symlink to nothing; not followed",
    ),
    "content.symlink_outside": (
        "符号链接指向内容目录之外的 {target}，未跟随",
        "symlink to {target}, outside the content directory; not followed",
    ),
    "content.unreadable": ("无法读取（{reason}）", "cannot be read ({reason})"),
    "content.is_directory": ("这是目录，不是 Markdown 文件", "a directory, not a Markdown file"),
    "content.not_regular": (
        "不是普通文件（FIFO、套接字或设备），未读取",
        "not a regular file (a FIFO, socket or device); not read",
    ),
    "content.file_too_large": (
        "文件超过 {megabytes} MB，未读取",
        "larger than {megabytes} MB; not read",
    ),
    "content.not_utf8": (
        "文件不是有效的 UTF-8（字节 0x{byte}），也不是 GB18030，未读取；请另存为 UTF-8",
        "file is not valid UTF-8 (byte 0x{byte}), nor GB18030; not read: save it as UTF-8",
    ),
    "content.bom_invalid": (
        "文件以 {encoding} 的字节顺序标记开头，但这里不是有效的 {encoding}，未读取",
        "file starts with a {encoding} byte-order mark but is not valid {encoding} here; not read",
    ),
    "content.read_without_bom": (
        "文件没有字节顺序标记，已按 {encoding} 读取；建议另存为 UTF-8",
        "file has no byte-order mark; read as {encoding} (saving it as UTF-8 is safer)",
    ),
    "content.binary": (
        "文件含有 NUL 字节，不是 UTF-8、UTF-16 或 UTF-32 文本，未读取",
        "file holds NUL bytes and is not UTF-8, UTF-16 or UTF-32 text; not read",
    ),
    "content.read_as_gb18030": (
        "文件不是 UTF-8，已按 GB18030 读取",
        "file is not UTF-8; read as GB18030",
    ),
    # Front matter.
    "content.frontmatter_unclosed": (
        "front matter 以 '---' 开头但没有结束",
        "front matter starts with '---' but never ends",
    ),
    "content.note_failed": (
        "这篇笔记无法解析（{reason}），已跳过，其余笔记照常导入",
        "this note could not be parsed ({reason}); it was left out and the rest imported",
    ),
    "content.frontmatter_yaml": (
        "front matter 的 YAML 有误：{problem}",
        "invalid YAML in front matter: {problem}",
    ),
    "content.frontmatter_not_mapping": (
        "front matter 应是“键: 值”的映射",
        "front matter must be a mapping of keys to values",
    ),
    "content.frontmatter_not_text": (
        "front matter 的 '{key}' 应是文本",
        "front matter '{key}' must be text",
    ),
    "content.frontmatter_not_list": (
        "front matter 的 '{key}' 应是文本列表",
        "front matter '{key}' must be a list of text",
    ),
    "content.labels_not_mapping": (
        "front matter 的 'labels' 应把块名映射到别名",
        "front matter 'labels' must map block names to aliases",
    ),
    "content.label_block_unknown": (
        "未知的标签块 '{block}'（应为 {blocks} 之一）",
        "unknown label block '{block}' (expected one of {blocks})",
    ),
    "content.label_not_list": (
        "front matter 的 'labels.{block}' 应是文本列表",
        "front matter 'labels.{block}' must be a list of text",
    ),
    "content.slug_invalid": (
        "slug '{slug}' 只能使用字母、数字、'-'、'_' 和 '.'",
        "slug '{slug}' may only use letters, digits, '-', '_' and '.'",
    ),
    "content.style_unknown": (
        "style 应为 'question' 或 'numbered'，而不是 '{style}'",
        "style must be 'question' or 'numbered', not '{style}'",
    ),
    "content.cloze_mode_unknown": (
        "cloze 应为 'highlights' 或 'bold'，而不是 '{value}'",
        "cloze must be 'highlights' or 'bold', not '{value}'",
    ),
    "content.cloze_too_many": (
        "这一块的挖空编号超过 {max} 个：只有前 {max} 个成为卡片",
        "more than {max} deletion numbers in one block: only the first {max} become cards",
    ),
    "content.reverse_not_boolean": (
        "reverse 应为 true 或 false，而不是 '{value}'",
        "reverse must be true or false, not '{value}'",
    ),
    # Column limits.
    "content.path_too_long": (
        "路径有 {size} 字节，超过上限 {limit} 字节；这篇笔记未导入",
        "path is {size} bytes, over the limit of {limit}; the note is left out",
    ),
    "content.key_too_long": (
        "id 或 slug '{start}' 有 {size} 字节，超过上限 {limit} 字节；已缩短",
        "id or slug '{start}' is {size} bytes, over the limit of {limit}; shortened",
    ),
    "content.title_too_long": (
        "标题“{start}”有 {size} 个字符，超过上限 {limit}；已截短",
        "title '{start}' is {size} characters, over the limit of {limit}; shortened",
    ),
    # Cards and follow-ups.
    "content.deck_no_cards": ("这个题库没有卡片", "deck has no cards"),
    "content.card_no_question": ("卡片标题没有问题文字", "card heading has no question text"),
    "content.card_id_invalid": (
        "卡片 id '{id}' 只能使用字母、数字、'-'、'_' 和 '.'",
        "card id '{id}' may only use letters, digits, '-', '_' and '.'",
    ),
    "content.html_unclosed": (
        "<{tag}> 没有闭合，到下一个同级或更高级的标题为止",
        "<{tag}> is never closed; it ends at the next heading of its level or above",
    ),
    "content.html_unclosed_more": (
        "另有 {count} 处 HTML 标签没有闭合，未逐一列出",
        "{count} more HTML tags are never closed; not listed one by one",
    ),
    "content.card_no_answer": (
        "问题“{question}”没有做成卡片：它后面没有答案",
        "question '{question}' was not made a card: no answer follows it",
    ),
    "content.card_lists_questions": (
        "“{question}”没有做成卡片：它下面只列出问题，没有答案",
        "'{question}' was not made a card: it only lists questions and answers none",
    ),
    "content.followup_no_question": ("追问没有问题文字", "follow-up question has no question text"),
    "content.followup_id_invalid": (
        "追问 id '{id}' 只能使用字母、数字、'-'、'_' 和 '.'",
        "follow-up id '{id}' may only use letters, digits, '-', '_' and '.'",
    ),
    "content.followup_no_answer": (
        "追问“{question}”没有答案（在该条目的续行以“答：”或“A:”开头）",
        "follow-up question '{question}' has no answer "
        "(start a continuation line of the item with '答：' or 'A:')",
    ),
    "content.duplicate_card_id": (
        "卡片 id '{id}' 重复（另见 {other}）；请在其中一张的问题行或标题末尾写明 {{#id}}",
        "duplicate card id '{id}' (also at {other}); "
        "give one of them an explicit {{#id}} at the end of its question line or heading",
    ),
    "content.duplicate_followup_id": (
        "追问 id '{id}' 重复（另见 {other}）；请在其中一个追问行的末尾写明 {{#id}}",
        "duplicate follow-up id '{id}' (also at {other}); "
        "give one of them an explicit {{#id}} at the end of its follow-up line",
    ),
    "content.deck_slug_taken": (
        "题库 slug '{slug}' 已被 {other} 使用",
        "deck slug '{slug}' is also used by {other}",
    ),
    "content.topic_slug_taken": (
        "阅读页 slug '{slug}' 已被 {other} 使用",
        "topic slug '{slug}' is also used by {other}",
    ),
    "content.topic_name_taken": (
        "标题或别名“{name}”也指向阅读页 '{other}'",
        "title or alias '{name}' also names topic '{other}'",
    ),
    # Links.
    "content.link_unsafe": (
        "链接目标 '{target}' 不安全或不受支持",
        "unsafe or unsupported link target '{target}'",
    ),
    "content.reading_no_topic": (
        "“继续阅读”的 '{target}' 找不到对应的阅读页",
        "continue-reading '{target}' matches no topic",
    ),
    "content.wikilink_no_topic": ("[[{title}]] 找不到对应的阅读页", "[[{title}]] matches no topic"),
    "content.topic_not_linked": (
        "阅读页“{title}”没有被任何卡片或阅读页链接",
        "topic '{title}' is not linked from any card or topic",
    ),
    # Rendering.
    "content.left_literal": (
        "'{marker}' 在渲染后的文字里原样保留",
        "'{marker}' is left literal in the rendered text",
    ),
    "content.katex": ("KaTeX：{message}，公式 ${formula}$", "KaTeX: {message} in ${formula}$"),
    "content.formula_control_char": (
        "公式含控制字符 U+{char}（转义被吞掉了？）",
        "formula holds control character U+{char} (an eaten escape?)",
    ),
    "content.formula_spans_lines": (
        "行内公式跨行（\\n 或 \\r 之类的转义被吞掉了？）",
        "inline formula spans a line break (an eaten escape such as \\n or \\r?)",
    ),
    "content.formula_eaten_backslash": (
        "公式文字 '{tail}' 像是丢了反斜杠的 {meant}",
        "formula text '{tail}' looks like {meant} with its backslash eaten",
    ),
    # Images.
    "content.warning_repeated": (
        "同样的警告在本笔记第 {lines} 行又出现（另 {count} 处）",
        "the same again at lines {lines} of this note ({count} more)",
    ),
    "content.warning_repeated_once": (
        "同样的警告在本笔记第 {line} 行又出现一次",
        "the same again at line {line} of this note",
    ),
    "content.image_no_alt": (
        "图片 '{src}' 没有替代文字；显示为“{name}”",
        "image '{src}' has no alt text; shown as '{name}'",
    ),
    "content.image_on_web": (
        "图片 '{src}' 在网上；不会去下载，显示为链接",
        "image '{src}' is on the web; it is never fetched, and shows as a link",
    ),
    "content.image_not_relative": (
        "图片 '{src}' 应是内容目录中的文件，用相对路径引用",
        "image '{src}' must be a file in the content directory, named by a relative path",
    ),
    "content.image_outside": (
        "图片 '{src}' 在内容目录之外",
        "image '{src}' is outside the content directory",
    ),
    "content.image_hidden": (
        "图片 '{src}' 在隐藏的文件夹或文件里",
        "image '{src}' is in a hidden folder or file",
    ),
    "content.image_type": (
        "图片 '{path}' 的类型不受支持（{kinds}）",
        "image '{path}' is not a supported type ({kinds})",
    ),
    "content.image_not_found": ("找不到图片 '{path}'", "image '{path}' not found"),
    "content.image_too_large": (
        "图片 '{path}' 有 {size} 字节；上限为 {limit} 字节",
        "image '{path}' is {size} bytes; the limit is {limit} bytes",
    ),
    "content.image_wrong_kind": (
        "图片 '{name}' 不是 {kind} 文件",
        "image '{name}' is not a {kind} file",
    ),
    "content.image_no_folder": (
        "图片 '{path}' 无法在这里显示（没有内容目录）",
        "image '{path}' cannot be shown here (no content directory)",
    ),
    "content.image_not_in_folder": (
        "图片 '{name}' 不在文件夹里",
        "image '{name}' is not in the folder",
    ),
}
