// The outbox: every rating, card action, undo and mock answer is kept in localStorage before
// anything else happens, then sent to the JSON API in order (static/queue.js), each with its
// own Idempotency-Key, retried with backoff until the server answers. A reload, a closed tab or
// a dropped connection loses nothing: whichever qbank page opens next sends what is left, and a
// repeat of a delivered request records nothing twice.
//
// Why not Workbox's background-sync Queue itself: it replays raw Requests from a service
// worker, so the page could not put an undo before the re-rating that follows it, fill in the
// version an undo returns, take back a rating undone before it was sent, or see the answers
// (the next card, the counts). Browsers without the Background Sync API (Firefox, Safari)
// replay only when the service worker restarts.

import { sessionEnded } from "./kept.js";
import { Queue } from "./queue.js";
import { localStore } from "./stores.js";
import { createStudySync } from "./study-sync.js";

export function csrfToken() {
  const meta = document.querySelector('meta[name="csrf-token"]');
  return meta ? meta.content : "";
}

export function newKey() {
  if (crypto.randomUUID) return crypto.randomUUID();
  return Date.now().toString(36) + Math.random().toString(36).slice(2) + Math.random().toString(36).slice(2);
}

// One attempt at `request` ({url, init}): the outcome static/queue.js expects. A 401 says the
// session has ended (elsewhere, or by time): `ended()` has the pages kept for it deleted.
export async function deliver(request, fetcher = fetch, ended = () => sessionEnded(navigator.serviceWorker)) {
  let response;
  try {
    response = await fetcher(request.url, request.init);
  } catch (error) {
    return { outcome: "offline" };
  }
  if (response.status === 401) {
    ended();
    return { outcome: "signed_out" };
  }
  // A changed CSRF token (signed in again in another tab), throttling or a server fault: each
  // may pass, so the entry stays and goes again later.
  if (response.status === 403 || response.status === 429 || response.status >= 500) return { outcome: "retrying" };
  let data = null;
  try { data = await response.json(); } catch (error) { data = null; }
  // 404, 409, 422: the server will never take it; the page says so and the rest goes on.
  return response.ok ? { outcome: "done", data } : { outcome: "rejected", status: response.status, data };
}

const learner = document.body.dataset.learner || "anonymous";

export const sync = createStudySync({ csrf: csrfToken });

export const outbox = new Queue({
  store: localStore(localStorage, "qbank.outbox." + learner + ".", window),
  prepare: (entry) => sync.prepare(entry),
  send: (request) => deliver(request),
  online: () => navigator.onLine,
});

// Keep `data` ({type, …}, see static/study-sync.js) with a fresh key; its entry id.
export function keep(data) {
  return outbox.push(Object.assign({ key: newKey() }, data));
}

// The sync state, where the page's tests and styles can read it, once the store is read.
function paintState(state) {
  document.body.dataset.outbox = state.status;
  document.body.dataset.outboxWaiting = String(state.waiting);
  document.body.dataset.outboxSending = state.inFlight ? "true" : "false";
}

// Cards the server took a rating or an action for lately, with when, by this browser's clock.
// A page asked for before the server took one may still show that card as due: it was rendered
// first, and the entry is gone from the outbox by the time the page reads it.
const ACKED = "qbank.acked." + learner;
const ACKED_FOR_MS = 10 * 60 * 1000;

function readAcked() {
  try {
    const list = JSON.parse(localStorage.getItem(ACKED) || "[]");
    return Array.isArray(list) ? list : [];
  } catch (error) {
    return [];
  }
}

function noteAcked(entry) {
  const data = entry.data || {};
  if (!data.card_id || !(data.type === "rate" || data.removes)) return;
  const now = Date.now();
  const list = readAcked().filter((item) => now - item.at < ACKED_FOR_MS);
  list.push({ card: data.card_id, at: now });
  try { localStorage.setItem(ACKED, JSON.stringify(list.slice(-200))); } catch (error) { /* full: the pending set still covers most */ }
}

// The cards taken since `since` (ms, this browser's clock).
export function ackedSince(since) {
  return readAcked().filter((item) => item.at >= since).map((item) => item.card);
}

outbox.subscribe((event) => {
  if (event.type === "ack") {
    noteAcked(event.entry);
    sync.acknowledge(event.entry, event.data);
  }
  if (event.type === "state") paintState(event.state);
});
outbox.ready().then(() => paintState(outbox.state));

window.addEventListener("online", () => outbox.replay(true));

// The page is going away: hand the oldest entry to the browser, which sends it even after the
// page is gone. A repeat later is harmless, the key makes it one.
window.addEventListener("pagehide", () => {
  const entry = outbox.entries()[0];
  if (!entry || outbox.state.inFlight === entry.id) return;
  const request = sync.prepare(entry);
  if (!request) return;
  request.init.keepalive = true;
  fetch(request.url, request.init).catch(() => {});
});

// Whatever an earlier page left behind goes out now (the study page starts it once it is set up).
if (!document.getElementById("study-state")) outbox.replay(true);
