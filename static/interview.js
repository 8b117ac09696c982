// Mock interview: clocks, phases, key ticks, coverage and recording the answer aloud.
// Without this file every step still works: phases are links, the checklist is a form post.
(function () {
  "use strict";
  const card = document.getElementById("mock-card");
  if (!card) return;
  const form = document.getElementById("answer-form");
  const clock = document.getElementById("mock-timer");
  const t1Field = document.getElementById("t1-field");
  const loaded = performance.now();
  const t0 = parseInt(card.dataset.t0, 10);
  const elapsedAtLoad = parseInt(clock.dataset.elapsed, 10);
  const limitMs = parseInt(clock.dataset.limit, 10) * 1000;
  let running = clock.dataset.running === "true";
  let frozenMs = elapsedAtLoad;
  let phase = card.dataset.phase;
  let followupTimer = null;
  let submitting = false;

  function mmss(ms) {
    const s = Math.floor(Math.abs(ms) / 1000);
    return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
  }
  function elapsed() { return running ? elapsedAtLoad + (performance.now() - loaded) : frozenMs; }

  function paint(timer, limit, used) {
    const left = limit - used;
    timer.querySelector("b").textContent = (left < 0 ? "+" : "") + mmss(left);
    timer.classList.toggle("over", left < 0);
    timer.classList.toggle("low", left >= 0 && left <= 10000);
  }

  function tick() {
    if (running) {
      paint(clock, limitMs, elapsed());
    } else {  // stopped: the time the main answer took, red when it ran over
      clock.querySelector("b").textContent = mmss(frozenMs);
      clock.classList.toggle("over", frozenMs > limitMs);
      clock.classList.remove("low");
    }
    if (followupTimer) paint(followupTimer.el, followupTimer.limit, performance.now() - followupTimer.started);
  }
  setInterval(tick, 250);

  function overtime() { return elapsed() > limitMs; }

  // Phases: question, f0..fn, answer. The main clock stops when the main answer ends.
  function show(next) {
    if (phase === "question" && next !== "question" && running) {
      frozenMs = elapsed();
      running = false;
      if (t1Field) t1Field.value = String(t0 + Math.round(frozenMs));
      clock.querySelector(".timer-label").textContent = clock.dataset.doneLabel || clock.querySelector(".timer-label").textContent;
    }
    document.querySelectorAll("#mock-card .phase").forEach(function (el) { el.hidden = el.id !== "phase-" + next; });
    phase = next;
    card.dataset.phase = next;
    followupTimer = null;
    if (next.charAt(0) === "f") {
      const el = document.getElementById("followup-timer-" + next.slice(1));
      if (el) followupTimer = { el: el, limit: parseInt(el.dataset.limit, 10) * 1000, started: performance.now() };
    }
    if (next === "answer") {
      stopRecording();
      updateCoverage();
      const first = form && form.querySelector('input[name="said"]');
      if (first) first.focus({ preventScroll: true });
    }
    tick();
  }

  document.querySelectorAll("#mock-card .phase-next").forEach(function (link) {
    link.addEventListener("click", function (event) {
      event.preventDefault();
      const next = new URL(link.href, location.href).searchParams.get("phase") || "answer";
      show(next);
    });
  });

  // Coverage suggests the rating, as the server would pick it for "as coverage suggests".
  const ratings = (card.dataset.ratings || "").split("|");
  function suggested(said, total) {
    const coverage = total ? said / total : 1;
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
    document.getElementById("coverage-count").textContent = said + "/" + boxes.length;
    document.getElementById("coverage-suggestion").textContent =
      "· " + (card.dataset.msgSuggested || "{rating}").replace("{rating}", ratings[rating - 1] || String(rating));
    form.querySelectorAll(".mock-ratings label").forEach(function (label) {
      const input = label.querySelector("input");
      label.classList.toggle("suggested", input && input.value === String(rating));
    });
  }
  if (form) {
    form.addEventListener("change", updateCoverage);
    form.addEventListener("submit", function (event) {
      if (t1Field && !t1Field.value) t1Field.value = String(t0 + Math.round(elapsed()));
      if (submitting) { event.preventDefault(); return; }
      submitting = true;
      if (pending) {  // the recording may still be uploading: send the answer once it is kept
        event.preventDefault();
        // submit(), not requestSubmit(): a second submit event after a cancelled one may be
        // dropped, and this one was checked already.
        pending.finally(function () { form.submit(); });
      }
    });
    updateCoverage();
  }

  // Recording the answer aloud: the microphone is asked for once; the audio goes only to this
  // server, to this learner's own recordings.
  const recordRow = document.getElementById("record-row");
  const recordButton = document.getElementById("record");
  const recordStatus = document.getElementById("record-status");
  const canRecord = !!(window.MediaRecorder && navigator.mediaDevices && navigator.mediaDevices.getUserMedia);
  const REMEMBER = "qbank.mock.record";
  let recorder = null;
  let chunks = [];
  let pending = null;
  let stopped = null;

  function status(text) { if (recordStatus) recordStatus.textContent = text; }

  function csrf() {
    const meta = document.querySelector('meta[name="csrf-token"]');
    return meta ? meta.content : "";
  }

  function upload(blob) {
    status(card.dataset.msgSaving);
    const url = "/api/mocks/" + card.dataset.mock + "/recordings?card_id=" + encodeURIComponent(card.dataset.cardId);
    const headers = { "Content-Type": blob.type || "audio/webm", "Accept": "application/json" };
    const token = csrf();
    if (token) headers["X-CSRF-Token"] = token;
    pending = fetch(url, { method: "POST", body: blob, headers: headers, credentials: "same-origin" })
      .then(function (response) {
        if (!response.ok) {
          return response.json().then(function (body) { throw new Error(body.detail || response.status); },
            function () { throw new Error(String(response.status)); });
        }
        return response.json();
      })
      .then(function (saved) {
        card.dataset.recorded = "true";
        status(card.dataset.msgRecorded + " (" + Math.max(1, Math.round(saved.size / 1024)) + " KB)");
      })
      .catch(function (error) {
        status((card.dataset.msgFailed || "{reason}").replace("{reason}", error.message));
      });
    return pending;
  }

  function startRecording() {
    if (!canRecord || recorder) return;
    navigator.mediaDevices.getUserMedia({ audio: true }).then(function (stream) {
      const types = ["audio/webm;codecs=opus", "audio/webm", "audio/ogg;codecs=opus", "audio/mp4"];
      const type = types.find(function (t) { return MediaRecorder.isTypeSupported(t); });
      recorder = new MediaRecorder(stream, type ? { mimeType: type } : undefined);
      chunks = [];
      recorder.addEventListener("dataavailable", function (event) { if (event.data.size) chunks.push(event.data); });
      recorder.addEventListener("stop", function () {
        stream.getTracks().forEach(function (track) { track.stop(); });
        const blob = new Blob(chunks, { type: (recorder.mimeType || "audio/webm") });
        recorder = null;
        recordButton.setAttribute("aria-pressed", "false");
        recordButton.firstChild.textContent = card.dataset.msgRecord + " ";
        const kept = blob.size ? upload(blob) : Promise.resolve();
        kept.finally(function () { if (stopped) { stopped(); stopped = null; } });
      });
      recorder.start(1000);
      try { localStorage.setItem(REMEMBER, "1"); } catch (e) { /* private mode: ask each time */ }
      recordButton.setAttribute("aria-pressed", "true");
      recordButton.firstChild.textContent = card.dataset.msgStop + " ";
      status(card.dataset.msgRecording);
    }, function () {
      try { localStorage.removeItem(REMEMBER); } catch (e) { /* nothing to forget */ }
      status(card.dataset.msgNoMic);
    });
  }

  function stopRecording() {
    if (!recorder || recorder.state === "inactive") return;
    // An answer sent before the recorder has handed over its last audio waits for the upload.
    pending = new Promise(function (resolve) { stopped = resolve; });
    recorder.stop();
  }

  if (canRecord && recordRow && phase !== "answer") {
    recordRow.hidden = false;
    recordButton.addEventListener("click", function () { recorder ? stopRecording() : startRecording(); });
    let remembered = false;
    try { remembered = localStorage.getItem(REMEMBER) === "1"; } catch (e) { remembered = false; }
    // Someone who recorded before gets every new question recorded from its start.
    if (remembered && phase === "question" && card.dataset.recorded !== "true") startRecording();
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    if (target && (target.tagName === "TEXTAREA" || target.tagName === "SELECT" ||
        (target.tagName === "INPUT" && target.type !== "checkbox" && target.type !== "radio"))) return;
    const key = event.key;
    if (key === "r" || key === "R") {
      if (canRecord && phase !== "answer") { event.preventDefault(); recorder ? stopRecording() : startRecording(); }
    } else if (phase === "question" && (key === " " || key === "Enter")) {
      event.preventDefault();
      document.getElementById("done-answering").click();
    } else if (phase.charAt(0) === "f" && (key === "Enter" || key === " ")) {
      event.preventDefault();
      document.querySelector("#phase-" + phase + " .phase-next").click();
    } else if (phase === "answer" && /^[1-9]$/.test(key)) {
      const box = form && form.querySelector('input[data-key="' + key + '"]');
      if (box) { event.preventDefault(); box.checked = !box.checked; updateCoverage(); }
    } else if (phase === "answer" && key === "Enter" && form) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  tick();
})();
