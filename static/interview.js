// Mock interview: clocks, phases, key ticks, coverage and recording the answer aloud. The page
// holds every question of the session still to answer (the later ones in <template>s), so a
// session goes on through a dropped connection: each answer is written to the outbox
// (static/outbox.js) and sent in order with its own Idempotency-Key, and each recording waits in
// static/recordings.js until the server has it. The report opens once both are delivered.
// Without this file every step still works: phases are links, the checklist is a form post.
import { outbox, keep } from "./outbox.js";
import { recordings } from "./recordings.js";

function interview(stateNode) {
  const initial = JSON.parse(stateNode.textContent);
  const strings = initial.strings;
  const mockId = String(initial.mock);
  const answerPath = "/api/mocks/" + mockId + "/answers";
  const clock = document.getElementById("mock-timer");
  const clockLabel = clock.querySelector(".timer-label");
  const positionNode = document.getElementById("mock-pos");
  const progressNode = document.querySelector(".mock-head progress");
  const statusNode = document.getElementById("sync-status");
  const finishingNode = document.getElementById("mock-finishing");
  const recordRow = document.getElementById("record-row");
  const recordButton = document.getElementById("record");
  const recordStatus = document.getElementById("record-status");
  const limitMs = parseInt(clock.dataset.limit, 10) * 1000;
  const later = Array.from(document.querySelectorAll("template.mock-later"));
  const learner = document.body.dataset.learner || "anonymous";
  // Questions answered on this device, sent or not: a reload does not ask them again.
  const ANSWERED = "qbank.mock." + learner + "." + mockId + ".answered";
  const REMEMBER = "qbank.mock.record";

  function t(key, values) {
    let text = strings[key] || key;
    for (const name in values || {}) text = text.replace("{" + name + "}", values[name]);
    return text;
  }
  function mmss(ms) {
    const s = Math.floor(Math.abs(ms) / 1000);
    return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
  }
  function afterPaint(work) { requestAnimationFrame(function () { setTimeout(work, 0); }); }

  function answeredHere() {
    try { return JSON.parse(localStorage.getItem(ANSWERED) || "[]"); } catch (error) { return []; }
  }
  function remember(cardId) {
    try { localStorage.setItem(ANSWERED, JSON.stringify(answeredHere().concat([cardId]))); } catch (error) { /* the outbox entry still skips it */ }
  }
  function mine(entry) { return entry.data.type === "action" && entry.data.mock === mockId; }
  function skipped() {
    const cards = new Set(answeredHere());
    for (const entry of outbox.entries()) if (mine(entry)) cards.add(entry.data.card_id);
    return cards;
  }

  // ---- the question on screen ------------------------------------------------------------------

  let card = document.getElementById("mock-card");
  let form = null;
  let phase = "question";
  let shownAt = 0;
  let elapsedBefore = 0; // the main answer's time when the question was mounted
  let totalBefore = 0;
  let running = true;
  let frozenMs = 0;
  let followupTimer = null;
  let sent = false;
  let finishing = false;
  let leaving = false;
  let refused = null; // the first answer the server would not take: asked again at the end

  function elapsed() { return running ? elapsedBefore + (performance.now() - shownAt) : frozenMs; }
  function total() { return totalBefore + (performance.now() - shownAt); }
  function overtime() { return elapsed() > limitMs; }

  function paint(timer, limit, used) {
    const left = limit - used;
    timer.querySelector("b").textContent = (left < 0 ? "+" : "") + mmss(left);
    timer.classList.toggle("over", left < 0);
    timer.classList.toggle("low", left >= 0 && left <= 10000);
  }

  function tick() {
    if (running) {
      paint(clock, limitMs, elapsed());
    } else { // stopped: the time the main answer took, red when it ran over
      clock.querySelector("b").textContent = mmss(frozenMs);
      clock.classList.toggle("over", frozenMs > limitMs);
      clock.classList.remove("low");
    }
    if (followupTimer) paint(followupTimer.el, followupTimer.limit, performance.now() - followupTimer.started);
  }
  setInterval(tick, 250);

  // Phases: question, f0..fn, answer. The main clock stops when the main answer ends.
  function show(next) {
    if (phase === "question" && next !== "question" && running) {
      frozenMs = elapsed();
      running = false;
      const t1Field = card.querySelector("#t1-field");
      if (t1Field) t1Field.value = String(parseInt(card.dataset.t0, 10) + Math.round(frozenMs));
      clockLabel.textContent = t("mock.time_answer");
    }
    card.querySelectorAll(".phase").forEach(function (el) { el.hidden = el.id !== "phase-" + next; });
    phase = next;
    card.dataset.phase = next;
    followupTimer = null;
    if (next.charAt(0) === "f") {
      const el = card.querySelector("#followup-timer-" + next.slice(1));
      if (el) followupTimer = { el: el, limit: parseInt(el.dataset.limit, 10) * 1000, started: performance.now() };
    }
    if (next === "answer") {
      stopRecording();
      updateCoverage();
      const first = form && form.querySelector('input[name="said"]');
      if (first) first.focus({ preventScroll: true });
    }
    if (recordButton) recordButton.disabled = next === "answer";
    tick();
  }

  // Coverage suggests the rating, as the server would pick it for "as coverage suggests".
  function suggested(said, count) {
    const coverage = count ? said / count : 1;
    if (coverage < 0.4) return 1;
    if (coverage < 0.7) return 2;
    if (coverage < 0.95 || overtime()) return 3;
    return 4;
  }
  function updateCoverage() {
    if (!form) return;
    const boxes = form.querySelectorAll('input[name="said"]');
    const said = Array.prototype.filter.call(boxes, function (b) { return b.checked; }).length;
    const rating = suggested(said, boxes.length);
    const names = [t("study.again"), t("study.hard"), t("study.good"), t("study.easy")];
    card.querySelector("#coverage-count").textContent = said + "/" + boxes.length;
    card.querySelector("#coverage-suggestion").textContent = "· " + t("mock.suggested_is", { rating: names[rating - 1] });
    form.querySelectorAll(".mock-ratings label").forEach(function (label) {
      const input = label.querySelector("input");
      label.classList.toggle("suggested", !!input && input.value === String(rating));
    });
  }

  // Show `article` as the question on screen; `served` when the server drew it with its clock.
  function mount(article, served) {
    card = article;
    form = card.querySelector("#answer-form");
    phase = card.dataset.phase;
    shownAt = performance.now();
    sent = false;
    if (served) {
      elapsedBefore = parseInt(clock.dataset.elapsed, 10);
      totalBefore = parseInt(card.dataset.total, 10) || elapsedBefore;
      running = clock.dataset.running === "true";
    } else {
      card.dataset.t0 = String(Date.now());
      elapsedBefore = 0;
      totalBefore = 0;
      running = true;
      clockLabel.textContent = t("mock.time_left");
      clock.classList.remove("stopped");
    }
    frozenMs = elapsedBefore;
    const position = parseInt(card.dataset.position, 10);
    positionNode.textContent = String(position + 1);
    progressNode.value = position;
    card.querySelectorAll(".phase-next").forEach(function (link) {
      link.addEventListener("click", function (event) {
        event.preventDefault();
        show(new URL(link.href, location.href).searchParams.get("phase") || "answer");
      });
    });
    if (form) {
      form.addEventListener("change", updateCoverage);
      form.addEventListener("submit", submit);
    }
    if (!served || card.dataset.recorded !== "true") recordStatus.textContent = "";
    show(phase);
    let remembered = false;
    try { remembered = localStorage.getItem(REMEMBER) === "1"; } catch (e) { remembered = false; }
    // Someone who recorded before gets every new question recorded from its start.
    if (canRecord && remembered && phase === "question" && card.dataset.recorded !== "true") startRecording();
  }

  // The next question the page holds that was not answered here already, or the end.
  function advance() {
    const skip = skipped();
    while (later.length) {
      const template = later.shift();
      const article = template.content.querySelector("article");
      template.remove();
      if (skip.has(article.dataset.cardId)) continue;
      const fresh = document.importNode(article, true);
      card.replaceWith(fresh);
      mount(fresh, false);
      window.scrollTo(0, 0);
      return;
    }
    finish();
  }

  function submit(event) {
    event.preventDefault();
    if (sent) return;
    sent = true;
    const data = new FormData(form);
    const rating = parseInt(data.get("rating") || "0", 10);
    const body = {
      card_id: card.dataset.cardId,
      key: data.get("key"),
      said: data.getAll("said").map(Number),
      followups_answered: new Set(data.getAll("followups_answered")).size,
      answer_ms: Math.round(elapsed()),
      total_ms: Math.round(total()),
      rating: rating || null,
      count_as_review: data.get("count_as_review") === "true",
    };
    // Stored before anything else happens: from here on a reload or a lost connection loses nothing.
    keep({ type: "action", path: answerPath, body: body, mock: mockId, card_id: body.card_id });
    remember(body.card_id);
    advance();
    afterPaint(function () { outbox.replay(true); });
  }

  // ---- the end: the report once everything is delivered ---------------------------------------

  function finish() {
    finishing = true;
    running = false;
    followupTimer = null;
    card.hidden = true;
    clock.hidden = true;
    if (recordRow) recordRow.hidden = true;
    finishingNode.hidden = false;
    leaveWhenDelivered();
  }

  async function leaveWhenDelivered() {
    if (!finishing || stopping) return;
    if (outbox.entries().some(mine)) return;
    if (recordings && (await recordings.waiting(mockId)) > 0) return;
    if (leaving) return; // asked again while the recordings were counted
    leaving = true;
    try { localStorage.removeItem(ANSWERED); } catch (error) { /* nothing to forget */ }
    if (!refused) {
      location.assign(initial.summary);
      return;
    }
    // The server shows the question it refused again, with the times and rating kept.
    const t0 = Date.now() - refused.body.total_ms;
    const params = new URLSearchParams({ phase: "answer", t0: String(t0), t1: String(t0 + refused.body.answer_ms), rating: String(refused.body.rating || 0) });
    if (refused.status === 409) params.set("changed", "true");
    location.assign(initial.resume + "?" + params);
  }

  // ---- status: the answers on their way ----------------------------------------------------------

  let savedTimer = null;
  let savingTimer = null;
  function paintStatus() {
    const waiting = outbox.entries().filter(mine).length;
    const state = outbox.state.status;
    statusNode.dataset.state = state;
    clearTimeout(savingTimer);
    if (waiting && state === "offline") statusNode.textContent = t("mock.sync_offline", { n: waiting });
    else if (waiting && state === "retrying") statusNode.textContent = t("mock.sync_retrying", { n: waiting });
    else if (waiting && state === "signed_out") statusNode.textContent = t("mock.sync_signed_out", { n: waiting });
    else if (state === "sending") {
      // Only a slow save is worth a word; a quick one would just flicker.
      savingTimer = setTimeout(function () { statusNode.textContent = t("study.saving"); }, 700);
    } else if (statusNode.textContent) {
      statusNode.textContent = t("study.saved");
      clearTimeout(savedTimer);
      savedTimer = setTimeout(function () { if (outbox.state.status === "idle") statusNode.textContent = ""; }, 2000);
    }
  }

  outbox.subscribe(function (event) {
    const kind = event.type;
    if (kind === "state" || kind === "change") paintStatus();
    if (kind === "rejected" && mine(event.entry) && !refused) refused = { body: event.entry.data.body, status: event.status };
    if (kind === "ack" || kind === "rejected" || kind === "drained") leaveWhenDelivered();
  });

  // ---- recording the answer aloud --------------------------------------------------------------
  // The microphone is asked for once; the audio goes only to this server, to this learner's own
  // recordings, through static/recordings.js.

  const canRecord = !!(window.MediaRecorder && navigator.mediaDevices && navigator.mediaDevices.getUserMedia && recordings);
  let recorder = null;
  let chunks = [];
  let stopping = 0; // recordings stopped but not yet kept: the report waits for them

  function recordStatusFor(cardId, text) {
    if (cardId === card.dataset.cardId) recordStatus.textContent = text;
  }

  if (recordings) {
    recordings.on(function (kind, record, detail) {
      if (record && record.mock !== mockId) return;
      if (kind === "kept") recordStatusFor(record.card, t("mock.saving"));
      else if (kind === "offline" || kind === "retrying") recordStatusFor(record.card, t(detail.durable ? "mock.recording_waiting" : "mock.recording_memory"));
      else if (kind === "saved") {
        if (record.card === card.dataset.cardId) card.dataset.recorded = "true";
        recordStatusFor(record.card, t("mock.recorded") + " (" + Math.max(1, Math.round(detail.size / 1024)) + " KB)");
      } else if (kind === "refused") recordStatusFor(record.card, t("mock.upload_failed", { reason: detail.reason }));
      if (kind === "saved" || kind === "refused" || kind === "drained") leaveWhenDelivered();
    });
  }

  function startRecording() {
    if (!canRecord || recorder) return;
    const forCard = card.dataset.cardId;
    navigator.mediaDevices.getUserMedia({ audio: true }).then(function (stream) {
      if (recorder || forCard !== card.dataset.cardId || phase === "answer" || finishing) {
        stream.getTracks().forEach(function (track) { track.stop(); }); // moved on meanwhile
        return;
      }
      const types = ["audio/webm;codecs=opus", "audio/webm", "audio/ogg;codecs=opus", "audio/mp4"];
      const type = types.find(function (candidate) { return MediaRecorder.isTypeSupported(candidate); });
      const made = new MediaRecorder(stream, type ? { mimeType: type } : undefined);
      recorder = made;
      chunks = [];
      made.addEventListener("dataavailable", function (event) { if (event.data.size) chunks.push(event.data); });
      made.addEventListener("stop", function () {
        stream.getTracks().forEach(function (track) { track.stop(); });
        const blob = new Blob(chunks, { type: made.mimeType || "audio/webm" });
        recorder = null;
        recordButton.setAttribute("aria-pressed", "false");
        recordButton.firstChild.textContent = t("mock.record") + " ";
        const kept = blob.size ? recordings.add(mockId, forCard, blob) : Promise.resolve();
        kept.finally(function () { stopping -= 1; leaveWhenDelivered(); });
      });
      made.start(1000);
      try { localStorage.setItem(REMEMBER, "1"); } catch (e) { /* private mode: ask each time */ }
      recordButton.setAttribute("aria-pressed", "true");
      recordButton.firstChild.textContent = t("mock.stop") + " ";
      recordStatusFor(forCard, t("mock.recording"));
    }, function () {
      try { localStorage.removeItem(REMEMBER); } catch (e) { /* nothing to forget */ }
      recordStatusFor(forCard, t("mock.no_mic"));
    });
  }

  function stopRecording() {
    if (!recorder || recorder.state === "inactive") return;
    stopping += 1;
    recorder.stop();
  }

  if (canRecord && recordRow) {
    recordRow.hidden = false;
    recordButton.addEventListener("click", function () { recorder ? stopRecording() : startRecording(); });
  }

  // ---- keys ------------------------------------------------------------------------------------

  document.addEventListener("keydown", function (event) {
    if (finishing || event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    if (target && (target.tagName === "TEXTAREA" || target.tagName === "SELECT" ||
        (target.tagName === "INPUT" && target.type !== "checkbox" && target.type !== "radio"))) return;
    const key = event.key;
    if (key === "r" || key === "R") {
      if (canRecord && phase !== "answer") { event.preventDefault(); recorder ? stopRecording() : startRecording(); }
    } else if (phase === "question" && (key === " " || key === "Enter")) {
      event.preventDefault();
      card.querySelector("#done-answering").click();
    } else if (phase.charAt(0) === "f" && (key === "Enter" || key === " ")) {
      event.preventDefault();
      card.querySelector("#phase-" + phase + " .phase-next").click();
    } else if (phase === "answer" && /^[1-9]$/.test(key)) {
      const box = form && form.querySelector('input[data-key="' + key + '"]');
      if (box) { event.preventDefault(); box.checked = !box.checked; updateCoverage(); }
    } else if (phase === "answer" && key === "Enter" && form) {
      event.preventDefault();
      form.requestSubmit();
    }
  });

  // ---- start -----------------------------------------------------------------------------------

  // Later questions may need KaTeX's fonts: fetch them while there is a connection.
  if (document.fonts) {
    for (const face of ["1em KaTeX_Main", "italic 1em KaTeX_Math", "1em KaTeX_Size1", "1em KaTeX_Size2", "1em KaTeX_AMS"]) {
      document.fonts.load(face).catch(function () {});
    }
  }
  // A question answered on an earlier page but not yet sent is not asked again.
  if (skipped().has(card.dataset.cardId)) advance();
  else mount(card, true);
  paintStatus();
  outbox.replay(true);
}

const stateNode = document.getElementById("mock-state");
if (stateNode) {
  await outbox.ready();
  interview(stateNode);
}
