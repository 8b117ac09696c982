// The outbox: every rating, card action (suspend, bury, flag) and undo is written to
// localStorage before anything else happens, then sent to the JSON API in order, each with its
// own Idempotency-Key, retried with backoff until the server answers. A reload, a closed tab or
// a dropped connection loses nothing: whichever qbank page opens next sends what is left, and a
// repeat of a delivered request records nothing twice.
//
// Why not Workbox's background-sync Queue: it replays raw Requests from a service worker, so the
// page cannot put an undo before the re-rating that follows it, fill in the version an undo
// returns, drop a rating undone locally before it was sent, or see the answers (the next card,
// the counts). Browsers without the Background Sync API (Firefox, Safari) replay only when the
// service worker restarts. Ordering, undo and the answers are the whole job, and they fit in this
// small queue over localStorage, which every browser has.
(function () {
  "use strict";

  const PREFIX = "qbank.outbox.";
  const MAX_DELAY = 30000;

  function csrfToken() {
    const meta = document.querySelector('meta[name="csrf-token"]');
    return meta ? meta.content : "";
  }

  function newKey() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    return Date.now().toString(36) + Math.random().toString(36).slice(2) + Math.random().toString(36).slice(2);
  }

  let counter = 0;
  function stamp() {
    // Sortable and unique across tabs: time, then a per-tab counter and random suffix.
    counter += 1;
    return String(Date.now()).padStart(15, "0") + "." + String(counter).padStart(6, "0") + "." + Math.random().toString(36).slice(2, 8);
  }

  function Outbox(learner) {
    this.prefix = PREFIX + (learner || "anonymous") + ".";
    this.listeners = [];
    this.inFlight = null;
    this.attempt = 0;
    this.timer = null;
    this.state = "idle"; // idle | sending | offline | retrying | signed_out
    this.exclude = function () { return []; };
    window.addEventListener("online", () => this.flush(true));
    window.addEventListener("storage", (event) => {
      if (event.key && event.key.startsWith(this.prefix)) this.emit("change");
    });
    window.addEventListener("pagehide", () => this.beacon());
  }

  Outbox.prototype.on = function (listener) { this.listeners.push(listener); };

  Outbox.prototype.emit = function (kind, entry, detail) {
    for (const listener of this.listeners) listener(kind, entry, detail);
  };

  Outbox.prototype.entries = function () {
    const found = [];
    for (let i = 0; i < localStorage.length; i++) {
      const key = localStorage.key(i);
      if (!key || !key.startsWith(this.prefix)) continue;
      try {
        const entry = JSON.parse(localStorage.getItem(key));
        entry.id = key.slice(this.prefix.length);
        found.push(entry);
      } catch (error) {
        localStorage.removeItem(key); // unreadable: it could never be sent
      }
    }
    return found.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  };

  Outbox.prototype.size = function () { return this.entries().length; };

  // Store an action ({type: "rate"|"undo", ...}); returns its id. Sending starts at once
  // unless `options.send` is false (the caller flushes when it is ready).
  Outbox.prototype.add = function (entry, options) {
    const id = stamp();
    entry.key = entry.key || newKey();
    localStorage.setItem(this.prefix + id, JSON.stringify(entry));
    entry.id = id;
    this.emit("change");
    if (!options || options.send !== false) this.flush(true);
    return id;
  };

  Outbox.prototype.update = function (entry) {
    const stored = Object.assign({}, entry);
    delete stored.id;
    if (localStorage.getItem(this.prefix + entry.id) !== null) {
      localStorage.setItem(this.prefix + entry.id, JSON.stringify(stored));
    }
  };

  // Take back an action that has not gone out yet; false when it is on its way or delivered.
  Outbox.prototype.take = function (id) {
    if (this.inFlight === id || localStorage.getItem(this.prefix + id) === null) return false;
    localStorage.removeItem(this.prefix + id);
    this.emit("change");
    return true;
  };

  Outbox.prototype.has = function (id) { return localStorage.getItem(this.prefix + id) !== null; };

  Outbox.prototype.remove = function (id) { localStorage.removeItem(this.prefix + id); };

  Outbox.prototype.request = function (entry) {
    let url;
    let body;
    if (entry.type === "undo") {
      url = "/api/reviews/undo";
      body = { card_id: entry.card_id };
    } else if (entry.type === "action") {
      const params = new URLSearchParams(entry.scope || {});
      for (const id of this.exclude(entry).slice(0, 50)) params.append("exclude", id);
      url = entry.path + (params.toString() ? "?" + params : "");
      body = entry.body || {};
    } else {
      const params = new URLSearchParams(entry.scope || {});
      for (const id of this.exclude(entry).slice(0, 50)) params.append("exclude", id);
      url = "/api/reviews" + (params.toString() ? "?" + params : "");
      body = { card_id: entry.card_id, rating: entry.rating, duration_ms: entry.duration_ms, version: entry.version };
    }
    return {
      url: url,
      init: {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json", "Idempotency-Key": entry.key, "X-CSRF-Token": csrfToken() },
        body: JSON.stringify(body),
      },
    };
  };

  Outbox.prototype.setState = function (state) {
    if (this.state === state) return;
    this.state = state;
    this.emit("state");
  };

  Outbox.prototype.schedule = function () {
    clearTimeout(this.timer);
    // Exponential backoff with jitter, so a returning server is not hit by every tab at once.
    const delay = Math.min(MAX_DELAY, 500 * 2 ** Math.min(this.attempt, 6)) * (0.75 + Math.random() / 2);
    this.attempt += 1;
    this.timer = setTimeout(() => this.flush(), delay);
  };

  // Send what is stored, oldest first, one request at a time.
  Outbox.prototype.flush = async function (now) {
    if (this.inFlight) return;
    if (now) { clearTimeout(this.timer); this.attempt = 0; }
    for (;;) {
      const first = this.entries()[0];
      if (!first) { this.setState("idle"); this.emit("drained"); return; }
      this.emit("before", first); // the page may fill in a version an earlier undo returned
      const entry = this.entries()[0];
      if (!entry || entry.id !== first.id) continue;
      this.inFlight = entry.id;
      this.setState("sending");
      const outcome = await this.send(entry);
      this.inFlight = null;
      if (outcome === "wait") { this.schedule(); return; }
    }
  };

  // One delivery attempt: "done" (answered, or refused for good) or "wait" (try again later).
  Outbox.prototype.send = async function (entry) {
    let response;
    try {
      const { url, init } = this.request(entry);
      response = await fetch(url, init);
    } catch (error) {
      this.setState("offline");
      return "wait";
    }
    if (response.status === 401) { this.setState("signed_out"); return "wait"; }
    if (response.status === 403 || response.status === 429 || response.status >= 500) {
      // A changed CSRF token (signed in again in another tab), throttling or a server fault:
      // each may pass, so the action stays and goes again later.
      this.setState("retrying");
      return "wait";
    }
    let data = null;
    try { data = await response.json(); } catch (error) { data = null; }
    this.remove(entry.id);
    this.attempt = 0;
    if (response.ok) this.emit("ack", entry, data);
    // 404, 409, 422: the server will never take it; say so and go on with the rest.
    else this.emit("rejected", entry, { status: response.status, detail: data });
    return "done";
  };

  // The page is going away: hand the oldest action to the browser, which sends it even after
  // the page is gone. A repeat later is harmless, the key makes it one rating.
  Outbox.prototype.beacon = function () {
    const entry = this.entries()[0];
    if (!entry || this.inFlight === entry.id) return;
    try {
      const { url, init } = this.request(entry);
      init.keepalive = true;
      fetch(url, init).catch(function () {});
    } catch (error) { /* nothing to do: the entry stays stored */ }
  };

  const learner = document.body ? document.body.dataset.learner : "";
  const outbox = new Outbox(learner);
  window.qbankOutbox = outbox;
  // Whatever an earlier page left behind goes out now.
  if (!document.getElementById("study-state")) outbox.flush(true);
})();
