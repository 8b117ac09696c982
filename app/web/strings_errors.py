"""Interface strings (zh, en) of error pages and of the answers a request cannot be served."""

ERROR_STRINGS: dict[str, tuple[str, str]] = {
    "error.title": ("出错了", "Something went wrong"),
    "error.not_found": ("页面不存在", "Page not found"),
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
