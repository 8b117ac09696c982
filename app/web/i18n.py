"""Interface strings in Chinese and English, chosen by cookie or Accept-Language."""

from fastapi import Request

LANGUAGES = ("zh", "en")
COOKIE = "qbank_lang"

STRINGS: dict[str, tuple[str, str]] = {
    # key: (zh, en)
    "app.tagline": ("面试题库 · 间隔重复", "Interview prep · spaced repetition"),
    "nav.home": ("首页", "Home"),
    "nav.study": ("学习", "Study"),
    "nav.practice": ("练习", "Practice"),
    "nav.topics": ("主题", "Topics"),
    "nav.search": ("搜索", "Search"),
    "nav.settings": ("设置", "Settings"),
    "nav.skip": ("跳到正文", "Skip to content"),
    "lang.switch": ("English", "中文"),
    "home.title": ("题库", "Decks"),
    "home.empty": (
        "题库是空的：运行 qbank import 导入内容。",
        "The bank is empty: run qbank import.",
    ),
    "home.study_all": ("学习全部", "Study all"),
    "deck.cards": ("张卡片", "cards"),
    "deck.due": ("待复习", "due"),
    "deck.new": ("新卡", "new"),
    "deck.total": ("总数", "total"),
    "deck.seen": ("已学", "seen"),
    "deck.mature": ("已掌握", "mature"),
    "deck.study": ("学习本组", "Study this deck"),
    "deck.practice": ("练习本组", "Practise this deck"),
    "deck.section_study": ("学习本节", "Study section"),
    "deck.section_practice": ("练习本节", "Practise section"),
    "deck.no_section": ("未分节", "No section"),
    "card.question": ("问题", "Question"),
    "card.answer": ("面试回答", "Answer"),
    "card.followups": ("追问展开", "Follow-ups"),
    "card.pitfalls": ("易错点 / 边界", "Pitfalls"),
    "card.reading": ("继续读", "Continue reading"),
    "card.unresolved": ("（未找到主题）", "(no such topic)"),
    "card.retired": ("这张卡片已从内容中移除。", "This card has been removed from the content."),
    "card.permalink": ("卡片链接", "Card link"),
    "card.state": ("状态", "State"),
    "card.due_at": ("到期", "Due"),
    "card.study_it": ("学习这张", "Study it"),
    "card.practise_it": ("练习这张", "Practise it"),
    "queue.new": ("新卡", "New"),
    "queue.learning": ("学习中", "Learning"),
    "queue.review": ("复习", "Review"),
    "queue.relearning": ("重学", "Relearning"),
    "study.title": ("学习", "Study"),
    "study.show": ("显示答案", "Show answer"),
    "study.show_hint": ("空格 / 回车", "Space / Enter"),
    "study.rate": ("评分", "Rate"),
    "study.again": ("重来", "Again"),
    "study.hard": ("困难", "Hard"),
    "study.good": ("良好", "Good"),
    "study.easy": ("简单", "Easy"),
    "study.undo": ("撤销", "Undo"),
    "study.undo_hint": ("Z", "Z"),
    "study.remaining": ("剩余", "Remaining"),
    "study.done": ("今天的任务完成了！", "Done for today!"),
    "study.next_due": ("下一张卡片到期时间：", "Next card due:"),
    "study.nothing_scheduled": ("还没有安排复习的卡片。", "Nothing is scheduled yet."),
    "study.offer_practice": ("想继续？可以练习：", "Want more? Practise instead:"),
    "study.conflict": ("这张卡片刚刚已被评分，已刷新。", "That card was already rated; refreshed."),
    "study.undone": ("已撤销上一次评分。", "The last rating was undone."),
    "study.nothing_to_undo": ("没有可撤销的评分。", "There is no rating to undo."),
    "study.scope": ("范围", "Scope"),
    "study.all": ("全部", "All decks"),
    "practice.title": ("练习", "Practice"),
    "practice.intro": (
        "模拟面试：按顺序或随机出题，可限时作答；评分只记录，不影响复习计划。",
        "Mock interview: questions in order or at random, optionally timed; ratings are logged "
        "but never change your schedule.",
    ),
    "practice.order": ("顺序", "Order"),
    "practice.order_content": ("按内容顺序", "Content order"),
    "practice.order_random": ("随机", "Random"),
    "practice.seconds": ("每题限时（秒，0 表示不限）", "Seconds per question (0: no timer)"),
    "practice.start": ("开始练习", "Start practice"),
    "practice.timer": ("剩余时间", "Time left"),
    "practice.time_up": ("时间到", "Time's up"),
    "practice.followup_prompt": ("面试官追问", "The interviewer presses on"),
    "practice.progress": ("进度", "Progress"),
    "practice.summary": ("练习总结", "Practice summary"),
    "practice.missed": ("没答上来", "Missed"),
    "practice.shaky": ("答得吃力", "Shaky"),
    "practice.none_missed": ("全部答上来了。", "Nothing missed."),
    "practice.again": ("再练一次没答上的", "Practise the missed ones again"),
    "practice.rated": ("已作答", "Answered"),
    "topics.title": ("主题", "Topics"),
    "topics.cards": ("指向这个主题的卡片", "Cards that link here"),
    "topics.no_cards": ("还没有卡片指向这个主题。", "No card links here yet."),
    "topics.linked": ("张卡片", "cards"),
    "topics.not_found": ("没有找到这个主题", "No such topic"),
    "search.title": ("搜索", "Search"),
    "search.placeholder": ("搜索问题、答案和主题", "Search questions, answers and topics"),
    "search.results": ("条结果", "results"),
    "search.none": ("没有找到结果。", "No results."),
    "search.card": ("卡片", "Card"),
    "search.topic": ("主题", "Topic"),
    "settings.title": ("学习设置", "Study settings"),
    "settings.retention": ("目标记忆保持率", "Desired retention"),
    "settings.new_per_day": ("每天新卡数", "New cards per day"),
    "settings.max_reviews": ("每天最多复习数", "Maximum reviews per day"),
    "settings.rollover": ("每天开始于（小时）", "Day starts at (hour)"),
    "settings.timezone": ("时区", "Time zone"),
    "settings.save": ("保存", "Save"),
    "settings.saved": ("已保存。", "Saved."),
    "error.title": ("出错了", "Something went wrong"),
    "error.not_found": ("页面不存在", "Page not found"),
    "error.back": ("返回首页", "Back to home"),
}


def language(request: Request) -> str:
    """The interface language: the switch's cookie, else the browser's preference, else Chinese."""
    chosen = request.cookies.get(COOKIE)
    if chosen in LANGUAGES:
        return chosen
    header = request.headers.get("accept-language", "")
    for part in header.split(","):
        code = part.split(";")[0].strip().lower()
        if code.startswith("zh"):
            return "zh"
        if code.startswith("en"):
            return "en"
    return "zh"


def translator(lang: str):  # type: ignore[no-untyped-def]
    index = 0 if lang == "zh" else 1

    def t(key: str) -> str:
        pair = STRINGS.get(key)
        return pair[index] if pair else key

    return t
