// Mock interview recordings on their way to the server, through the same queue as the outbox
// (static/queue.js) over IndexedDB (static/stores.js): a recording is a Blob of up to 8 MB, which
// localStorage cannot hold. A recording made offline waits there through a reload or a closed
// tab and is uploaded, oldest first, retried with backoff until the server keeps it (201) or
// refuses it for good (too large, not audio, no such question). Where IndexedDB cannot be opened
// a recording waits in this page's memory only, and the page says that a reload would lose it.
// Sending one twice is harmless: a question keeps one recording, the latest.

import { csrfToken, deliver } from "./outbox.js";
import { Queue, WAITING } from "./queue.js";
import { idbStore } from "./stores.js";

const learner = document.body.dataset.learner || "anonymous";
const listeners = [];

function emit(kind, record, detail) {
  for (const listener of listeners) listener(kind, record, detail || {});
}

const uploads = new Queue({
  online: () => navigator.onLine,
  store: idbStore(indexedDB, { name: "qbank", store: "recordings", mine: (entry) => entry.data.learner === learner }),
  prepare: (entry) => ({
    url: "/api/mocks/" + encodeURIComponent(entry.data.mock) + "/recordings?card_id=" + encodeURIComponent(entry.data.card),
    init: {
      method: "POST",
      body: entry.data.blob,
      credentials: "same-origin",
      headers: { "Content-Type": entry.data.type, Accept: "application/json", "X-CSRF-Token": csrfToken() },
    },
  }),
  send: (request) => deliver(request),
});

uploads.subscribe((event) => {
  if (event.type === "state" && uploads.loaded) document.body.dataset.recordingsWaiting = String(event.state.waiting);
  if (event.type === "state" && WAITING.includes(event.state.status)) {
    // The first one waits, and every one behind it with it.
    for (const entry of uploads.entries()) emit(event.state.status === "offline" ? "offline" : "retrying", entry.data, { durable: event.state.durable });
  } else if (event.type === "ack") {
    emit("saved", event.entry.data, event.data || {});
  } else if (event.type === "rejected") {
    emit("refused", event.entry.data, { status: event.status, reason: (event.data && event.data.detail) || String(event.status) });
  } else if (event.type === "drained") {
    emit("drained");
  }
});

// Keep a question's recording and send it; resolves to whether it survives a reload.
async function add(mock, card, blob) {
  await uploads.ready();
  const record = { learner, mock: String(mock), card, type: blob.type || "audio/webm", blob, size: blob.size };
  uploads.push(record, { id: learner + "/" + mock + "/" + card });
  const durable = await uploads.saving;
  emit("kept", record, { durable });
  uploads.replay(true);
  return durable;
}

async function waiting(mock) {
  await uploads.ready();
  return uploads.entries().filter((entry) => entry.data.mock === String(mock)).length;
}

export const recordings = {
  add,
  waiting,
  replay: (soon) => uploads.replay(soon),
  on(listener) { listeners.push(listener); },
};

uploads.ready().then(() => { document.body.dataset.recordingsWaiting = String(uploads.size()); });
window.addEventListener("online", () => uploads.replay(true));
// Whatever an earlier page left behind goes out now.
uploads.replay(true);
