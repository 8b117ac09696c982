// Painting the mock interview page: the question on screen and its phases, the clocks, the
// checklist's coverage, the status line and the recording row; the questions held for later
// are the server's own partials (templates/_mock_question.html) in <template>s, swapped in. It
// keeps no interview state: static/interview-state.js says what to show.

// Every part this view fills or reads is found by its `data-slot`, never by its classes.
function slotted(name) { return '[data-slot="' + name + '"]'; }

function slot(root, name) { return root.querySelector(slotted(name)); }

function slots(root, name) { return Array.from(root.querySelectorAll(slotted(name))); }

// What the state needs to know of a question the page holds: from its article's data.
export function questionOf(article) {
  const data = article.dataset;
  return {
    id: data.cardId,
    phase: data.phase,
    position: parseInt(data.position, 10),
    t0: parseInt(data.t0, 10),
    total: parseInt(data.total, 10) || 0,
    recorded: data.recorded === "true",
    followups: slots(article, "followup-clock").map((clock) => parseInt(clock.dataset.limit, 10) * 1000),
  };
}

// `on`: {phase(next), answer(fields), change()}, what the page's links and form ask of the state.
export function createView({ strings, on }) {
  const clock = slot(document, "clock");
  const clockLabel = slot(clock, "clock-label");
  const clockTime = slot(clock, "clock-time");
  const positionNode = slot(document, "position");
  const progressNode = slot(document, "progress");
  const statusNode = slot(document, "sync-status");
  const finishingNode = slot(document, "finishing");
  const recordRow = slot(document, "record-row");
  const recordButton = slot(document, "record");
  const recordStatus = slot(document, "record-status");
  const later = slots(document, "later-question");
  let card = slot(document, "question");
  let form = null;

  function t(key, values) {
    let text = strings[key] || key;
    for (const name in values || {}) text = text.replace("{" + name + "}", values[name]);
    return text;
  }

  function paintFace(node, face) {
    node.classList.toggle("over", face.over);
    node.classList.toggle("low", face.low);
  }

  function points() { return form ? Array.from(form.querySelectorAll('input[name="said"]')) : []; }

  function fields() {
    const data = new FormData(form);
    return {
      key: data.get("key"),
      said: data.getAll("said").map(Number),
      followups_answered: data.getAll("followups_answered"),
      rating: parseInt(data.get("rating") || "0", 10),
      count_as_review: data.get("count_as_review") === "true",
    };
  }

  return {
    limitMs: parseInt(clock.dataset.limit, 10) * 1000,
    served: { elapsed: parseInt(clock.dataset.elapsed, 10), running: clock.dataset.running === "true" },
    first: () => questionOf(card),

    paintClock(face) {
      clockTime.textContent = face.text;
      paintFace(clock, face);
    },
    paintFollowupClock(index, face) {
      const node = slots(card, "followup-clock")[index];
      if (!node) return;
      slot(node, "clock-time").textContent = face.text;
      paintFace(node, face);
    },
    startClock() {
      clockLabel.textContent = t("mock.time_left");
      clock.classList.remove("stopped");
    },
    // The main answer ended at `t1` (ms since the epoch): the form posts it without JS too.
    stopClock(t1) {
      const field = form && slot(form, "t1");
      if (field) field.value = String(t1);
      clockLabel.textContent = t("mock.time_answer");
    },

    mount(question) {
      card.dataset.t0 = String(question.t0);
      form = slot(card, "answer-form");
      positionNode.textContent = String(question.position + 1);
      progressNode.value = question.position;
      for (const link of slots(card, "phase-next")) {
        link.addEventListener("click", (event) => {
          event.preventDefault();
          on.phase(new URL(link.href, location.href).searchParams.get("phase") || "answer");
        });
      }
      if (form) {
        form.addEventListener("change", () => on.change());
        form.addEventListener("submit", (event) => {
          event.preventDefault();
          on.answer(fields());
        });
      }
    },
    showPhase(phase) {
      for (const section of slots(card, "phase")) section.hidden = section.dataset.name !== phase;
      card.dataset.phase = phase;
    },
    // The next question held for later whose card is not in `skip`, put in place; or null.
    nextQuestion(skip) {
      while (later.length) {
        const template = later.shift();
        const article = slot(template.content, "question");
        template.remove();
        if (skip.has(article.dataset.cardId)) continue;
        const fresh = document.importNode(article, true);
        card.replaceWith(fresh);
        card = fresh;
        window.scrollTo(0, 0);
        return questionOf(fresh);
      }
      return null;
    },

    coverage() {
      const boxes = points();
      return { said: boxes.filter((box) => box.checked).length, count: boxes.length };
    },
    paintCoverage(said, count, rating) {
      const names = [t("study.again"), t("study.hard"), t("study.good"), t("study.easy")];
      slot(card, "coverage-count").textContent = said + "/" + count;
      slot(card, "coverage-suggestion").textContent = "· " + t("mock.suggested_is", { rating: names[rating - 1] });
      for (const label of slots(card, "rating")) {
        const input = label.querySelector("input");
        label.classList.toggle("suggested", !!input && input.value === String(rating));
      }
    },
    focusChecklist() {
      const first = points()[0];
      if (first) first.focus({ preventScroll: true });
    },
    // The checklist's point numbered `key`, ticked or unticked; false when there is none.
    togglePoint(key) {
      const box = form && form.querySelector('input[data-key="' + key + '"]');
      if (!box) return false;
      box.checked = !box.checked;
      return true;
    },
    // Go on from the phase on screen, as its link would.
    nextPhase(phase) {
      const section = slots(card, "phase").find((node) => node.dataset.name === phase);
      const link = section && slot(section, "phase-next");
      if (link) link.click();
    },
    submit() {
      if (!form) return false;
      form.requestSubmit();
      return true;
    },

    paintSyncState(state) { statusNode.dataset.state = state; },
    paintStatus(key, values) { statusNode.textContent = key ? t(key, values) : ""; },

    showRecording() { if (recordRow) recordRow.hidden = false; },
    paintRecordButton({ enabled, pressed }) {
      if (!recordButton) return;
      if (enabled !== undefined) recordButton.disabled = !enabled;
      if (pressed !== undefined) {
        recordButton.setAttribute("aria-pressed", String(pressed));
        recordButton.firstChild.textContent = t(pressed ? "mock.stop" : "mock.record") + " ";
      }
    },
    paintRecordStatus(key, values) {
      if (!key) recordStatus.textContent = "";
      else if (values && values.kb !== undefined) recordStatus.textContent = t(key) + " (" + values.kb + " KB)";
      else recordStatus.textContent = t(key, values);
    },

    finishing() {
      card.hidden = true;
      clock.hidden = true;
      if (recordRow) recordRow.hidden = true;
      finishingNode.hidden = false;
    },
    leave(url) { location.assign(url); },
    afterPaint(work) { requestAnimationFrame(() => setTimeout(work, 0)); },
  };
}
