// Mock interview recordings on their way to the server. A recording is a Blob of up to 8 MB, and
// the outbox cannot carry it: localStorage holds only strings, a few MB in all, and base64 would
// make the audio a third larger. IndexedDB stores Blobs as they are, in every current browser,
// and keeps them through a reload or a closed tab, so a recording made offline waits there and
// is uploaded, oldest first, retried with backoff until the server keeps it (201) or refuses it
// for good (too large, not audio, no such question). Where IndexedDB cannot be opened (some
// private modes) a recording waits in this page's memory only, and the page says that a reload
// would lose it. Sending one twice is harmless: a question keeps one recording, the latest.
(function () {
  "use strict";

  const NAME = "qbank";
  const STORE = "recordings";
  const MAX_DELAY = 30000;
  const learner = (document.body && document.body.dataset.learner) || "anonymous";
  const listeners = [];
  const memory = new Map();
  let opened = null;
  let busy = false;
  let timer = null;
  let attempt = 0;

  function emit(kind, record, detail) {
    for (const listener of listeners) listener(kind, record, detail || {});
  }

  function open() {
    if (!opened) {
      opened = new Promise(function (resolve) {
        let request;
        try {
          request = indexedDB.open(NAME, 1);
        } catch (error) {
          resolve(null);
          return;
        }
        request.onupgradeneeded = function () { request.result.createObjectStore(STORE, { keyPath: "id" }); };
        request.onsuccess = function () { resolve(request.result); };
        request.onerror = function () { resolve(null); };
      });
    }
    return opened;
  }

  function transaction(db, mode, work) {
    return new Promise(function (resolve, reject) {
      const tx = db.transaction(STORE, mode);
      const request = work(tx.objectStore(STORE));
      tx.oncomplete = function () { resolve(request.result); };
      tx.onerror = tx.onabort = function () { reject(tx.error); };
    });
  }

  // Keep a record; true when it is on disk, false when only this page holds it.
  async function put(record) {
    const db = await open();
    if (db) {
      try {
        await transaction(db, "readwrite", function (store) { return store.put(record); });
        return true;
      } catch (error) { /* full or refused: this page keeps it */ }
    }
    memory.set(record.id, record);
    return false;
  }

  async function remove(id) {
    memory.delete(id);
    const db = await open();
    if (db) {
      try { await transaction(db, "readwrite", function (store) { return store.delete(id); }); } catch (error) { /* gone already */ }
    }
  }

  async function list() {
    const db = await open();
    let stored = [];
    if (db) {
      try { stored = await transaction(db, "readonly", function (store) { return store.getAll(); }); } catch (error) { stored = []; }
    }
    const found = new Map();
    for (const record of stored.concat(Array.from(memory.values()))) {
      if (record.learner === learner) found.set(record.id, record);
    }
    return Array.from(found.values()).sort(function (a, b) { return a.at - b.at; });
  }

  function csrfToken() {
    const meta = document.querySelector('meta[name="csrf-token"]');
    return meta ? meta.content : "";
  }

  // One upload: "done" (kept, or refused for good), or why it must wait: "offline", "retrying".
  async function send(record) {
    const url = "/api/mocks/" + encodeURIComponent(record.mock) + "/recordings?card_id=" + encodeURIComponent(record.card);
    let response;
    try {
      response = await fetch(url, {
        method: "POST",
        body: record.blob,
        credentials: "same-origin",
        headers: { "Content-Type": record.type, "Accept": "application/json", "X-CSRF-Token": csrfToken() },
      });
    } catch (error) {
      return "offline";
    }
    if (response.status === 401 || response.status === 403 || response.status === 429 || response.status >= 500) {
      return "retrying";
    }
    let data = null;
    try { data = await response.json(); } catch (error) { data = null; }
    await remove(record.id);
    if (response.ok) emit("saved", record, data);
    else emit("refused", record, { status: response.status, reason: (data && data.detail) || String(response.status) });
    return "done";
  }

  function schedule() {
    clearTimeout(timer);
    const delay = Math.min(MAX_DELAY, 500 * 2 ** Math.min(attempt, 6)) * (0.75 + Math.random() / 2);
    attempt += 1;
    timer = setTimeout(flush, delay);
  }

  async function flush(now) {
    if (now === true) { clearTimeout(timer); attempt = 0; }
    if (busy) return;
    busy = true;
    try {
      for (;;) {
        const records = await list();
        if (!records.length) { emit("drained"); return; }
        const outcome = await send(records[0]);
        if (outcome !== "done") {
          // The first one waits, and every one behind it with it.
          for (const record of records) emit(outcome, record, { durable: !memory.has(record.id) });
          schedule();
          return;
        }
        attempt = 0;
      }
    } finally {
      busy = false;
    }
  }

  // Keep a question's recording and send it; resolves to whether it survives a reload.
  async function add(mock, card, blob) {
    const record = {
      id: learner + "/" + mock + "/" + card,
      learner: learner,
      mock: String(mock),
      card: card,
      type: blob.type || "audio/webm",
      blob: blob,
      size: blob.size,
      at: Date.now(),
    };
    const durable = await put(record);
    emit("kept", record, { durable: durable });
    flush(true);
    return durable;
  }

  async function waiting(mock) {
    return (await list()).filter(function (record) { return record.mock === String(mock); }).length;
  }

  window.qbankRecordings = {
    add: add,
    flush: flush,
    waiting: waiting,
    on: function (listener) { listeners.push(listener); },
  };
  window.addEventListener("online", function () { flush(true); });
  // Whatever an earlier page left behind goes out now.
  flush(true);
})();
