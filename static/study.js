// The study page as a client of the JSON API. It holds the current card and a few beyond it, so
// revealing, rating, moving on and undoing never wait for the network; ratings go out through
// the outbox (static/outbox.js) in the background and the server's answers top the buffer up,
// correct its order and set the counts. Cards are painted by static/study-paint.js. Without
// JavaScript the same page works as links and forms.
(function () {
  "use strict";
  const view = window.qbankStudy;
  const outbox = window.qbankOutbox;
  if (!view || !outbox) return;
  const initial = view.initial;
  const scope = view.scope;
  const t = view.t;
  const revealed = view.revealed;
  const afterPaint = view.afterPaint;
  const tab = Math.random().toString(36).slice(2);
  // Cards held beyond the current one: enough to study on through a dropped connection.
  const DEPTH = 8;

  const answerNode = document.getElementById("answer-side");
  const revealLink = document.getElementById("reveal");
  const rateForm = document.getElementById("rate-form");
  const undoForm = document.getElementById("undo-form");

  let current = initial.current;
  let buffer = [];
  const history = []; // {card, entryId}, newest last: what Z takes back
  // Steps of earlier pages in this tab (static/undo-trail.js), taken back once history is empty.
  const trail = window.qbankUndoTrail;
  const earlier = trail ? trail.read() : [];
  const versions = {}; // card id -> version the server last answered with
  let done = initial.done;
  let exhausted = false; // the server had nothing beyond the cards held
  let fetching = false;
  let shownAt = performance.now();

  // Ratings, suspensions and burials not yet acknowledged: the server still counts those cards
  // as due, so they are neither shown nor asked for again.
  function pendingRatings() {
    return outbox.entries().filter((entry) => entry.type === "rate" || entry.removes);
  }

  // The trail beyond this page: earlier pages' steps, then this page's, each as a page without
  // this script would take it back (a cleared leech has no form, so it stays on this page).
  function saveTrail() {
    if (!trail) return;
    const steps = history.map(function (item) {
      if (!item.undo) return { type: "rating" };
      if (/\/leech$/.test(item.undo)) return null;
      const back = view.studyUrl() + (Object.keys(scope).length ? "&" : "?") + "card=" + encodeURIComponent(item.card.id);
      const fields = item.undoBody && "flag" in item.undoBody ? { flag: item.undoBody.flag } : {};
      return { type: "action", form: item.undo.replace(/^\/api\/cards\//, "/cards/"), fields: fields, back: back };
    });
    trail.write(earlier.concat(steps.filter(Boolean)));
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

  function paint() {
    const card = current;
    view.paintCard(card);
    if (!card) return;
    shownAt = performance.now();
    view.settle(function () { return current === card; });
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
    else view.prepare(card);
  }

  function advance() {
    current = buffer.shift() || null;
    paint();
    if (!current) finishIfDone();
  }

  function finishIfDone() {
    if (current || buffer.length || !exhausted || pendingRatings().length || fetching) return;
    // Nothing due and every rating saved: the server's page says what comes next and when.
    window.location.assign(view.studyUrl());
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
        view.paintCounts(card.counts, done);
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

  function reveal() {
    if (!current || revealed()) return;
    view.paintAnswer();
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
    saveTrail();
    advance();
    view.paintCounts(null, done);
    afterPaint(function () { outbox.flush(true); topUp(); });
  }

  const UNDO_ACTION = { suspend: "unsuspend", bury: "unbury" };

  // Suspend or bury the card shown (it leaves the session), flag it, or clear its leech mark.
  // Each goes on the undo stack with the request that puts the card's marks back.
  function act(action, flag) {
    if (!current) return;
    const card = current;
    const base = "/api/cards/" + encodeURIComponent(card.id) + "/";
    const entry = { type: "action", card_id: card.id, path: base + action, scope: scope, tab: tab };
    let kept = null; // the card stays shown: how to take the action back
    if (action === "flag") {
      const before = card.flag || 0;
      card.flag = before === flag ? 0 : flag;
      entry.body = { flag: card.flag };
      view.paintShownFlag(card.flag);
      kept = { undo: base + "flag", undoBody: { flag: before }, restore: function () { card.flag = before; } };
    } else if (action === "unleech") {
      if (!card.leech) return;
      card.leech = false;
      view.dropShownUnleech();
      // A card shown for study is never suspended, so the leech comes back unsuspended.
      kept = { undo: base + "leech", undoBody: { suspended: false }, restore: function () { card.leech = true; } };
    }
    if (kept) {
      const entryId = outbox.add(entry, { send: false });
      history.push(Object.assign({ card: card, entryId: entryId }, kept));
      saveTrail();
      afterPaint(function () { outbox.flush(true); });
      return;
    }
    entry.removes = true;
    current = null;
    const entryId = outbox.add(entry, { send: false });
    history.push({ card: card, entryId: entryId, undo: base + UNDO_ACTION[action] });
    saveTrail();
    advance();
    view.notice(t("study." + action));
    afterPaint(function () { outbox.flush(true); topUp(); });
  }

  function undo() {
    const last = history.pop();
    if (!last) {
      if (pendingRatings().length) return;
      // A step from before this page: a card action goes as its form; a rating, the server knows.
      if (!(trail && trail.undoEarlier(undoForm))) undoForm.submit();
      return;
    }
    saveTrail();
    if (outbox.take(last.entryId)) {
      // Never sent: taking it back is all there is to do.
    } else if (last.undo) {
      outbox.add({ type: "action", card_id: last.card.id, path: last.undo, body: last.undoBody, scope: scope, tab: tab }, { send: false });
      afterPaint(function () { outbox.flush(true); });
    } else {
      // Already on its way or saved: the server undoes it, in order after what went before.
      outbox.add({ type: "undo", card_id: last.card.id, tab: tab }, { send: false });
      afterPaint(function () { outbox.flush(true); });
      last.card.version = null;
    }
    view.notice(t(last.undo ? "study.action_undone" : "study.undone"));
    if (last.restore) {
      last.restore();
      // A flag or a cleared leech on the card still shown: its actions change in place.
      if (current === last.card) { view.repaintShownActions(last.card); return; }
    }
    if (!last.undo) done = Math.max(0, done - 1);
    if (current) buffer.unshift(current);
    current = last.card;
    paint();
    view.paintCounts(null, done);
  }

  // ---- the server's answers -------------------------------------------------------------------

  outbox.on(function (kind, entry, data) {
    if (kind === "state" || kind === "change") { view.paintStatus(outbox); return; }
    if (kind === "before" && entry.type === "rate" && entry.after_undo && entry.card_id in versions) {
      entry.version = versions[entry.card_id];
      entry.after_undo = false;
      outbox.update(entry);
      return;
    }
    if (kind === "ack" && (entry.type === "rate" || entry.type === "action")) {
      if (entry.type === "rate") versions[data.card_id] = data.version;
      if (data.leech) view.notice(t("study.leech", { lapses: data.lapses }));
      exhausted = data.next === null;
      view.paintCounts(data.counts, done);
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
      if (index >= 0) { history.splice(index, 1); saveTrail(); }
      if (entry.type === "undo") {
        // The rating stands: drop the re-rating queued after the undo and move past the card.
        for (const later of pendingRatings()) if (later.card_id === entry.card_id && later.after_undo) outbox.take(later.id);
        if (current && current.id === entry.card_id && current.version === null) advance();
        view.notice(t("study.undo_failed"));
      } else if (entry.type === "action") {
        view.notice(t(data.status === 404 ? "study.gone" : "study.action_failed"));
      } else {
        view.notice(t(data.status === 404 ? "study.gone" : "study.rejected"));
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
  view.paintCounts(current ? current.counts : null, done);
  view.paintStatus(outbox);
  outbox.flush(true);
  topUp();
})();

