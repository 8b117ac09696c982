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
    "nav.stats": ("统计", "Stats"),
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
    "deck.sections": ("各节进度", "Sections"),
    "stats.title": ("学习统计", "Statistics"),
    "stats.scope": ("范围", "Scope"),
    "stats.all": ("全部卡组", "All decks"),
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
    "stats.deck": ("卡组", "Deck"),
    "stats.period": ("时间段", "Period"),
    "stats.rate": ("保持率", "Retention"),
    "stats.passed": ("记住", "Passed"),
    "stats.review_count": ("复习次数", "Reviews"),
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
    "study.progress": ("今日已完成", "Done today"),
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
    "optimize.title": ("个人 FSRS 参数", "Personal FSRS parameters"),
    "optimize.intro": (
        "用你自己的复习记录拟合 FSRS 参数，让复习间隔更贴合你的记忆。需要几秒到一分钟。",
        "Fit FSRS's parameters to your own review log so intervals match how you remember. "
        "Takes a few seconds to a minute.",
    ),
    "optimize.personal": (
        "正在使用你的个人参数（{date} 拟合）。",
        "Your personal parameters are in use (fitted on {date}).",
    ),
    "optimize.default": ("正在使用 FSRS 默认参数。", "The FSRS default parameters are in use."),
    "optimize.missing": (
        "此功能需要可选的优化器组件（依赖 torch）。安装：{command}",
        "This needs the optional optimizer (it uses torch). Install it with: {command}",
    ),
    "optimize.not_enough": (
        "复习记录还不够：已有 {counted} 次，需要 {needed} 次（只计算距上次复习一天以上的复习）。",
        "Not enough reviews yet: {counted} of {needed} (only reviews a day or more after the "
        "card's previous one count).",
    ),
    "optimize.ready": (
        "可以拟合：共有 {counted} 次可用的复习。",
        "Ready: {counted} reviews to learn from.",
    ),
    "optimize.run": ("拟合我的参数", "Fit my parameters"),
    "optimize.reset": ("恢复默认参数", "Reset to defaults"),
    "optimize.was_reset": ("已恢复 FSRS 默认参数。", "Back to the FSRS default parameters."),
    "optimize.stored": (
        "已拟合 {reviews} 次复习：对数损失 {before} → {after}。今后按新参数安排复习。",
        "Fitted on {reviews} reviews: log loss {before} → {after}. "
        "Your reviews are scheduled with these parameters from now on.",
    ),
    "optimize.kept": (
        "已拟合 {reviews} 次复习：对数损失 {before} → {after}，没有改进，继续使用原来的参数。",
        "Fitted on {reviews} reviews: log loss {before} → {after}, no better, "
        "so the parameters in use were kept.",
    ),
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
