"""Interface strings in Chinese and English, chosen by cookie or Accept-Language."""

from collections.abc import Callable, Mapping

from fastapi import Request

from app.content.messages import PROBLEMS
from app.errors import AppError
from app.strings.cloze import CLOZE_STRINGS
from app.strings.errors import ERROR_STRINGS, REFUSAL_STRINGS
from app.strings.fsrs import FSRS_STRINGS
from app.strings.interview import INTERVIEW_STRINGS
from app.strings.limits import LIMIT_STRINGS
from app.strings.notes import NOTES_STRINGS
from app.strings.vault import VAULT_STRINGS

LANGUAGES = ("zh", "en")
COOKIE = "qbank_lang"

STRINGS: dict[str, tuple[str, str]] = {
    # key: (zh, en)
    "nav.home": ("首页", "Home"),
    "nav.study": ("学习", "Study"),
    "nav.practice": ("练习", "Practice"),
    "nav.topics": ("主题", "Topics"),
    "nav.search": ("搜索", "Search"),
    "nav.settings": ("设置", "Settings"),
    "nav.stats": ("统计", "Stats"),
    "nav.more": ("更多", "More"),
    "nav.skip": ("跳到正文", "Skip to content"),
    "lang.switch": ("English", "中文"),
    "home.title": ("题库", "Decks"),
    "home.empty": (
        "题库是空的：运行 qbank import 导入内容。",
        "The bank is empty: run qbank import.",
    ),
    "home.study_all": ("学习全部", "Study all"),
    "tags.title": ("标签", "Tags"),
    "tags.cards": ("张", "cards"),
    "tags.study": ("学习带此标签的卡片", "Study the cards with this tag"),
    "tags.practice": ("练习", "practise"),
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
    "deck.sections": ("各节进度", "Sections"),
    "stats.title": ("学习统计", "Statistics"),
    "stats.scope": ("范围", "Scope"),
    "stats.all": ("全部题库", "All decks"),
    "stats.show": ("查看", "Show"),
    "stats.empty": ("还没有复习记录，先去学习吧。", "No reviews yet: start studying."),
    "stats.streak_current": ("当前连续学习", "Current streak"),
    "stats.streak_longest": ("最长连续学习", "Longest streak"),
    "stats.days": ("天", "days"),
    "stats.time_today": ("今天用时", "Time today"),
    "stats.time_week": ("最近 7 天用时", "Time, last 7 days"),
    "stats.time_total": ("累计用时", "Time, all time"),
    "stats.numbers": ("查看数字", "Show the numbers"),
    "stats.date": ("日期", "Date"),
    "stats.count": ("数量", "Count"),
    "stats.total": ("合计", "Total"),
    "stats.reviews": ("每天复习次数", "Reviews per day"),
    "stats.heatmap_label": (
        "过去 {days} 天每天的复习次数：共 {total} 次，{active} 天有复习",
        "Reviews per day over the last {days} days: {total} reviews on {active} days",
    ),
    "stats.heat_title": ("{date}：复习 {count} 次", "{date}: {count} reviews"),
    "stats.week_of": ("当周周一", "Week of"),
    "stats.weekdays": (
        "周一,周二,周三,周四,周五,周六,周日",
        "Mon,Tue,Wed,Thu,Fri,Sat,Sun",
    ),
    "stats.months": (
        "1月,2月,3月,4月,5月,6月,7月,8月,9月,10月,11月,12月",
        "Jan,Feb,Mar,Apr,May,Jun,Jul,Aug,Sep,Oct,Nov,Dec",
    ),
    "stats.less": ("少", "Less"),
    "stats.more": ("多", "More"),
    "stats.forecast": ("到期预测", "Due forecast"),
    "stats.forecast_note": ("已过期的卡片计入今天。", "Overdue cards count on today."),
    "stats.forecast_label": (
        "未来 {days} 天每天到期的卡片：共 {total} 张",
        "Cards due on each of the next {days} days: {total} in all",
    ),
    "stats.due_title": ("{date}：到期 {count} 张", "{date}: {count} due"),
    "stats.today": ("今天", "today"),
    "stats.retention": ("真实记忆保持率", "True retention"),
    "stats.retention_note": (
        "复习队列中的卡片没有被评为“重来”的比例。",
        "The share of ratings of cards in the review queue that were not Again.",
    ),
    "stats.retention_label": ("真实记忆保持率：{parts}", "True retention: {parts}"),
    "stats.last_days": ("最近 {days} 天", "Last {days} days"),
    "stats.deck": ("题库", "Deck"),
    "stats.states": ("卡片状态", "Cards by state"),
    "stats.states_label": (
        "卡片状态，共 {total} 张：{parts}",
        "Cards by state, {total} in all: {parts}",
    ),
    "stats.state": ("状态", "State"),
    "stats.state.new": ("新卡", "New"),
    "stats.state.learning": ("学习中", "Learning"),
    "stats.state.review": ("复习", "Review"),
    "stats.state.relearning": ("重学", "Relearning"),
    "stats.state.retired": ("已移除", "Retired"),
    "stats.hardest": ("最难的卡片", "Hardest cards"),
    "stats.hardest_none": ("还没有遗忘或“重来”的卡片。", "No lapses or Again ratings yet."),
    "stats.card": ("卡片", "Card"),
    "stats.lapses": ("遗忘次数", "Lapses"),
    "stats.again": ("“重来”次数", "Again ratings"),
    "card.answer": ("面试回答", "Answer"),
    "card.followups": ("追问展开", "Follow-ups"),
    "card.followup_questions": ("追问", "Follow-up questions"),
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
    "queue.practice": ("练习", "Practice"),
    "study.title": ("学习", "Study"),
    "study.show": ("显示答案", "Show answer"),
    "study.show_hint": ("空格 / 回车", "Space / Enter"),
    "study.rate": ("评分", "Rate"),
    "study.again": ("重来", "Again"),
    "study.hard": ("困难", "Hard"),
    "study.good": ("良好", "Good"),
    "study.easy": ("简单", "Easy"),
    "study.undo": ("撤销", "Undo"),
    "study.remaining": ("剩余", "Remaining"),
    "study.progress": ("今日已完成", "Done today"),
    "study.done": ("今天的任务完成了！", "Done for today!"),
    "study.next_due": ("下一张卡片到期时间：", "Next card due:"),
    "study.nothing_scheduled": ("还没有安排复习的卡片。", "Nothing is scheduled yet."),
    "study.offer_practice": ("想继续？可以练习：", "Want more? Practise instead:"),
    "study.conflict": ("这张卡片刚刚已被评分，已刷新。", "That card was already rated; refreshed."),
    "study.undone": ("已撤销上一次评分。", "The last rating was undone."),
    "study.action_undone": ("已撤销上一步卡片操作。", "The last card action was undone."),
    "study.nothing_to_undo": ("没有可撤销的评分。", "There is no rating to undo."),
    "study.scope": ("范围", "Scope"),
    "study.saving": ("正在保存…", "Saving…"),
    "study.saved": ("已保存", "Saved"),
    # {n} counts ratings, card actions and undos alike, and may be 1.
    "study.offline": ("离线：{n} 项等待发送", "Offline: {n} waiting to send"),
    "study.retrying": (
        "服务器暂时无响应：{n} 项等待重试",
        "Server not answering: {n} waiting to send",
    ),
    "study.signed_out": (
        "登录已失效：{n} 项保存在本机，重新登录后发送",
        "Signed out: {n} waiting on this device until you sign in again",
    ),
    "study.rejected": (
        "这张卡片的评分未记录：它在别处已被评分或修改。",
        "That rating was not recorded: the card was rated or changed elsewhere.",
    ),
    "study.gone": (
        "这张卡片已不在题库中，评分未记录。",
        "That card is no longer in the bank; the rating was not recorded.",
    ),
    "study.take_along": (
        "带上今天的卡片（离线学习）",
        "Take today's cards with you (study offline)",
    ),
    "study.taken_along": (
        "已在本机保存 {n} 张卡片，离线也能学习。",
        "{n} cards kept on this device: you can study them offline.",
    ),
    "study.taken_along_shared": (
        "已在本机保存 {n} 张卡片，保留到你退出登录或本学习日结束。"
        "在共用的电脑上，离开时请退出登录。",
        "{n} cards kept on this device until you sign out or the study day ends. "
        "On a shared computer, sign out when you leave.",
    ),
    "study.expired": (
        "一项离线操作等待超过七天，已不再发送。",
        "An action kept offline for over seven days was dropped, not sent.",
    ),
    "study.undo_failed": (
        "无法撤销：这张卡片在别处已被评分。",
        "Could not undo: the card was rated elsewhere meanwhile.",
    ),
    "study.action_failed": (
        "操作未完成，请刷新页面后再试。",
        "That did not go through; reload and try again.",
    ),
    "study.waiting_for_cards": (
        "正在取下一张卡片…（离线时评分会保存在本机）",
        "Fetching the next card… (ratings made offline are kept on this device)",
    ),
    "scope.deck": ("题库", "Deck"),
    "study.all": ("全部", "All decks"),
    "study.suspend": ("已暂停这张卡片，解除前不会再出现。", "Card suspended until unsuspended."),
    "study.unsuspend": ("已恢复这张卡片。", "Card unsuspended."),
    "study.bury": ("已搁置到明天。", "Card buried until tomorrow."),
    "study.unbury": ("已取消搁置。", "Card unburied."),
    "study.flagged": ("已加旗标。", "Card flagged."),
    "study.unflagged": ("已清除旗标。", "Flag cleared."),
    "study.unleech": ("已清除“难记”标记，卡片恢复学习。", "Leech mark cleared; the card is back."),
    "study.leech": (
        "这张卡片已遗忘 {lapses} 次，标记为“难记”。",
        "This card has lapsed {lapses} times and is marked a leech.",
    ),
    "marks.actions": ("卡片操作", "Card actions"),
    "marks.suspend": ("暂停", "Suspend"),
    "marks.unsuspend": ("取消暂停", "Unsuspend"),
    "marks.bury": ("搁置到明天", "Bury"),
    "marks.unbury": ("取消搁置", "Unbury"),
    "marks.flag": ("旗标", "Flag"),
    "marks.unflag": ("清除旗标", "Clear flag"),
    "marks.all_flags": ("全部旗标", "All flags"),
    "marks.flag.red": ("红", "Red"),
    "marks.flag.orange": ("橙", "Orange"),
    "marks.flag.green": ("绿", "Green"),
    "marks.flag.blue": ("蓝", "Blue"),
    "marks.flag.pink": ("粉", "Pink"),
    "marks.flag.turquoise": ("青", "Turquoise"),
    "marks.flag.purple": ("紫", "Purple"),
    "marks.leech": ("难记", "Leech"),
    "marks.unleech": ("已改写，清除标记", "Rewritten: clear the mark"),
    "marks.lists": ("我的卡片列表", "My card lists"),
    "marks.list.suspended": ("已暂停", "Suspended"),
    "marks.list.buried": ("已搁置", "Buried"),
    "marks.list.flagged": ("有旗标", "Flagged"),
    "marks.list.leech": ("难记卡片", "Leeches"),
    "marks.intro.suspended": (
        "暂停的卡片不会出现在学习和练习中，直到你取消暂停。",
        "Suspended cards stay out of study and practice until you unsuspend them.",
    ),
    "marks.intro.buried": (
        "搁置的卡片在你的下一个学习日开始时回来。",
        "Buried cards come back when your next study day begins.",
    ),
    "marks.intro.flagged": (
        "旗标只有你自己看得到。",
        "Flags are yours alone.",
    ),
    "marks.intro.leech": (
        "反复遗忘的卡片。最好的办法是改写它：拆小、换个问法，或补上缺的背景。",
        "Cards you keep forgetting. The best cure is to rewrite them: split them, ask "
        "differently, or add the missing background.",
    ),
    "marks.none": ("这里还没有卡片。", "No cards here."),
    "marks.source": ("内容位置", "In the content"),
    "marks.history": ("评分记录", "Ratings"),
    "marks.back_at": ("回来时间", "Back at"),
    "marks.practise_these": ("练习这些卡片", "Practise these cards"),
    "custom.title": ("自定义学习", "Custom study"),
    "custom.recap": (
        "今天学习了 {cards} 张卡片，用时 {minutes} 分钟，“重来”率 {rate}。",
        "Today: {cards} cards studied in {minutes} min, again-rate {rate}.",
    ),
    "custom.more_new": ("今天再学新卡", "More new cards today"),
    "custom.take": ("增加", "Take them"),
    "custom.raised": (
        "今天已多加 {count} 张（只限今天）。",
        "Today's limit is raised by {count} (today only).",
    ),
    "custom.ahead": ("提前复习未来几天到期的卡片", "Review cards due in the next days"),
    "custom.review_ahead": ("提前复习", "Review ahead"),
    "custom.failed": ("再练一遍今天忘记的 {count} 张", "Practise the cards failed today ({count})"),
    "custom.flagged": ("有旗标的卡片", "Flagged cards"),
    "custom.practise": ("练习一个题库、章节或标签：", "Practise a deck, section or tag:"),
    "custom.practice_options": ("计时与顺序…", "Timer and order…"),
    "settings.retention_help": (
        "复习时希望还记得的概率：越高，复习越频繁。",
        "The chance you want to still remember a card when it comes up: higher means more "
        "frequent reviews.",
    ),
    "settings.new_help": (
        "每天第一次见到的卡片数：每张新卡在之后几天都会带来复习，今天学得多，之后复习也多"
        "（“完成”页面可以只为今天多学几张）。",
        "Cards you meet for the first time each day: every new card brings reviews in the days "
        "after it, so more new cards now means more reviews later (the done page can add a few "
        "for today only).",
    ),
    "settings.reviews_help": (
        "一天最多复习的卡片数：超出的留到第二天，会逾期，所以要设得够你跟上进度。",
        "The most reviews you get in a day: the rest wait until the next day and fall overdue, "
        "so set it high enough to keep up.",
    ),
    "settings.rollover_help": (
        "你的学习日在这个整点（你所在时区）开始：此前的复习算前一天。"
        "默认凌晨 4 点，深夜学习仍算当天。",
        "Your study day starts at this hour in your time zone: reviews before it count for the "
        "day before. At 4 (the default), a late night still counts as the same day.",
    ),
    "settings.timezone_help": (
        "输入筛选，例如 Shanghai；所有页面上的时间都按这个时区显示。",
        "Type to filter, e.g. Shanghai; every time on every page is shown in this zone.",
    ),
    "settings.leech_threshold": (
        "“难记”阈值（遗忘次数，0 关闭）",
        "Leech threshold (lapses, 0: off)",
    ),
    "settings.leech_action": ("卡片变为“难记”时", "When a card becomes a leech"),
    "settings.leech_suspend": ("暂停它", "Suspend it"),
    "settings.leech_tag": ("只做标记", "Only mark it"),
    "settings.leech_help": (
        "遗忘达到阈值时标记，之后每多遗忘半个阈值再提醒一次。",
        "A card is marked when its lapses reach the threshold, and again every half threshold.",
    ),
    "zone.offer": (
        "你的浏览器时区是 {zone}。使用它吗？",
        "Your browser's time zone is {zone}. Use it?",
    ),
    "zone.offer_plain": (
        "你的时区现在是 {zone}：请在设置里选择你所在的时区。",
        "Your time zone is {zone}: choose yours in the settings.",
    ),
    "zone.use": ("使用", "Use it"),
    "zone.keep": ("保持 {zone}", "Keep {zone}"),
    "admin.leeches": ("团队的难记卡片", "The team's leeches"),
    "admin.leeches_note": (
        "最多成员反复遗忘的卡片：值得改写。",
        "The cards the most members keep failing: worth rewriting.",
    ),
    "admin.leech_members": ("成员数", "Members"),
    "practice.title": ("练习", "Practice"),
    "practice.intro": (
        "模拟面试：按顺序或随机出题，可限时作答；评分只记录，不影响复习计划。",
        "Mock interview: questions in order or at random, optionally timed; ratings are logged "
        "but never change your schedule.",
    ),
    "practice.order": ("顺序", "Order"),
    "practice.tag": ("标签", "Tag"),
    "practice.any_tag": ("不限", "Any"),
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
    "search.title": ("搜索", "Search"),
    "search.placeholder": ("搜索问题、答案和主题", "Search questions, answers and topics"),
    "search.results": ("条结果", "results"),
    "search.none": ("没有找到结果。", "No results."),
    "search.card": ("卡片", "Card"),
    "search.topic": ("主题", "Topic"),
    "search.kind": ("类型", "Kind"),
    "search.any_kind": ("卡片和主题", "Cards and topics"),
    "search.cards": ("只看卡片", "Cards only"),
    "search.topics": ("只看主题", "Topics only"),
    "search.deck": ("题库", "Deck"),
    "search.any_deck": ("全部题库", "Every deck"),
    "search.did_you_mean": ("你是不是要找：", "Did you mean:"),
    "search.shown": ("显示前 {shown} 条", "showing the first {shown}"),
    "settings.title": ("学习设置", "Study settings"),
    "settings.retention": ("目标记忆保持率", "Desired retention"),
    "settings.new_per_day": ("每天新卡数", "New cards per day"),
    "settings.max_reviews": ("每天最多复习数", "Maximum reviews per day"),
    "settings.rollover": ("每天开始于（小时）", "Day starts at (hour)"),
    "settings.timezone": ("时区", "Time zone"),
    "settings.save": ("保存", "Save"),
    "settings.saved": ("已保存。", "Saved."),
    "backup.title": ("备份与导出", "Backup and export"),
    "backup.intro": (
        "下载你的复习记录、复习计划和设置。恢复可以放心重复：已有的记录不会再加一遍。",
        "Download your review log, schedule and settings. Restoring is safe to repeat: "
        "nothing already here is added twice.",
    ),
    "backup.json": ("下载备份（JSON）", "Download backup (JSON)"),
    "backup.csv": ("下载复习记录（CSV）", "Download review log (CSV)"),
    "backup.restore_title": ("从备份恢复", "Restore from a backup"),
    "backup.file": ("备份文件（JSON）", "Backup file (JSON)"),
    "backup.restore": ("恢复", "Restore"),
    "backup.restored": (
        "已恢复：新增 {reviews} 条复习记录（{present} 条已存在）；复习计划新增 {added} 个、"
        "更新 {updated} 个、{kept} 个不变；{placeholders} 张已不在题库中的卡片以“已移除”保留。",
        "Restored: {reviews} reviews added ({present} already here); schedules: {added} added, "
        "{updated} updated, {kept} unchanged; {placeholders} cards no longer in the bank "
        "kept as retired.",
    ),
    "backup.settings_restored": ("学习设置已按备份恢复。", "Study settings were restored."),
    "backup.marks_restored": (
        "{count} 张卡片的暂停、搁置、旗标或“难记”标记已按备份恢复。",
        "Suspend, bury, flag or leech marks restored on {count} cards.",
    ),
    "backup.left_out": (
        "{count} 张卡片不在共享题库中，它们的记录未恢复。",
        "{count} cards are not in the shared bank; their history was left out.",
    ),
    "backup.nothing": (
        "备份里的内容都已存在，没有任何改动。",
        "Everything in this backup was already here; nothing changed.",
    ),
    "export.anki": ("导出到 Anki", "Export to Anki"),
    "export.anki_all": ("全部导出到 Anki", "Export all to Anki"),
    "nav.admin": ("管理", "Admin"),
    "auth.login": ("登录", "Sign in"),
    "auth.logout": ("退出", "Sign out"),
    "auth.signup": ("注册", "Sign up"),
    "auth.name": ("用户名", "User name"),
    "auth.password": ("密码", "Password"),
    "auth.account": ("账户", "Account"),
    "auth.change_password": ("修改密码", "Change password"),
    "auth.change_password_note": (
        "修改密码后，你在其他设备上的登录会全部失效。",
        "Changing your password signs you out everywhere else.",
    ),
    "auth.old_password": ("当前密码", "Current password"),
    "auth.new_password": ("新密码（至少 8 位）", "New password (8+ characters)"),
    "auth.done_password": ("密码已修改。", "Password changed."),
    "auth.done_revoked": ("令牌已吊销。", "Token revoked."),
    "auth.tokens": ("个人 API 令牌", "Personal API tokens"),
    "auth.tokens_note": (
        "脚本可用 Authorization: Bearer <令牌> 调用 /api。",
        "Scripts can call /api with Authorization: Bearer <token>.",
    ),
    "auth.token_once": ("请立即复制，此令牌只显示一次：", "Copy it now, it is shown only once:"),
    "auth.token_name": ("令牌名称", "Token name"),
    "auth.create_token": ("创建令牌", "Create token"),
    "auth.revoke": ("吊销", "Revoke"),
    "admin.users": ("成员", "Users"),
    "admin.team": ("团队进度", "Team progress"),
    "admin.import": ("重新导入内容", "Re-import content"),
    "admin.import_note": (
        "从服务器的内容目录导入；出错时题库保持不变。",
        "Imports the server's content directory; on any error the bank stays unchanged.",
    ),
    "admin.import_failed": ("导入失败，题库未改变：", "Import failed; the bank is unchanged:"),
    "admin.import_running": ("正在导入，本页会自动刷新……", "Importing; this page reloads itself…"),
    "admin.import_done": (
        "{decks} 个题库、{topics} 个阅读页；卡片新增 {added}、更新 {updated}、未变 {unchanged}、"
        "下线 {retired}；渲染公式 {formulas} 个",
        "{decks} decks, {topics} topics; cards: {added} added, {updated} updated, "
        "{unchanged} unchanged, {retired} retired; {formulas} formulas rendered",
    ),
    "admin.role": ("角色", "Role"),
    "admin.status": ("状态", "Status"),
    "admin.actions": ("操作", "Actions"),
    "admin.admin": ("管理员", "Admin"),
    "admin.member": ("成员", "Member"),
    "admin.active": ("正常", "Active"),
    "admin.disabled": ("已停用", "Disabled"),
    "admin.enable": ("启用", "Enable"),
    "admin.disable": ("停用", "Disable"),
    "admin.reset_password": ("重设密码", "Reset password"),
    "admin.add_user": ("添加成员", "Add user"),
    "admin.backup": ("下载备份", "Backup"),
    "admin.restore": ("恢复备份", "Restore"),
    "admin.invites": ("邀请链接", "Invite links"),
    "admin.invites_note": (
        "一次性链接，过期失效。未使用的链接数",
        "Single-use links that expire. Unused links",
    ),
    "admin.create_invite": ("生成邀请链接", "Create invite link"),
    "admin.invite_created": ("邀请链接（只显示一次）：", "Invite link (shown once):"),
    "admin.done": ("已完成。", "Done."),
    "admin.last_active": ("最近活跃", "Last active"),
    "admin.reviews_week": ("本周复习", "Reviews this week"),
    "admin.retention_30": ("30 天保持率", "Retention (30 d)"),
    "admin.no_members": ("还没有成员。", "No members yet."),
    **FSRS_STRINGS,
    **CLOZE_STRINGS,
    **INTERVIEW_STRINGS,
    **ERROR_STRINGS,
    **REFUSAL_STRINGS,
    **LIMIT_STRINGS,
    **NOTES_STRINGS,
    **VAULT_STRINGS,
    **PROBLEMS,
}


def language(request: Request) -> str:
    """The interface language: the switch's cookie, else the browser's preference, else Chinese."""
    chosen = request.cookies.get(COOKIE)
    if chosen in LANGUAGES:
        return chosen
    return preferred(request.headers.get("accept-language", "")) or "zh"


def preferred(header: str) -> str | None:
    """The language of ours that an Accept-Language header ranks highest (by q, then order)."""
    best, best_q = None, 0.0
    for part in header.split(","):
        tag, *params = part.split(";")
        q = 1.0
        for param in params:
            name, _, value = param.strip().partition("=")
            if name.strip() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        code = tag.strip().lower().split("-")[0]
        if code in LANGUAGES and q > best_q:
            best, best_q = code, q
    return best


def translator(lang: str) -> Callable[..., str]:
    index = 0 if lang == "zh" else 1

    # `key` is positional-only, so a value may itself be named `key`.
    def t(key: str, /, **values: object) -> str:
        """The string `key` in the language, worded with `values`; the key if it has none."""
        return worded(key, values, lang) if values else STRINGS.get(key, (key, key))[index]

    return t


def worded(key: str, values: Mapping[str, object] | None, lang: str) -> str:
    """The string `key` in `lang`, worded with `values` given as one mapping, whatever they are
    named (a problem kept by an import may carry a `key`, a `lang` or a `self`); the key if it
    has no wording."""
    pair = STRINGS.get(key)
    if pair is None:
        return key
    text = pair[0 if lang == "zh" else 1]
    if not values:
        return text
    try:
        return text.format_map(dict(values))
    except (KeyError, IndexError, ValueError, AttributeError, TypeError):
        return text  # kept by another version with other values: unworded


def say(exc: AppError, lang: str) -> str:
    """The message of a refused request in `lang`."""
    return exc.say(STRINGS, 0 if lang == "zh" else 1)
