"""Interface strings (zh, en) of the settings page's FSRS sections: fitting, fuzz, workload."""

FSRS_STRINGS: dict[str, tuple[str, str]] = {
    "optimize.title": ("个人 FSRS 参数", "Personal FSRS parameters"),
    "optimize.intro": (
        "用你自己的复习记录拟合 FSRS-6 的参数，让复习间隔更贴合你的记忆。"
        "在后台运行，通常不到一秒。",
        "Fit FSRS-6's parameters to your own review log so intervals match how you remember. "
        "It runs in the background and usually takes under a second.",
    ),
    "optimize.personal": (
        "正在使用你的个人参数（{date} 拟合）。",
        "Your personal parameters are in use (fitted on {date}).",
    ),
    "optimize.default": ("正在使用 FSRS 默认参数。", "The FSRS default parameters are in use."),
    "optimize.not_enough": (
        "复习记录还不够：已有 {counted} 次，需要 {needed} 次"
        "（只计算距该卡上次复习至少一个学习日的复习；"
        "FSRS 引擎少于 8 次时什么也不拟合，少于 64 次时只拟合 4 个初始稳定度）。",
        "Not enough reviews yet: {counted} of {needed} (only reviews a study day or more after "
        "the card's previous one count; the FSRS engine fits nothing below 8 of them and only "
        "the four initial stabilities below 64).",
    ),
    "optimize.ready": (
        "可以拟合：共有 {counted} 次可用的复习。",
        "Ready: {counted} reviews to learn from.",
    ),
    "optimize.refit": (
        "上次拟合已超过一个月，复习记录也多了不少：建议重新拟合。",
        "It is over a month since the last fit and the log has grown: a re-fit is suggested.",
    ),
    "optimize.run": ("拟合我的参数", "Fit my parameters"),
    "optimize.reset": ("恢复默认参数", "Reset to defaults"),
    "optimize.was_reset": ("已恢复 FSRS 默认参数。", "Back to the FSRS default parameters."),
    "optimize.running": (
        "正在拟合……刷新本页查看结果。",
        "Fitting… reload this page for the outcome.",
    ),
    "optimize.reload": ("刷新", "Reload"),
    "optimize.result": (
        "已用 {items} 次复习拟合（{seconds} 秒）。"
        "在未参与拟合的复习上：对数损失 {before} → {after}，"
        "RMSE(bins) {rmse_before} → {rmse_after}。",
        "Fitted on {items} reviews in {seconds} s. On reviews the fit had not seen: log loss "
        "{before} → {after}, RMSE(bins) {rmse_before} → {rmse_after}.",
    ),
    "optimize.stored": (
        "新参数更好，今后按新参数安排复习。",
        "The new parameters are better: your reviews are scheduled with them from now on.",
    ),
    "optimize.kept": (
        "新参数没有更好，继续使用原来的参数。",
        "The new parameters are no better, so the ones in use were kept.",
    ),
    "optimize.failed": ("拟合失败：{message}", "The fit failed: {message}"),
    "fit.not_enough": (
        "复习记录还不够：已有 {counted} 次，需要 {needed} 次。原来的参数保持不变。",
        "Not enough reviews yet: {counted} of {needed}. The parameters in use were kept.",
    ),
    "fit.same_day": (
        "所有复习都和该卡上次复习在同一个学习日：拟合需要隔天以后的复习。原来的参数保持不变。",
        "Every review came on the same study day as the card's previous one: fitting needs "
        "reviews from later days. The parameters in use were kept.",
    ),
    "fit.all_again": (
        "计入的复习全是“重来”：没有记住的记录，无从拟合。原来的参数保持不变。",
        "Every counted review is Again: with no recall in the log there is nothing to fit. "
        "The parameters in use were kept.",
    ),
    "params.wrong_length": (
        "FSRS 参数有 {count} 个数，FSRS-6 需要 {expected} 个：改用默认参数。",
        "The FSRS parameters have {count} numbers where FSRS-6 has {expected}: the defaults "
        "are used instead.",
    ),
    "params.not_finite": (
        "FSRS 参数第 {index} 个不是有限的数：改用默认参数。",
        "FSRS parameter {index} is not a finite number: the defaults are used instead.",
    ),
    "params.out_of_range": (
        "FSRS 参数第 {index} 个超出模型允许的范围：改用默认参数。",
        "FSRS parameter {index} is outside the range the model allows: the defaults are used "
        "instead.",
    ),
    "spread.title": ("复习间隔的分散", "Spreading reviews"),
    "spread.note": (
        "3 天及以上的间隔会在一个小范围内随机浮动（每张卡固定），一起学的卡不会总在同一天到期。"
        "打开负载均衡后，会在这个范围内挑复习较少的日子；“轻松日”尽量少排复习。",
        "Intervals of 3 days or more move within a small range (fixed for each card), so cards "
        "learned together do not all come due on one day. With load balancing, the day is "
        "picked among the lighter ones in that range; easy days get as few reviews as possible.",
    ),
    "spread.load_balance": (
        "负载均衡：让每天的复习量更平均",
        "Load balancing: even out the daily load",
    ),
    "spread.easy_days": ("轻松日：", "Easy days:"),
    "spread.weekdays": ("周一,周二,周三,周四,周五,周六,周日", "Mon,Tue,Wed,Thu,Fri,Sat,Sun"),
    "workload.title": ("工作量与目标记忆保持率", "Workload and desired retention"),
    "workload.intro": (
        "在每个目标记忆保持率下模拟未来 365 天每天的复习次数和用时：你的题库共 {cards} 张卡"
        "（{seen} 张已在复习计划里，从各自现在的状态算起；{new} 张还是新卡），"
        "每天 {per_day} 张新卡、最多 {reviews} 次复习，使用{params}。",
        "The next 365 days simulated at each desired retention, in reviews and minutes a day: "
        "your bank of {cards} cards ({seen} already in your schedule, each starting from where "
        "it stands, and {new} still new), {per_day} new cards and at most {reviews} reviews a "
        "day, with {params}.",
    ),
    "workload.sampled": (
        "为了让页面保持快速，你学过的 {seen} 张卡按到期日均匀抽取 {sampled} 张来模拟，"
        "结果再按比例放大。",
        "To keep this page quick, your {seen} studied cards are simulated through an even "
        "sample of {sampled} of them (spread over their due dates), its figures scaled up.",
    ),
    "workload.personal": ("你的个人参数", "your personal parameters"),
    "workload.default": ("默认的 FSRS 参数", "the FSRS default parameters"),
    "workload.lowest": (
        "0.70 是这里模拟的最低值，也是设置允许的最低值。",
        "0.70 is the lowest retention simulated here, and the lowest the setting allows.",
    ),
    "workload.best_mark": ("最省时", "least time"),
    "workload.advice": (
        "帮我决定：目标记忆保持率 {retention} 时，每记住一张卡花的时间最少"
        "（{minutes} 分钟/张）。你现在的设置是 {yours}。",
        "Help me decide: at a desired retention of {retention} each card remembered costs the "
        "least time ({minutes} min a card). Yours is {yours}.",
    ),
    "workload.empty": (
        "题库是空的，或每天新卡数为 0：没有可模拟的工作量。",
        "The bank is empty or new cards per day is 0: there is no workload to simulate.",
    ),
    "workload.axis_reviews": ("每天复习次数", "reviews a day"),
    "workload.axis_minutes": ("每天分钟数", "minutes a day"),
    "workload.axis_x": ("目标记忆保持率", "desired retention"),
    "workload.best": (
        "{retention}：每记住一张卡用时最少",
        "{retention}: the least time per card remembered",
    ),
    "workload.yours": ("你的设置：{retention}", "Your setting: {retention}"),
    "workload.point": (
        "保持率 {retention}：每天 {reviews} 次复习，{minutes} 分钟",
        "Retention {retention}: {reviews} reviews, {minutes} minutes a day",
    ),
    "workload.label": (
        "目标记忆保持率 0.70 到 0.97 时每天的复习次数（{reviews}）和分钟数（{minutes}），"
        "用时最省的是 {best}",
        "Reviews ({reviews}) and minutes ({minutes}) a day for desired retention 0.70 to 0.97; "
        "the least time per card remembered at {best}",
    ),
    "workload.numbers": ("查看数字", "Show the numbers"),
    "workload.retention": ("保持率", "Retention"),
    "workload.reviews": ("每天复习", "Reviews a day"),
    "workload.minutes": ("每天分钟", "Minutes a day"),
    "workload.remembered": ("一年后记住的卡", "Cards remembered after a year"),
}
