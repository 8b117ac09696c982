// The mock interview's state, apart from the page: the question on screen and its phase, the
// clocks, the answers on their way and the end. Each answer goes into the outbox
// (static/queue.js) with its own Idempotency-Key before the next question shows, and each
// recording waits in static/recordings.js until the server has it; the report opens once both
// are delivered. It tells a view (static/interview-paint.js, or a fake in the tests) what to
// show, and a recorder (the page's microphone, or a fake) when to record.

// Below this share of the checklist said the suggestion is Again, then Hard, then Good.
const AGAIN_BELOW = 0.4;
const HARD_BELOW = 0.7;
const GOOD_BELOW = 0.95;
// The main clock turns "low" this long before the time is up.
const LOW_MS = 10_000;
// Only a slow save is worth a word; a quick one would just flicker.
const SAVING_AFTER_MS = 700;
const SAVED_FOR_MS = 2000;

export function mmss(ms) {
  const s = Math.floor(Math.abs(ms) / 1000);
  return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
}

// The rating the checklist suggests, as the server picks it for "as coverage suggests".
export function suggested(said, count, overtime) {
  const coverage = count ? said / count : 1;
  if (coverage < AGAIN_BELOW) return 1;
  if (coverage < HARD_BELOW) return 2;
  if (coverage < GOOD_BELOW || overtime) return 3;
  return 4;
}

// A clock's face for `left` ms: its text, and whether it ran over or is about to.
export function countdown(left) {
  return { text: (left < 0 ? "+" : "") + mmss(left), over: left < 0, low: left >= 0 && left <= LOW_MS };
}

// What `key` does in `phase`: record, done (answering), next (follow-up), point (tick the
// checklist's numbered point), submit, or nothing.
export function keyAction(key, phase, canRecord) {
  if (key === "r" || key === "R") return canRecord && phase !== "answer" ? "record" : null;
  if (phase === "question" && (key === " " || key === "Enter")) return "done";
  if (phase.charAt(0) === "f" && (key === "Enter" || key === " ")) return "next";
  if (phase === "answer" && /^[1-9]$/.test(key)) return "point";
  if (phase === "answer" && key === "Enter") return "submit";
  return null;
}

export class MockInterview {
  // `question` and each later one: {id, phase, position, t0, total, recorded, followups:
  // [limit ms…]}; `served`: the server's clock for the page's own question, {elapsed, running}.
  constructor({ mock, limitMs, learner, queue, keep, storage, view, recordings = null, recorder = null, summary, resume, now = () => performance.now(), wallClock = () => Date.now(), timers = globalThis }) {
    this.mock = String(mock);
    this.limitMs = limitMs;
    this.queue = queue;
    this.keep = keep;
    this.storage = storage;
    this.view = view;
    this.recordings = recordings;
    this.recorder = recorder;
    this.summary = summary;
    this.resume = resume;
    this.now = now;
    this.wallClock = wallClock;
    this.timers = timers;
    this.answerPath = "/api/mocks/" + this.mock + "/answers";
    // Questions answered on this device, sent or not: a reload does not ask them again.
    this.answeredKey = "qbank.mock." + learner + "." + this.mock + ".answered";
    this.question = null;
    this.phase = "question";
    this.shownAt = 0;
    this.elapsedBefore = 0; // the main answer's time when the question was mounted
    this.totalBefore = 0;
    this.running = true;
    this.frozenMs = 0;
    this.followup = null; // {index, limit, started}: the follow-up being asked
    this.sent = false;
    this.finishing = false;
    this.leaving = false;
    this.refused = null; // the first answer the server would not take: asked again at the end
    this.stopping = 0; // recordings stopped but not yet kept: the report waits for them
    this.statusShown = false;
    this.savingTimer = null;
    this.savedTimer = null;
    queue.subscribe((event) => this.onQueue(event));
    if (recordings) recordings.on((kind, record, detail) => this.onRecording(kind, record, detail));
  }

  // ---- what was answered here ------------------------------------------------------------------

  answeredHere() {
    try { return JSON.parse(this.storage.getItem(this.answeredKey) || "[]"); } catch (error) { return []; }
  }

  remember(cardId) {
    try { this.storage.setItem(this.answeredKey, JSON.stringify(this.answeredHere().concat([cardId]))); } catch (error) { /* the outbox entry still skips it */ }
  }

  mine(entry) { return entry.data.type === "action" && entry.data.mock === this.mock; }

  skipped() {
    const cards = new Set(this.answeredHere());
    for (const entry of this.queue.entries()) if (this.mine(entry)) cards.add(entry.data.card_id);
    return cards;
  }

  // ---- the clocks ------------------------------------------------------------------------------

  elapsed() { return this.running ? this.elapsedBefore + (this.now() - this.shownAt) : this.frozenMs; }
  total() { return this.totalBefore + (this.now() - this.shownAt); }
  overtime() { return this.elapsed() > this.limitMs; }

  // The main clock's face: time left while answering; once stopped, the time the main answer
  // took, red when it ran over.
  clockFace() {
    if (this.running) return countdown(this.limitMs - this.elapsed());
    return { text: mmss(this.frozenMs), over: this.frozenMs > this.limitMs, low: false };
  }

  tick() {
    this.view.paintClock(this.clockFace());
    if (this.followup) {
      this.view.paintFollowupClock(this.followup.index, countdown(this.followup.limit - (this.now() - this.followup.started)));
    }
  }

  // ---- the question on screen ------------------------------------------------------------------

  // Start with the page's own question, unless it was answered here before it was sent.
  start(question, served) {
    if (this.skipped().has(question.id)) this.advance();
    else this.mount(question, served);
    this.paintStatus();
    this.queue.replay(true);
  }

  // Show `question`; `served` ({elapsed, running}) when the server drew it with its clock.
  mount(question, served = null) {
    this.question = question;
    this.phase = question.phase;
    this.shownAt = this.now();
    this.sent = false;
    if (served) {
      this.elapsedBefore = served.elapsed;
      this.totalBefore = question.total || served.elapsed;
      this.running = served.running;
    } else {
      question.t0 = this.wallClock();
      this.elapsedBefore = 0;
      this.totalBefore = 0;
      this.running = true;
      this.view.startClock();
    }
    this.frozenMs = this.elapsedBefore;
    this.view.mount(question);
    if (!served || !question.recorded) this.view.paintRecordStatus(null);
    this.show(this.phase);
    // Someone who recorded before gets every new question recorded from its start.
    if (this.recorder && this.recorder.remembered() && this.phase === "question" && !question.recorded) this.record();
  }

  // Phases: question, f0..fn, answer. The main clock stops when the main answer ends.
  show(next) {
    if (this.phase === "question" && next !== "question" && this.running) {
      this.frozenMs = this.elapsed();
      this.running = false;
      this.view.stopClock(this.question.t0 + Math.round(this.frozenMs));
    }
    this.phase = next;
    this.question.phase = next;
    this.view.showPhase(next);
    this.followup = null;
    if (next.charAt(0) === "f") {
      const index = parseInt(next.slice(1), 10);
      const limit = this.question.followups[index];
      if (limit !== undefined) this.followup = { index, limit, started: this.now() };
    }
    if (next === "answer") {
      this.stopRecording();
      this.paintCoverage();
      this.view.focusChecklist();
    }
    this.view.paintRecordButton({ enabled: next !== "answer" });
    this.tick();
  }

  paintCoverage() {
    const { said, count } = this.view.coverage();
    this.view.paintCoverage(said, count, suggested(said, count, this.overtime()));
  }

  // The next question the page holds that was not answered here already, or the end.
  advance() {
    const next = this.view.nextQuestion(this.skipped());
    if (next) this.mount(next);
    else this.finish();
  }

  // Keep the answer (the form's fields) in the outbox and go on; sent once the next question
  // is on screen. A second submit of the same question does nothing.
  answer(fields) {
    if (this.sent) return null;
    this.sent = true;
    const body = {
      card_id: this.question.id,
      key: fields.key,
      said: fields.said,
      followups_answered: new Set(fields.followups_answered).size,
      answer_ms: Math.round(this.elapsed()),
      total_ms: Math.round(this.total()),
      rating: fields.rating || null,
      count_as_review: fields.count_as_review,
    };
    // Stored before anything else happens: from here on a reload or a lost connection loses nothing.
    this.keep({ type: "action", path: this.answerPath, body, mock: this.mock, card_id: body.card_id });
    this.remember(body.card_id);
    this.advance();
    this.view.afterPaint(() => this.queue.replay(true));
    return body;
  }

  // ---- the end: the report once everything is delivered ---------------------------------------

  finish() {
    this.finishing = true;
    this.running = false;
    this.followup = null;
    this.view.finishing();
    return this.leaveWhenDelivered();
  }

  async leaveWhenDelivered() {
    if (!this.finishing || this.stopping) return;
    if (this.queue.entries().some((entry) => this.mine(entry))) return;
    if (this.recordings && (await this.recordings.waiting(this.mock)) > 0) return;
    if (this.leaving) return; // asked again while the recordings were counted
    this.leaving = true;
    try { this.storage.removeItem(this.answeredKey); } catch (error) { /* nothing to forget */ }
    if (!this.refused) {
      this.view.leave(this.summary);
      return;
    }
    // The server shows the question it refused again, with the times and rating kept.
    const body = this.refused.body;
    const t0 = this.wallClock() - body.total_ms;
    const params = new URLSearchParams({ phase: "answer", t0: String(t0), t1: String(t0 + body.answer_ms), rating: String(body.rating || 0) });
    if (this.refused.status === 409) params.set("changed", "true");
    this.view.leave(this.resume + "?" + params);
  }

  // ---- status: the answers on their way ----------------------------------------------------------

  paintStatus() {
    const waiting = this.queue.entries().filter((entry) => this.mine(entry)).length;
    const state = this.queue.state.status;
    this.view.paintSyncState(state);
    this.timers.clearTimeout(this.savingTimer);
    if (waiting && (state === "offline" || state === "retrying" || state === "signed_out")) {
      this.say("mock.sync_" + state, { n: waiting });
    } else if (state === "sending") {
      this.savingTimer = this.timers.setTimeout(() => this.say("study.saving"), SAVING_AFTER_MS);
    } else if (this.statusShown) {
      this.say("study.saved");
      this.timers.clearTimeout(this.savedTimer);
      this.savedTimer = this.timers.setTimeout(() => {
        if (this.queue.state.status === "idle") this.say(null);
      }, SAVED_FOR_MS);
    }
  }

  // Put `key`'s words (or none) in the status line.
  say(key, values) {
    this.statusShown = key !== null;
    this.view.paintStatus(key, values);
  }

  onQueue(event) {
    const kind = event.type;
    if (kind === "state" || kind === "change") this.paintStatus();
    if (kind === "rejected" && this.mine(event.entry) && !this.refused) this.refused = { body: event.entry.data.body, status: event.status };
    if (kind === "ack" || kind === "rejected" || kind === "drained") this.leaveWhenDelivered();
  }

  // ---- recording the answer aloud --------------------------------------------------------------

  recordStatusFor(cardId, key, values) {
    if (this.question && cardId === this.question.id) this.view.paintRecordStatus(key, values);
  }

  onRecording(kind, record, detail) {
    if (record && record.mock !== this.mock) return;
    if (kind === "kept") this.recordStatusFor(record.card, "mock.saving");
    else if (kind === "offline" || kind === "retrying") this.recordStatusFor(record.card, detail.durable ? "mock.recording_waiting" : "mock.recording_memory");
    else if (kind === "saved") {
      if (this.question && record.card === this.question.id) this.question.recorded = true;
      this.recordStatusFor(record.card, "mock.recorded", { kb: Math.max(1, Math.round(detail.size / 1024)) });
    } else if (kind === "refused") this.recordStatusFor(record.card, "mock.upload_failed", { reason: detail.reason });
    if (kind === "saved" || kind === "refused" || kind === "drained") this.leaveWhenDelivered();
  }

  // Start recording the question on screen, unless it moved on by the time the microphone is
  // there; the recording goes to static/recordings.js when it stops.
  record() {
    if (!this.recorder || this.recorder.active()) return;
    const forCard = this.question.id;
    this.recorder.start({
      stillWanted: () => forCard === this.question.id && this.phase !== "answer" && !this.finishing,
      started: () => {
        this.view.paintRecordButton({ pressed: true });
        this.recordStatusFor(forCard, "mock.recording");
      },
      failed: () => this.recordStatusFor(forCard, "mock.no_mic"),
      stopped: (blob) => {
        this.view.paintRecordButton({ pressed: false });
        const kept = blob.size ? this.recordings.add(this.mock, forCard, blob) : Promise.resolve();
        return kept.finally(() => { this.stopping -= 1; this.leaveWhenDelivered(); });
      },
    });
  }

  stopRecording() {
    if (!this.recorder || !this.recorder.active()) return;
    this.stopping += 1;
    this.recorder.stop();
  }

  toggleRecording() {
    if (this.recorder && this.recorder.active()) this.stopRecording();
    else this.record();
  }
}
