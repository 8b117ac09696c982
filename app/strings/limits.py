"""Interface strings (zh, en) of the limits a member works within: recordings, mocks, search."""

LIMIT_STRINGS: dict[str, tuple[str, str]] = {
    "limits.full": (
        "录音空间不足：这段录音 {size} MB，你已用 {used} MB，上限 {quota} MB。"
        "删除一些较早的录音后再试。",
        "Not enough recording space: this recording is {size} MB and you use {used} of "
        "{quota} MB. Delete some older recordings and try again.",
    ),
    "limits.restore_full": (
        "备份中的录音共 {size} MB，超出你的录音空间（已用 {used} MB，上限 {quota} MB）："
        "没有恢复任何内容。删除一些较早的录音后再试。",
        "The backup's recordings take {size} MB, more than your recording space has room for "
        "({used} of {quota} MB used): nothing was restored. Delete some older recordings and "
        "try again.",
    ),
    "limits.quota_range": (
        "录音空间须是 0 到 1048576 之间的整数（MB）。",
        "The recording space must be a whole number of MB from 0 to 1048576.",
    ),
    "limits.mocks_open": (
        "你已有 {count} 场未完成的模拟面试，这是上限：先完成或结束其中一场，再开始新的。",
        "You have {count} unfinished mock interviews, the most you may keep: finish or end one "
        "before starting another.",
    ),
    "limits.search_control": (
        "搜索词里有控制字符（例如 NUL），请去掉后再搜索。",
        "The search contains control characters (such as NUL): remove them and search again.",
    ),
    "limits.recordings": ("我的录音", "My recordings"),
    "limits.used": ("录音已用 {used} MB / {quota} MB", "Recordings use {used} of {quota} MB"),
    "limits.recordings_note": (
        "录音保存在服务器上，最早的在前；空间用满后，新录音要先删除旧的才能保存。",
        "Recordings are kept on the server, the oldest first; once the space is full, a new "
        "recording is saved only after older ones are deleted.",
    ),
    "limits.no_recordings": ("还没有录音。", "No recordings yet."),
    "limits.recorded_at": ("录制时间", "Recorded"),
    "limits.size": ("大小", "Size"),
    "limits.question": ("题目", "Question"),
    "limits.delete": ("删除", "Delete"),
    "limits.all_recordings": ("管理录音", "Manage recordings"),
    "limits.unfinished": ("未完成的模拟面试", "Unfinished mock interviews"),
    "limits.unfinished_note": (
        "最多可同时保留 {count} 场未完成的模拟面试。",
        "You may keep up to {count} unfinished mock interviews at once.",
    ),
    "limits.answered": ("已答 {done} / {total} 题", "{done} of {total} answered"),
    "limits.continue": ("继续", "Continue"),
    "limits.end": ("结束", "End"),
    "limits.team_quota": ("每位成员的录音空间", "Recording space per member"),
    "limits.team_quota_field": ("上限（MB）", "Limit (MB)"),
    "limits.team_quota_note": (
        "留空则使用服务器设置（QBANK_RECORDING_QUOTA_MB，现为 {default} MB）。",
        "Leave empty for the server's setting (QBANK_RECORDING_QUOTA_MB, now {default} MB).",
    ),
    "limits.save": ("保存", "Save"),
    "limits.saved": ("已保存。", "Saved."),
    "limits.member_usage": ("录音", "Recordings"),
}
