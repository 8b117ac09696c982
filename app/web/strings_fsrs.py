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
}
