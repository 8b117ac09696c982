// The outbox's queue on its own, over a store in memory: static/queue.js.
import assert from "node:assert/strict";
import { test } from "node:test";

import { Queue } from "../../static/queue.js";
import { localStore, memoryStore } from "../../static/stores.js";
import { fakeClock, fakeServer, fakeStorage, fakeTimers, recordingStore } from "./fakes.mjs";

function queueWith({ store = recordingStore(), server = fakeServer(), clock = fakeClock(), timers = fakeTimers(), retentionMs } = {}) {
  const queue = new Queue({ store, send: server.send, prepare: (entry) => entry.data, clock, timers, random: () => 0.5, retentionMs });
  return { queue, store, server, clock, timers };
}

test("entries go out once each, oldest first, and leave the store", async () => {
  const { queue, store, server, clock } = queueWith();
  await queue.ready();
  for (const n of [1, 2, 3]) {
    queue.push({ n });
    clock.advance(1);
  }
  assert.equal(store.held.size, 3);
  await queue.replay(true);
  assert.deepEqual(server.sent.map((data) => data.n), [1, 2, 3]);
  assert.equal(store.held.size, 0);
  assert.deepEqual(queue.state, { status: "idle", waiting: 0, inFlight: null, durable: true });
});

test("entries pushed in the same millisecond keep their order", async () => {
  const { queue, server } = queueWith();
  await queue.ready();
  for (let n = 0; n < 20; n++) queue.push({ n });
  await queue.replay(true);
  assert.deepEqual(server.sent.map((data) => data.n), Array.from({ length: 20 }, (_, n) => n));
});

test("what an earlier page left in the store goes first, in its order", async () => {
  const store = memoryStore([
    { id: "b", at: 20, data: { n: 2 } },
    { id: "a", at: 10, data: { n: 1 } },
  ]);
  const { queue, server } = queueWith({ store, clock: fakeClock(30) });
  queue.push({ n: 3 });
  await queue.replay(true);
  assert.deepEqual(server.sent.map((data) => data.n), [1, 2, 3]);
});

test("a failed attempt is put back first and retried with growing backoff", async () => {
  const server = fakeServer();
  const { queue, timers } = queueWith({ server });
  await queue.ready();
  queue.push({ n: 1 });
  queue.push({ n: 2 });
  server.offline = true;
  await queue.replay(true);
  assert.equal(queue.state.status, "offline");
  assert.equal(queue.size(), 2);
  assert.equal(queue.entries()[0].data.n, 1);
  const delays = [timers.delays()[0]];
  await timers.fire();
  delays.push(timers.delays()[0]);
  await timers.fire();
  delays.push(timers.delays()[0]);
  assert.deepEqual(delays, [500, 1000, 2000]);
  for (let i = 0; i < 10; i++) await timers.fire();
  assert.equal(timers.delays()[0], 30000, "the backoff is capped");

  server.offline = false;
  await timers.fire();
  assert.deepEqual(server.sent.map((data) => data.n), [1, 2]);
  assert.equal(queue.state.status, "idle");
  assert.equal(timers.pending.size, 0);
});

test("a retry or a sign-out is a wait, a refusal is final and the rest goes on", async () => {
  const answers = [{ outcome: "retrying" }, { outcome: "signed_out" }, { outcome: "rejected", status: 409 }, { outcome: "done", data: { ok: 1 } }];
  const server = fakeServer(() => answers.shift());
  const { queue, timers } = queueWith({ server });
  const events = [];
  queue.subscribe((event) => { if (event.type !== "state" && event.type !== "change") events.push([event.type, event.entry && event.entry.data.n, event.status]); });
  await queue.ready();
  queue.push({ n: 1 });
  queue.push({ n: 2 });
  await queue.replay(true);
  assert.equal(queue.state.status, "retrying");
  await timers.fire();
  assert.equal(queue.state.status, "signed_out");
  await timers.fire();
  assert.deepEqual(events, [["rejected", 1, 409], ["ack", 2, undefined], ["drained", undefined, undefined]]);
});

test("replay soon forgets the backoff; a second replay while one runs sends nothing twice", async () => {
  let release;
  const server = fakeServer();
  const slow = async (request) => { await new Promise((resolve) => { release = resolve; }); return server.send(request); };
  const { queue, timers } = queueWith();
  queue.sendRequest = slow;
  await queue.ready();
  queue.push({ n: 1 });
  const first = queue.replay(true);
  await Promise.resolve();
  await queue.replay(true);
  release();
  await first;
  assert.equal(server.sent.length, 1);
  assert.equal(timers.pending.size, 0);
});

test("an entry past the retention limit is dropped, not sent", async () => {
  const clock = fakeClock();
  const { queue, server } = queueWith({ clock, retentionMs: 1000 });
  const expired = [];
  queue.subscribe((event) => { if (event.type === "expired") expired.push(event.entry.data.n); });
  await queue.ready();
  queue.push({ n: 1 });
  clock.advance(2000);
  queue.push({ n: 2 });
  await queue.replay(true);
  assert.deepEqual(expired, [1]);
  assert.deepEqual(server.sent.map((data) => data.n), [2]);
});

test("take removes an entry not yet sent, never the one on its way", async () => {
  let release;
  const server = fakeServer();
  const { queue, store } = queueWith();
  queue.sendRequest = async (request) => { await new Promise((resolve) => { release = resolve; }); return server.send(request); };
  await queue.ready();
  const first = queue.push({ n: 1 });
  const second = queue.push({ n: 2 });
  const running = queue.replay(true);
  await Promise.resolve();
  await Promise.resolve();
  assert.equal(queue.state.inFlight, first);
  assert.equal(queue.take(first), false);
  assert.equal(queue.take(second), true);
  assert.equal(store.held.has(second), false);
  release();
  await running;
  assert.deepEqual(server.sent.map((data) => data.n), [1]);
});

test("prepare builds each request without changing the stored entry; null skips it", async () => {
  const server = fakeServer();
  const store = recordingStore();
  const queue = new Queue({
    store,
    send: server.send,
    prepare: (entry) => (entry.data.skip ? null : { body: entry.data.n * 10 }),
    timers: fakeTimers(),
  });
  await queue.ready();
  const id = queue.push({ n: 1 });
  queue.push({ n: 2, skip: true });
  const stored = JSON.stringify(store.held.get(id));
  await queue.replay(true);
  assert.deepEqual(server.sent, [{ body: 10 }]);
  assert.equal(stored, JSON.stringify({ id, at: JSON.parse(stored).at, data: { n: 1 } }));
});

test("a push with an id replaces the waiting entry of that id", async () => {
  const { queue, server } = queueWith();
  await queue.ready();
  queue.push({ take: 1 }, { id: "mock/card" });
  queue.push({ take: 2 }, { id: "mock/card" });
  assert.equal(queue.size(), 1);
  await queue.replay(true);
  assert.deepEqual(server.sent, [{ take: 2 }]);
});

test("a store that refuses a write makes the state say it lives in this page only", async () => {
  const store = recordingStore();
  store.refuse = true;
  const { queue } = queueWith({ store });
  await queue.ready();
  queue.push({ n: 1 });
  assert.equal(await queue.saving, false);
  assert.equal(queue.state.durable, false);
});

test("the localStorage store keeps each entry under its learner's prefix, and reads back the order", async () => {
  const storage = fakeStorage();
  storage.setItem("qbank.outbox.me.001700000000005.000001.abc", JSON.stringify({ n: 1 })); // an earlier page's
  storage.setItem("qbank.outbox.me.broken", "{not json");
  storage.setItem("qbank.outbox.you.001700000000001.000001.abc", JSON.stringify({ n: 0 }));
  const store = localStore(storage, "qbank.outbox.me.");
  const { queue, server } = queueWith({ store, clock: fakeClock(1_700_000_000_010) });
  await queue.ready();
  assert.equal(storage.getItem("qbank.outbox.me.broken"), null, "unreadable: dropped");
  queue.push({ n: 2 });
  assert.equal(storage.length, 3);
  await queue.replay(true);
  assert.deepEqual(server.sent.map((data) => data.n), [1, 2]);
  assert.deepEqual(Array.from({ length: storage.length }, (_, i) => storage.key(i)), ["qbank.outbox.you.001700000000001.000001.abc"]);
});
