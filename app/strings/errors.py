"""Interface strings (zh, en) of error pages and of the answers a request cannot be served."""

ERROR_STRINGS: dict[str, tuple[str, str]] = {
    "error.title": ("出错了", "Something went wrong"),
    "error.page_not_found": ("页面不存在", "Page not found"),
    "error.not_found": ("这个地址下什么也没有。", "There is nothing at this address."),
    "error.back": ("返回首页", "Back to home"),
    "error.bad_host": (
        "本服务不接受发往主机名 “{host}” 的请求。如果这是本实例的地址，请把它加入 "
        "QBANK_ALLOWED_HOSTS 或设为 QBANK_PUBLIC_URL。",
        "This server does not answer requests for the host name “{host}”. If this is the "
        "instance's address, add it to QBANK_ALLOWED_HOSTS or set it as QBANK_PUBLIC_URL.",
    ),
    # Answers with a 503: nothing was stored, and the client may send it again.
    "error.busy": (
        "服务器正忙：本次操作没有保存，请稍后重试。",
        "the server is busy; nothing was stored, try again in a moment",
    ),
    "error.read_only": (
        "数据库是只读的：本次操作没有保存（请检查数据库文件及其权限）。",
        "the database is read-only; nothing was stored (check its file and permissions)",
    ),
    "error.disk_full": (
        "磁盘已满：本次操作没有保存，腾出空间后才能继续保存。",
        "the disk is full; nothing was stored until space is freed",
    ),
    "error.unavailable": (
        "数据库没有响应：本次操作没有保存，请稍后重试。",
        "the database is not answering; nothing was stored, try again in a moment",
    ),
}

# The messages of the app's refusals (app/errors.py): `error.<code>`, filled with its values.
REFUSAL_STRINGS: dict[str, tuple[str, str]] = {
    # Requests in general
    "error.invalid_request": ("请求无效：{problems}", "invalid request: {problems}"),
    "error.nothing_here": ("{path} 不存在", "nothing at {path}"),
    "error.method_not_allowed": ("不支持该请求方法", "method not allowed"),
    "error.http": ("请求无法完成（{status}）", "the request cannot be answered ({status})"),
    "error.not_storable": (
        "请求中含有无法保存的字符或数值。",
        "the request contains characters or values that cannot be stored",
    ),
    "error.internal": (
        "服务器内部错误；详情见服务器日志。",
        "internal error; the details are in the server log",
    ),
    # Signing in and permissions
    "error.not_signed_in": ("请先登录。", "sign in first"),
    "error.token_invalid": ("API 令牌无效或已撤销。", "invalid or revoked API token"),
    "error.admin_only": ("此页面仅限管理员。", "this page is for administrators"),
    "error.cross_site": ("已拒绝跨站请求。", "cross-site request refused"),
    "error.csrf_token": (
        "CSRF 令牌缺失或错误：请刷新页面后重试。",
        "missing or wrong CSRF token; reload the page and try again",
    ),
    "error.wrong_credentials": ("用户名或密码错误。", "wrong user name or password"),
    "error.wrong_password": ("当前密码不正确。", "the current password is wrong"),
    "error.sign_in_throttled": (
        "登录失败次数过多：请 15 分钟后再试。",
        "too many failed sign-ins; wait 15 minutes and try again",
    ),
    "error.password_checks_busy": (
        "服务器正忙于校验密码：请稍后重试。",
        "the server is busy checking passwords; try again in a moment",
    ),
    "error.password_too_short": (
        "密码至少需要 {min} 个字符。",
        "the password must have at least {min} characters",
    ),
    "error.user_name_invalid": (
        "用户名须为 2-40 个字母、数字、“.”、“_”或“-”。",
        "user names are 2-40 letters, digits, '.', '_' or '-'",
    ),
    "error.user_exists": ("用户 “{name}” 已存在。", "user '{name}' already exists"),
    "error.user_not_found": ("没有用户 “{name}”。", "no user '{name}'"),
    "error.learner_not_found": ("没有学习者 “{name}”。", "no learner '{name}'"),
    "error.signup_invite_only": ("只能通过邀请注册。", "sign-up is by invitation only"),
    "error.invite_invalid": ("此邀请链接无效。", "this invite link is not valid"),
    "error.invite_used": ("此邀请链接已被使用。", "this invite link has already been used"),
    "error.invite_expired": (
        "此邀请链接已过期：请索取新的链接。",
        "this invite link has expired; ask for a new one",
    ),
    "error.cannot_disable_self": ("不能停用你自己的账号。", "you cannot disable your own account"),
    "error.token_name_invalid": (
        "令牌名称须为 1-100 个字符。",
        "give the token a name of 1-100 characters",
    ),
    "error.token_not_found": ("没有这个令牌。", "no such token"),
    # The bank
    "error.deck_not_found": ("没有题组 “{deck}”。", "no deck '{deck}'"),
    "error.note_not_found": ("notes 文件夹里没有这篇笔记。", "no such note in the notes folder"),
    "error.card_not_found": ("没有卡片 “{card}”。", "no card '{card}'"),
    "error.topic_not_found": ("没有主题 “{topic}”。", "no topic '{topic}'"),
    "error.image_not_found": ("没有这张图片。", "no such image"),
    "error.job_not_found": ("没有任务 {job}。", "no job {job}"),
    "error.import_failed": (
        "导入失败，共 {count} 个错误；题库没有改动。",
        "import failed with {count} error(s); the bank is unchanged",
    ),
    # Studying
    "error.rating_out_of_range": ("评分须为 1、2、3 或 4。", "rating must be 1, 2, 3 or 4"),
    "error.duration_out_of_range": (
        "duration_ms 须在 0 到 86400000 之间。",
        "duration_ms must be between 0 and 86400000",
    ),
    "error.version_conflict": (
        "这张卡片刚刚被评分或修改过：请刷新以查看它的当前状态。",
        "this card was rated or changed meanwhile; reload to see its current state",
    ),
    "error.nothing_to_undo": ("没有可以撤销的评分。", "there is no rating to undo"),
    "error.flag_out_of_range": (
        "旗标须在 0 到 {count} 之间。",
        "flag must be between 0 and {count}",
    ),
    "error.scope_empty": ("范围 “{scope}” 中没有卡片。", "no cards match the scope '{scope}'"),
    # Settings
    "error.setting_not_a_number": ("{name} 必须是数字。", "{name} must be a number"),
    "error.setting_out_of_range": (
        "{name} 须在 {low} 到 {high} 之间。",
        "{name} must be between {low} and {high}",
    ),
    "error.unknown_time_zone": (
        "未知时区 “{zone}”（请用 Asia/Shanghai 这样的名称）。",
        "unknown time zone '{zone}' (use a name like Asia/Shanghai)",
    ),
    "error.easy_days_weekdays": (
        "轻松日须是 0（周一）到 6（周日）之间的星期。",
        "easy days must be weekdays 0 (Monday) to 6 (Sunday)",
    ),
    "error.easy_days_too_many": (
        "轻松日最多六天：每周至少要有一天承担复习量。",
        "at most six easy days: one day a week must take the load",
    ),
    "error.leech_action_invalid": (
        "难记卡处理方式须为 “suspend” 或 “tag”。",
        "leech action must be 'suspend' or 'tag'",
    ),
    # Practice
    "error.practice_order_invalid": (
        "顺序须为 “content” 或 “random”。",
        "order must be 'content' or 'random'",
    ),
    "error.practice_seconds_out_of_range": (
        "每张卡的秒数须在 0 到 {max} 之间。",
        "seconds per card must be between 0 and {max}",
    ),
    "error.practice_empty": ("没有符合所选条件的卡片。", "no cards match this selection"),
    "error.practice_not_found": ("没有这次练习。", "no such practice session"),
    "error.practice_finished": ("这次练习已经结束。", "this practice session is finished"),
    "error.practice_not_current": (
        "这张卡片不是本次练习的当前卡片。",
        "that card is not the current card of this practice session",
    ),
    # Interviews and mock interviews
    "error.not_a_date": (
        "“{value}” 不是日期（请用 YYYY-MM-DD）。",
        "'{value}' is not a date (use YYYY-MM-DD)",
    ),
    "error.interview_name_missing": ("请给面试起个名字。", "give the interview a name"),
    "error.interview_date_past": (
        "面试日期 {day} 已经过去。",
        "the interview date {day} is in the past",
    ),
    "error.interview_date_too_far": (
        "面试日期 {day} 超过一年之后。",
        "the interview date {day} is more than a year ahead",
    ),
    "error.target_recall_out_of_range": (
        "目标记忆率须在 0.7 到 0.99 之间。",
        "the target recall must be between 0.7 and 0.99",
    ),
    "error.too_many_interviews": (
        "最多 {count} 场面试：请先删除一场已过去的。",
        "at most {count} interviews; delete a past one first",
    ),
    "error.interview_not_found": ("没有这场面试。", "no such interview"),
    "error.mock_order_invalid": (
        "顺序须为 “random” 或 “weakest”。",
        "order must be 'random' or 'weakest'",
    ),
    "error.mock_question_count": (
        "模拟面试有 1 到 {max} 道题。",
        "a mock interview has 1 to {max} questions",
    ),
    "error.mock_seconds_out_of_range": (
        "时限须在 10 到 {max} 秒之间。",
        "time limits must be between 10 and {max} seconds",
    ),
    "error.mock_not_found": ("没有这场模拟面试。", "no such mock interview"),
    "error.mock_over": ("这场模拟面试已经结束。", "this mock interview is over"),
    "error.mock_question_not_open": (
        "这道题不是本场模拟面试中待回答的题目。",
        "that is not a question of this mock interview left to answer",
    ),
    "error.key_points_changed": (
        "作答期间这道题的要点变了（内容被重新导入）：请重新勾选；用时和录音都已保留。",
        "the key points of this answer changed while you were answering (the content was "
        "imported again): tick them again; your time and recording are kept",
    ),
    "error.key_point_out_of_range": (
        "要点编号为 0 到 {last}。",
        "key points are numbered 0 to {last}",
    ),
    "error.followups_out_of_range": (
        "这道题有 {count} 个追问。",
        "this question has {count} follow-ups",
    ),
    # Recordings
    "error.recording_too_large": (
        "一段录音最大 {mb} MB。",
        "a recording may be at most {mb} MB",
    ),
    "error.recording_empty": ("录音是空的。", "the recording is empty"),
    "error.recording_not_audio": (
        "录音必须是音频（{types}），而不是 “{mime}”。",
        "recordings must be audio ({types}), not '{mime}'",
    ),
    "error.recording_bytes_mismatch": (
        "录音的内容不是 {mime}。",
        "the recording's bytes are not {mime}",
    ),
    "error.question_not_in_mock": (
        "这道题不属于本场模拟面试。",
        "that question is not part of this mock interview",
    ),
    "error.recording_not_found": ("没有这段录音。", "no such recording"),
    # Backups
    "error.backup_invalid": ("无法恢复该备份：{reason}", "{reason}"),
    "error.backup_too_large": ("文件超过 {mb} MB。", "the file is larger than {mb} MB"),
}
