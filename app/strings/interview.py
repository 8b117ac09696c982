"""Interface strings (zh, en) of interview mode: interviews, readiness, plan, mock interviews."""

INTERVIEW_STRINGS: dict[str, tuple[str, str]] = {
    "nav.interview": ("面试", "Interview"),
    "interview.title": ("面试准备", "Interviews"),
    "interview.intro": (
        "设定面试日期和范围：按 FSRS 预测你在那天能记住每张卡片的概率，并排出每天的复习计划。",
        "Set an interview's date and scope: FSRS predicts how likely you are to recall each "
        "card on the day, and the plan spreads the reviews that get you there.",
    ),
    "interview.upcoming": ("即将到来的面试", "Upcoming interviews"),
    "interview.none": ("还没有设定面试。", "No interview set yet."),
    "interview.set_one": (
        "有面试要准备？设定日期，看看那天能记住多少。",
        "An interview coming up? Set its date and see how ready you will be.",
    ),
    "interview.add": ("添加面试", "Add interview"),
    "interview.name": ("名称", "Name"),
    "interview.name_hint": ("例如：NVIDIA kernel 组", "e.g. NVIDIA kernel team"),
    "interview.date": ("日期", "Date"),
    "interview.section": ("小节（可选）", "Section (optional)"),
    "interview.target": ("目标记忆率", "Target recall"),
    "interview.details": ("详情与计划", "Readiness and plan"),
    "interview.scope": ("范围", "Scope"),
    "interview.whole_bank": ("范围：整个题库", "Scope: the whole bank"),
    "interview.today": ("就是今天", "today"),
    "interview.tomorrow": ("明天", "tomorrow"),
    "interview.in_days": ("还有 {days} 天", "in {days} days"),
    "interview.ready_line": (
        "已准备好：{cards} 张卡片中 {percent}% 达到 {target}%",
        "ready: {percent}% of {cards} cards at {target}%",
    ),
    "interview.per_day_line": (
        "每天复习 {per_day} 张就能达到",
        "{per_day} reviews a day gets you there",
    ),
    "interview.all_ready": ("全部达标，照常学习即可", "every card is there; study as usual"),
    "interview.warn_over_reviews": (
        "计划中最忙的一天需要 {need} 次复习，超过了你每天 {limit} 次的上限（在设置中调整）。",
        "The plan's busiest day needs {need} reviews, above your limit of {limit} a day "
        "(change it in Settings).",
    ),
    "interview.warn_over_new": (
        "计划中有一天要学 {need} 张新卡，超过了你每天 {limit} 张的上限。",
        "One day of the plan introduces {need} new cards, above your limit of {limit} a day.",
    ),
    "interview.unreachable": (
        "有 {count} 张卡片在面试前来不及达到目标。",
        "{count} cards cannot reach the target before the interview.",
    ),
    "interview.study_plan": ("按计划学习", "Study today's plan"),
    "interview.by_section": ("各组与小节", "By deck and section"),
    "interview.weakest": ("最薄弱的卡片", "Weakest cards"),
    "interview.not_studied": ("未学", "not studied"),
    "interview.plan": ("每日计划", "Daily plan"),
    "interview.plan_intro": (
        "面试那天预测记忆率低于目标的卡片会被提前复习，新卡尽早学；"
        "今天的计划卡片在学习队列中优先出现，面试后恢复正常排程。",
        "Cards whose predicted recall on the day is below the target are brought forward and "
        "new cards learned early; today's plan cards come first in the study queue, and the "
        "normal schedule resumes after the interview.",
    ),
    "interview.day": ("日期", "Day"),
    "interview.reviews": ("复习", "Reviews"),
    "interview.new_cards": ("其中新卡", "of them new"),
    "interview.total": ("合计", "Total"),
    "interview.delete": ("删除这个面试", "Delete this interview"),
    "mock.title": ("模拟面试", "Mock interview"),
    "mock.intro": (
        "限时作答、可录音，回答后面试官会继续追问；最后按要点清单自评覆盖率。",
        "Answer against the clock, optionally aloud; the interviewer then presses the "
        "follow-ups, and you tick the key points you said.",
    ),
    "mock.start": ("开始模拟面试", "Start a mock interview"),
    "mock.again": ("再来一场", "Another mock interview"),
    "mock.count": ("题数", "Questions"),
    "mock.order_weakest": ("最弱的先问", "Weakest first"),
    "mock.minutes": ("每题分钟数", "Minutes per question"),
    "mock.followup_seconds": ("每个追问的秒数", "Seconds per follow-up"),
    "mock.history": ("历次模拟面试", "Mock interview history"),
    "mock.no_history": ("还没有完成过模拟面试。", "No mock interviews yet."),
    "mock.chart_label": (
        "最近 {count} 场模拟面试的要点覆盖率和每题用时",
        "Coverage and time per question of the last {count} mock interviews",
    ),
    "mock.chart_point": (
        "{date}：{questions} 题，覆盖 {coverage}%，每题 {seconds} 秒",
        "{date}: {questions} questions, {coverage}% covered, {seconds} s a question",
    ),
    "mock.question": ("题目", "Question"),
    "mock.questions": ("题数", "Questions"),
    "mock.time_left": ("剩余", "Time left"),
    "mock.time_answer": ("作答用时", "Answered in"),
    "mock.record": ("录音", "Record"),
    "mock.stop": ("停止录音", "Stop"),
    "mock.recording": ("正在录音…", "Recording…"),
    "mock.saving": ("正在保存录音…", "Saving the recording…"),
    "mock.recorded": ("录音已保存", "Recording saved"),
    "mock.no_mic": ("无法使用麦克风；不录音也可以继续。", "No microphone; carry on without it."),
    "mock.upload_failed": (
        "录音没能保存（{reason}）；本题的作答照常记录。",
        "The recording was not saved ({reason}); the answer itself is kept.",
    ),
    "mock.recording_waiting": (
        "录音已保存在本机，联网后自动发送。",
        "Recording kept on this device; it is sent when the connection returns.",
    ),
    "mock.recording_memory": (
        "录音尚未发送，只保存在本页：此时重新加载会丢失它。",
        "Recording not sent yet and kept only in this page: reloading now loses it.",
    ),
    "mock.sync_offline": ("离线：{n} 个回答等待发送", "Offline · answers waiting: {n}"),
    "mock.sync_retrying": (
        "服务器暂时无响应：{n} 个回答等待重试",
        "Server not answering · answers waiting: {n}",
    ),
    "mock.sync_signed_out": (
        "登录已失效：{n} 个回答保存在本机，重新登录后发送",
        "Signed out: the answers waiting ({n}) stay on this device until you sign in again",
    ),
    "mock.finishing": (
        "全部答完。回答和录音都送到服务器后就会打开总结。",
        "Every question is answered. The report opens once all answers and recordings have "
        "reached the server.",
    ),
    "mock.points_changed": (
        "这道题的要点在作答期间改变了（题库重新导入）：请重新勾选；用时和评分都保留。",
        "The key points of this answer changed while you were answering (the content was "
        "imported again): tick them again; your time and rating are kept.",
    ),
    "mock.answer_aloud": (
        "像面试一样出声回答，说完再继续。",
        "Answer aloud as you would in the interview, then go on.",
    ),
    "mock.to_followups": ("答完了，接受追问", "Done: take the follow-ups"),
    "mock.to_answer": ("答完了，看参考答案", "Done: show the model answer"),
    "mock.interviewer_asks": ("面试官追问", "The interviewer asks"),
    "mock.next_followup": ("下一个追问", "Next follow-up"),
    "mock.checklist": (
        "参考答案的要点：勾选你说到的",
        "The model answer's key points: tick what you said",
    ),
    "mock.coverage": ("覆盖率", "Coverage"),
    "mock.suggested_is": ("建议评分：{rating}", "suggests: {rating}"),
    "mock.followups_answered": ("答上的追问", "Follow-ups answered"),
    "mock.model_answer": ("参考答案", "Model answer"),
    "mock.point_said": ("说到了", "said"),
    "mock.point_missed": ("漏掉了", "missed"),
    "mock.rating": ("评分", "Rating"),
    "mock.suggested": ("按覆盖率建议", "As coverage suggests"),
    "mock.count_as_review": (
        "计入复习（会改变 FSRS 排程）",
        "Count as a review (moves the FSRS schedule)",
    ),
    "mock.next_question": ("下一题", "Next question"),
    "mock.finish": ("结束并查看总结", "Finish and see the report"),
    "mock.summary": ("模拟面试总结", "Mock interview report"),
    "mock.overtime_count": ("超时题数", "Overtime"),
    "mock.time_used": ("用时", "Time"),
    "mock.overtime": ("超时", "Overtime"),
    "mock.counted": ("已计入复习", "counted as a review"),
    "mock.delete_recording": ("删除录音", "Delete recording"),
    "mock.no_recording": ("没有录音", "No recording"),
    "mock.weak_topics": ("薄弱主题", "Weakest topics"),
    "mock.study_missed": (
        "把没答好的 {count} 题加入今天的学习",
        "Add the {count} missed ones to today's study",
    ),
    "mock.seconds_per_question": ("每题用时", "Time per question"),
}
