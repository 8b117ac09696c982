// The study page as a client of the JSON API. It holds the current card and a few beyond it, so
// revealing, rating, moving on and undoing never wait for the network; ratings go out through
// the outbox (static/outbox.js) in the background and the server's answers top the buffer up,
// correct its order and set the counts. Without JavaScript the same page works as links and forms.
(function () {
  "use strict";
  const stateNode = document.getElementById("study-state");
  const outbox = window.qbankOutbox;
  if (!stateNode || !outbox) return;
  const initial = JSON.parse(stateNode.textContent);
  const strings = initial.strings;
  const scope = initial.scope || {};
  const tab = Math.random().toString(36).slice(2);
  // Cards held beyond the current one: enough to study on through a dropped connection.
  const DEPTH = 8;

  const cardNode = document.getElementById("card");
  const metaNode = cardNode.querySelector(".card-meta");
  const questionNode = cardNode.querySelector(".question");
  const answerNode = document.getElementById("answer-side");
  const revealRow = document.getElementById("reveal-row");
  const revealLink = document.getElementById("reveal");
  const rateForm = document.getElementById("rate-form");
  const undoForm = document.getElementById("undo-form");
  const statusNode = document.getElementById("sync-status");
  const noticeNode = document.getElementById("study-notice");
  const progressNode = document.getElementById("study-progress");

  let current = initial.current;
  let buffer = [];
  const history = []; // {card, entryId}, newest last: what Z takes back
  const versions = {}; // card id -> version the server last answered with
  let done = initial.done;
  let remaining = null;
  let exhausted = false; // the server had nothing beyond the cards held
  let fetching = false;
  let shownAt = performance.now();
  let scrolled = window.scrollY > 0;
  window.addEventListener("scroll", function () { scrolled = window.scrollY > 0; }, { passive: true });

  function t(key, values) {
    let text = strings[key] || key;
    for (const name in values || {}) text = text.replace("{" + name + "}", values[name]);
    return text;
  }

  function studyUrl() {
    const query = new URLSearchParams(scope).toString();
    return "/study" + (query ? "?" + query : "");
  }

  // Ratings, suspensions and burials not yet acknowledged: the server still counts those cards
  // as due, so they are neither shown nor asked for again.
  function pendingRatings() {
    return outbox.entries().filter((entry) => entry.type === "rate" || entry.removes);
  }

  function held() {
    return (current ? [current.id] : []).concat(buffer.map((card) => card.id));
  }

  // Cards the server must not hand out again: those held here and those rated here but not sent.
  function excludeFor(entry) {
    const later = pendingRatings().filter((other) => !entry || other.id > entry.id);
    return Array.from(new Set(held().concat(later.map((other) => other.card_id))));
  }
  outbox.exclude = excludeFor;

  // ---- painting -------------------------------------------------------------------------------

  function node(tag, attrs, html) {
    const made = document.createElement(tag);
    for (const name in attrs || {}) made.setAttribute(name, attrs[name]);
    if (html !== undefined) made.innerHTML = html; // card HTML was made and sanitised at import
    return made;
  }

  function details(className, summary, html) {
    const box = node("details", { class: className });
    box.append(node("summary", {}, undefined), node("div", { class: "prose" }, html));
    box.firstChild.textContent = summary;
    return box;
  }

  function answerSection(card) {
    const section = node("section", { class: "answer", "aria-label": t("card.answer") });
    section.append(node("div", { class: "prose" }, card.answer_html));
    if (card.followups.length) {
      const block = node("section", { class: "followup-questions", "aria-label": t("card.followup_questions") });
      const heading = node("h2");
      heading.textContent = t("card.followup_questions");
      const list = node("ol");
      for (const followup of card.followups) {
        const box = node("details");
        box.append(node("summary", {}, followup.question_html), node("div", { class: "prose followup-answer" }, followup.answer_html));
        const item = node("li", { id: "followup-" + followup.id });
        item.append(box);
        list.append(item);
      }
      block.append(heading, list);
      section.append(block);
    }
    if (card.followups_html) section.append(details("followups", t("card.followups"), card.followups_html));
    if (card.pitfalls_html) section.append(details("pitfalls", t("card.pitfalls"), card.pitfalls_html));
    if (card.links.length) {
      const reading = node("section", { class: "reading", "aria-labelledby": "reading-" + card.id });
      const heading = node("h3", { id: "reading-" + card.id });
      heading.textContent = t("card.reading");
      const list = node("ul");
      for (const link of card.links) {
        const item = node("li");
        if (link.url) {
          const external = /^https?:/i.test(link.url);
          const anchor = node("a", external ? { href: link.url, rel: "noopener noreferrer", class: "external" } : { href: link.url, class: "topic-link" });
          anchor.textContent = link.title;
          item.append(anchor);
        } else {
          const missing = node("span", { class: "unresolved" });
          missing.textContent = link.title + " " + t("card.unresolved");
          item.append(missing);
        }
        list.append(item);
      }
      reading.append(heading, list);
      section.append(reading);
    }
    return section;
  }

  // The card actions (suspend, bury, flags) as the server rendered them for the first card.
  const actionsTemplate = document.getElementById("card-actions");
  const actionsModel = actionsTemplate ? actionsTemplate.cloneNode(true) : null;
  if (actionsModel) actionsModel.querySelector("form[action$='/unleech']")?.remove();

  function actionsSection(card) {
    const section = actionsModel.cloneNode(true);
    const base = "/cards/" + encodeURIComponent(card.id) + "/";
    section.dataset.cardId = card.id;
    for (const form of section.querySelectorAll("form")) {
      form.action = base + form.getAttribute("action").split("/").pop();
    }
    paintFlags(section, card.flag);
    if (card.leech) {
      const form = node("form", { method: "post", action: base + "unleech", class: "inline" });
      const csrf = section.querySelector("input[name=csrf_token]");
      if (csrf) form.append(csrf.cloneNode());
      form.append(section.querySelector("input[name=next]").cloneNode());
      const badge = node("span", { class: "badge leech" });
      badge.textContent = t("marks.leech");
      const button = node("button", { type: "submit", id: "action-unleech", "data-action": "unleech" });
      button.textContent = t("marks.unleech");
      form.append(badge, " ", button);
      section.append(form);
    }
    return section;
  }

  function paintFlags(section, flag) {
    for (const button of section.querySelectorAll("button[data-flag]")) {
      const value = parseInt(button.dataset.flag, 10);
      button.value = String(flag === value ? 0 : value);
      button.setAttribute("aria-pressed", flag === value ? "true" : "false");
    }
  }

  function metaNodes(card) {
    const deck = node("a", { href: "/decks/" + encodeURIComponent(card.deck) });
    deck.textContent = card.deck_title;
    const badge = node("span", { class: "badge " + card.queue });
    badge.textContent = t("queue." + card.queue);
    const permalink = node("a", { class: "permalink", href: "/cards/" + encodeURIComponent(card.id) });
    permalink.textContent = t("card.permalink");
    return [deck].concat(card.section ? [" › " + card.section] : [], [" ", badge, " ", permalink]);
  }

  // A card's markup, parsed ahead of time so that showing it only swaps nodes in.
  function prepare(card) {
    if (card.nodes) return card.nodes;
    const question = document.createDocumentFragment();
    question.append(node("template", {}, card.question_html).content);
    const answer = document.createDocumentFragment();
    answer.append(answerSection(card));
    if (actionsModel) answer.append(actionsSection(card));
    card.nodes = { meta: metaNodes(card), question: question, answer: answer };
    return card.nodes;
  }

  function paint() {
    const card = current;
    cardNode.dataset.revealed = "false";
    answerNode.hidden = true;
    rateForm.hidden = true;
    if (!card) {
      cardNode.dataset.cardId = "";
      metaNode.replaceChildren();
      questionNode.textContent = t("study.waiting_for_cards");
      answerNode.replaceChildren();
      revealRow.hidden = true;
      return;
    }
    const nodes = prepare(card);
    card.nodes = null; // nodes live in one place: shown again (after an undo), it is rebuilt
    metaNode.replaceChildren(...nodes.meta);
    questionNode.replaceChildren(nodes.question);
    answerNode.replaceChildren(nodes.answer);
    for (const interval of card.intervals) {
      const label = rateForm.querySelector('button[data-key="' + interval.rating + '"] .interval');
      if (label) label.textContent = interval.label;
    }
    rateForm.elements.card_id.value = card.id;
    rateForm.elements.version.value = card.version === null ? "" : String(card.version);
    revealLink.href = studyUrl() + (Object.keys(scope).length ? "&" : "?") + "reveal=1&card=" + encodeURIComponent(card.id);
    revealRow.hidden = false;
    cardNode.dataset.cardId = card.id; // set last: the card is complete once its id changes
    shownAt = performance.now();
    // Reading the scroll position or moving focus would lay the page out before the frame
    // does; both wait for the frame, the scroll known from its events.
    if (scrolled) window.scrollTo(0, 0);
    afterPaint(function () { if (current === card && !revealed()) revealLink.focus({ preventScroll: true }); });
  }

  function paintCounts(counts) {
    if (counts) {
      for (const queue of ["new", "learning", "review"]) {
        const shown = document.getElementById("count-" + queue);
        if (shown) shown.textContent = String(counts[queue]);
      }
      remaining = counts.new + counts.learning + counts.review;
    }
    if (progressNode && remaining !== null) {
      progressNode.max = done + remaining;
      progressNode.value = done;
    }
  }

  let noticeTimer = null;
  function notice(text) {
    noticeNode.textContent = text;
    noticeNode.hidden = false;
    clearTimeout(noticeTimer);
    noticeTimer = setTimeout(function () { noticeNode.hidden = true; }, 6000);
  }

  let savedTimer = null;
  let savingTimer = null;
  function paintStatus() {
    const waiting = outbox.size();
    statusNode.dataset.state = outbox.state;
    clearTimeout(savingTimer);
    if (outbox.state === "offline") statusNode.textContent = t("study.offline", { n: waiting });
    else if (outbox.state === "retrying") statusNode.textContent = t("study.retrying", { n: waiting });
    else if (outbox.state === "signed_out") statusNode.textContent = t("study.signed_out", { n: waiting });
    else if (outbox.state === "sending") {
      // Only a slow save is worth a word; a quick one would just flicker.
      savingTimer = setTimeout(function () { statusNode.textContent = t("study.saving"); }, 700);
      return;
    } else if (statusNode.textContent) {
      statusNode.textContent = t("study.saved");
      clearTimeout(savedTimer);
      savedTimer = setTimeout(function () { if (outbox.state === "idle") statusNode.textContent = ""; }, 2000);
    }
  }

  // ---- the buffer -----------------------------------------------------------------------------

  function dueNow(card) {
    return card.queue !== "new" && card.due && Date.parse(card.due) <= Date.now();
  }

  // Put a card from the server into the buffer; a learning step that came due goes first.
  function hold(card) {
    if (!card || held().includes(card.id)) return;
    if (pendingRatings().some((entry) => entry.card_id === card.id)) return;
    if ((card.queue === "learning" || card.queue === "relearning") && dueNow(card)) buffer.unshift(card);
    else buffer.push(card);
    if (!current) advance();
    else prepare(card);
  }

  function advance() {
    current = buffer.shift() || null;
    paint();
    if (!current) finishIfDone();
  }

  function finishIfDone() {
    if (current || buffer.length || !exhausted || pendingRatings().length || fetching) return;
    // Nothing due and every rating saved: the server's page says what comes next and when.
    window.location.assign(studyUrl());
  }

  async function topUp() {
    if (fetching || exhausted || buffer.length >= DEPTH) return;
    fetching = true;
    try {
      while (!exhausted && buffer.length < DEPTH) {
        const params = new URLSearchParams(scope);
        for (const id of excludeFor(null).slice(0, 50)) params.append("exclude", id);
        const response = await fetch("/api/study/next?" + params, { credentials: "same-origin", headers: { Accept: "application/json" } });
        if (response.status === 204) { exhausted = true; break; }
        if (!response.ok) break;
        const card = await response.json();
        paintCounts(card.counts);
        if (held().includes(card.id)) break; // the answer crossed a rating made meanwhile
        hold(card);
      }
    } catch (error) {
      // Offline: the outbox's retries bring the connection back, and with it more cards.
    } finally {
      fetching = false;
    }
    finishIfDone();
  }

  // ---- actions --------------------------------------------------------------------------------

  function revealed() { return cardNode.dataset.revealed === "true"; }

  function reveal() {
    if (!current || revealed()) return;
    answerNode.hidden = false;
    revealRow.hidden = true;
    rateForm.hidden = false;
    cardNode.dataset.revealed = "true";
    const good = rateForm.querySelector('button[data-key="3"]');
    if (good) good.focus({ preventScroll: true });
  }

  function rate(rating) {
    if (!current || !revealed()) return;
    const card = current;
    const entry = {
      type: "rate",
      card_id: card.id,
      rating: rating,
      version: card.version,
      after_undo: card.version === null,
      duration_ms: Math.min(Math.round(performance.now() - shownAt), 86400000),
      scope: scope,
      tab: tab,
    };
    // Move on first: the rating is safe in the outbox before any request is made.
    current = null;
    done += 1;
    const entryId = outbox.add(entry, { send: false });
    history.push({ card: card, entryId: entryId });
    advance();
    paintCounts(null);
    afterPaint(function () { outbox.flush(true); topUp(); });
  }

  // Network work waits until the frame with the new card is on screen.
  function afterPaint(work) {
    requestAnimationFrame(function () { setTimeout(work, 0); });
  }

  const UNDO_ACTION = { suspend: "unsuspend", bury: "unbury" };

  // Suspend or bury the card shown (it leaves the session), flag it, or clear its leech mark.
  function act(action, flag) {
    if (!current) return;
    const card = current;
    const entry = { type: "action", card_id: card.id, path: "/api/cards/" + encodeURIComponent(card.id) + "/" + action, scope: scope, tab: tab };
    if (action === "flag") {
      card.flag = card.flag === flag ? 0 : flag;
      entry.body = { flag: card.flag };
      paintFlags(document.getElementById("card-actions"), card.flag);
    } else if (action === "unleech") {
      card.leech = false;
      document.querySelector("#card-actions form[action$='/unleech']")?.remove();
    }
    if (!UNDO_ACTION[action]) {
      outbox.add(entry, { send: false });
      afterPaint(function () { outbox.flush(true); });
      return;
    }
    entry.removes = true;
    current = null;
    const entryId = outbox.add(entry, { send: false });
    history.push({ card: card, entryId: entryId, undo: "/api/cards/" + encodeURIComponent(card.id) + "/" + UNDO_ACTION[action] });
    advance();
    notice(t("study." + action));
    afterPaint(function () { outbox.flush(true); topUp(); });
  }

  function undo() {
    const last = history.pop();
    if (!last) {
      if (!pendingRatings().length) undoForm.submit(); // a rating from before this page: the server knows it
      return;
    }
    if (outbox.take(last.entryId)) {
      // Never sent: taking it back is all there is to do.
    } else if (last.undo) {
      outbox.add({ type: "action", card_id: last.card.id, path: last.undo, scope: scope, tab: tab }, { send: false });
      afterPaint(function () { outbox.flush(true); });
    } else {
      // Already on its way or saved: the server undoes it, in order after what went before.
      outbox.add({ type: "undo", card_id: last.card.id, tab: tab }, { send: false });
      afterPaint(function () { outbox.flush(true); });
      last.card.version = null;
    }
    if (!last.undo) done = Math.max(0, done - 1);
    if (current) buffer.unshift(current);
    current = last.card;
    paint();
    paintCounts(null);
    notice(t("study.undone"));
  }

  // ---- the server's answers -------------------------------------------------------------------

  outbox.on(function (kind, entry, data) {
    if (kind === "state" || kind === "change") { paintStatus(); return; }
    if (kind === "before" && entry.type === "rate" && entry.after_undo && entry.card_id in versions) {
      entry.version = versions[entry.card_id];
      entry.after_undo = false;
      outbox.update(entry);
      return;
    }
    if (kind === "ack" && (entry.type === "rate" || entry.type === "action")) {
      if (entry.type === "rate") versions[data.card_id] = data.version;
      if (data.leech) notice(t("study.leech", { lapses: data.lapses }));
      exhausted = data.next === null;
      paintCounts(data.counts);
      hold(data.next);
      topUp();
      finishIfDone();
    } else if (kind === "ack" && entry.type === "undo") {
      versions[data.card_id] = data.version;
      for (const card of [current].concat(buffer)) {
        if (card && card.id === data.card_id && card.version === null) card.version = data.version;
      }
      exhausted = false;
    } else if (kind === "rejected") {
      const index = history.findIndex((item) => item.entryId === entry.id);
      if (index >= 0) history.splice(index, 1);
      if (entry.type === "undo") {
        // The rating stands: drop the re-rating queued after the undo and move past the card.
        for (const later of pendingRatings()) if (later.card_id === entry.card_id && later.after_undo) outbox.take(later.id);
        if (current && current.id === entry.card_id && current.version === null) advance();
        notice(t("study.undo_failed"));
      } else if (entry.type === "action") {
        notice(t(data.status === 404 ? "study.gone" : "study.action_failed"));
      } else {
        notice(t(data.status === 404 ? "study.gone" : "study.rejected"));
      }
      exhausted = false;
      topUp();
    } else if (kind === "drained") {
      finishIfDone();
    }
  });

  // ---- wiring ---------------------------------------------------------------------------------

  if (revealLink) revealLink.addEventListener("click", function (event) { event.preventDefault(); reveal(); });
  rateForm.addEventListener("submit", function (event) {
    event.preventDefault();
    const rating = event.submitter && parseInt(event.submitter.value, 10);
    if (rating) rate(rating);
  });
  undoForm.addEventListener("submit", function (event) { event.preventDefault(); undo(); });
  answerNode.addEventListener("submit", function (event) {
    const button = event.submitter;
    if (!button || !button.dataset.action) return;
    event.preventDefault();
    act(button.dataset.action, button.dataset.flag ? parseInt(button.dataset.flag, 10) : 0);
  });

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey && !event.metaKey && !event.altKey && /^[1-7]$/.test(event.key) && current) {
      event.preventDefault();
      act("flag", parseInt(event.key, 10));
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.tagName === "SELECT")) return;
    const key = event.key;
    if ((key === " " || key === "Enter") && current && !revealed()) {
      event.preventDefault();
      reveal();
    } else if (["1", "2", "3", "4"].includes(key) && revealed()) {
      event.preventDefault();
      if (!event.repeat) rate(parseInt(key, 10));
    } else if ((key === "@" || key === "-") && current && !event.repeat) {
      event.preventDefault();
      act(key === "@" ? "suspend" : "bury");
    } else if ((key === "z" || key === "Z") && !event.repeat) {
      event.preventDefault();
      undo();
    }
  });

  // A card rated on an earlier page but not yet sent is not shown again.
  if (current && pendingRatings().some((entry) => entry.card_id === current.id)) {
    current = null;
    paint();
  }
  // Cards shown later may need KaTeX's fonts: fetch them while there is a connection.
  if (document.fonts) {
    for (const face of ["1em KaTeX_Main", "italic 1em KaTeX_Math", "1em KaTeX_Size1", "1em KaTeX_Size2", "1em KaTeX_AMS"]) {
      document.fonts.load(face).catch(function () {});
    }
  }
  paintCounts(current ? current.counts : null);
  paintStatus();
  outbox.flush(true);
  topUp();
})();
