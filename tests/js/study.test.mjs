// The study session's state and its requests, over the real queue and a fake server and view:
// static/study-state.js and static/study-sync.js.
import assert from "node:assert/strict";
import { test } from "node:test";

import { Queue } from "../../static/queue.js";
import { StudySession } from "../../static/study-state.js";
import { createPack } from "../../static/study-pack.js";
import { createStudySync } from "../../static/study-sync.js";
import { fakeClock, fakeStorage, fakeTimers, recordingStore, settle } from "./fakes.mjs";

function card(id, queue = "new", extra = {}) {
  return Object.assign({
    id,
    queue,
    due: null,
    version: 0,
    flag: 0,
    leech: false,
    intervals: [
      { rating: 1, seconds: 60, label: "1m" },
      { rating: 2, seconds: 360, label: "6m" },
      { rating: 3, seconds: 600, label: "10m" },
      { rating: 4, seconds: 8 * 86400, label: "8d" },
    ],
  }, extra);
}

function fakeView() {
  const view = { shown: [], counts: null, notices: [], trail: null };
  view.showCard = (shown) => view.shown.push(shown ? shown.id : null);
  view.prepare = () => {};
  view.revealAnswer = () => {};
  view.paintCounts = (counts, done) => { view.counts = counts && Object.assign({ done }, counts); };
  view.paintMarks = () => {};
  view.paintStatus = () => {};
  view.paintAhead = (count) => { view.ahead = count; };
  view.notice = (key) => view.notices.push(key);
  view.saveTrail = (history) => { view.trail = history.map((step) => step.kind); };
  view.undoEarlier = () => view.notices.push("earlier");
  view.finish = () => view.notices.push("finish");
  view.afterPaint = () => {};
  return view;
}

// A server keeping each card's version and the day's counts, answering as the JSON API does.
function fakeServer(counts) {
  const server = { offline: false, requests: [], versions: new Map(), counts: Object.assign({}, counts), next: [] };
  server.send = async (request) => {
    if (server.offline) return { outcome: "offline" };
    const body = JSON.parse(request.init.body);
    const path = request.url.split("?")[0];
    server.requests.push({ path, body, key: request.init.headers["Idempotency-Key"] });
    const version = (server.versions.get(body.card_id) || 0) + 1;
    server.versions.set(body.card_id, version);
    if (path === "/api/reviews/undo") return { outcome: "done", data: { card_id: body.card_id, version } };
    return { outcome: "done", data: { card_id: body.card_id, version, counts: Object.assign({}, server.counts), next: server.next.shift() || null, undo: { method: "POST", path: path.replace(/\w+$/, "un$&"), body: null } } };
  };
  return server;
}

async function session({ cards = [card("a"), card("b"), card("c")], counts = { new: 20, learning: 0, review: 0 }, offline = false, pack = null, pageAt = 0, day = [], acked = [] } = {}) {
  const view = fakeView();
  const server = fakeServer(counts);
  server.offline = offline;
  const sync = createStudySync();
  const clock = fakeClock();
  const queue = new Queue({ store: recordingStore(), send: server.send, prepare: (entry) => sync.prepare(entry), clock, timers: fakeTimers() });
  queue.subscribe((event) => { if (event.type === "ack") sync.acknowledge(event.entry, event.data); });
  await queue.ready();
  let keys = 0;
  const keep = (data) => queue.push(Object.assign({ key: "k" + ++keys }, data));
  const rest = cards.slice(1);
  const asked = { next: 0, day: 0 };
  const study = new StudySession({
    queue,
    keep,
    view,
    current: cards[0],
    counts,
    done: 0,
    // The cards beyond the first, held before the network went (when the test starts offline).
    fetchNext: async () => {
      asked.next += 1;
      return rest.length ? { status: 200, card: rest.shift() } : { status: 204, card: null };
    },
    fetchDay: async () => {
      asked.day += 1;
      if (server.offline) throw new TypeError("Failed to fetch");
      return day;
    },
    pack,
    pageAt,
    clock,
    acked,
  });
  sync.setExclude((entry) => study.exclude(entry));
  study.start();
  await settle();
  return { study, view, server, queue, clock, asked };
}

function rate(study, rating = 3) {
  study.reveal();
  return study.rate(rating);
}

test("ratings go to the server in the order they were made, each once", async () => {
  const { study, server, queue } = await session();
  for (const rating of [3, 1, 4]) rate(study, rating);
  await queue.replay(true);
  assert.deepEqual(server.requests.map((r) => [r.path, r.body.card_id, r.body.rating]), [
    ["/api/reviews", "a", 3],
    ["/api/reviews", "b", 1],
    ["/api/reviews", "c", 4],
  ]);
  assert.equal(new Set(server.requests.map((r) => r.key)).size, 3);
});

test("the page says how many cards it holds ahead once each top-up is done", async () => {
  const { study, view } = await session();
  assert.equal(view.ahead, 2); // b and c behind a; the server had no more
  await study.topUp(); // the server has said it has no more: nothing is asked, and it says so again
  assert.equal(view.ahead, 2);
  const none = await session({ cards: [card("a")] });
  assert.equal(none.view.ahead, 0);
});

test("each rating carries the time it was made, not the time it was sent", async () => {
  const { study, server, queue, clock } = await session({ offline: true });
  const made = clock();
  rate(study);
  clock.advance(3_600_000);
  server.offline = false;
  await queue.replay(true);
  assert.equal(server.requests[0].body.reviewed_at, new Date(made).toISOString());
});

test("a second key press before the next card is revealed rates nothing", async () => {
  const { study, server, queue } = await session();
  assert.equal(rate(study), true);
  assert.equal(study.rate(3), false, "the next card is not revealed yet");
  assert.equal(study.rate(3), false);
  await queue.replay(true);
  assert.equal(server.requests.length, 1);
});

test("an undo goes before the re-rating, which carries the version the undo returned", async () => {
  const { study, server, queue } = await session();
  rate(study);
  await queue.replay(true); // rated and saved: the server's version of a is 1
  study.undo();
  assert.equal(study.current.id, "a");
  rate(study, 1);
  const waiting = queue.entries().map((entry) => JSON.stringify(entry.data));
  await queue.replay(true);
  assert.deepEqual(server.requests.map((r) => r.path), ["/api/reviews", "/api/reviews/undo", "/api/reviews"]);
  assert.equal(server.requests[2].body.version, 2, "the version the undo's answer carried");
  assert.equal(JSON.parse(waiting[1]).version, null, "the stored entry was not rewritten");
});

test("an undo of a rating not yet sent takes it back and sends nothing", async () => {
  const { study, server, queue } = await session({ offline: true });
  rate(study);
  rate(study);
  assert.equal(queue.size(), 2);
  study.undo();
  study.undo();
  assert.equal(queue.size(), 0);
  assert.equal(study.current.id, "a");
  server.offline = false;
  await queue.replay(true);
  assert.deepEqual(server.requests, []);
});

test("the counts after an undo are those before the rating", async () => {
  const { study, view, server, queue } = await session();
  rate(study, 1); // a new card's Again comes back within minutes: a learning step
  assert.deepEqual(view.counts, { new: 19, learning: 1, review: 0, done: 1 });
  server.counts = { new: 19, learning: 1, review: 0 };
  await queue.replay(true);
  assert.deepEqual(view.counts, { new: 19, learning: 1, review: 0, done: 1 });
  study.undo();
  assert.deepEqual(view.counts, { new: 20, learning: 0, review: 0, done: 0 });
});

test("a rating days away takes the card out of the counts", async () => {
  const { study, view } = await session({ offline: true });
  rate(study, 4);
  assert.deepEqual(view.counts, { new: 19, learning: 0, review: 0, done: 1 });
});

test("the server's counts are taken only once nothing waits to be sent", async () => {
  const { study, view, server, queue } = await session();
  server.counts = { new: 7, learning: 7, review: 7 };
  rate(study, 4);
  rate(study, 4);
  const painted = [];
  queue.subscribe((event) => { if (event.type === "ack") painted.push(Object.assign({}, view.counts)); });
  await queue.replay(true);
  assert.deepEqual(painted[0], { new: 18, learning: 0, review: 0, done: 2 }, "one rating still waits");
  assert.deepEqual(view.counts, { new: 7, learning: 7, review: 7, done: 2 });
});

test("a suspension leaves the session, and Z replays the server's own undo descriptor", async () => {
  const { study, view, server, queue } = await session({ cards: [card("a", "review"), card("b"), card("c")], counts: { new: 20, learning: 0, review: 1 } });
  study.act("suspend");
  assert.equal(study.current.id, "b");
  assert.deepEqual(view.counts, { new: 20, learning: 0, review: 0, done: 0 });
  await queue.replay(true);
  study.undo();
  assert.equal(study.current.id, "a");
  assert.deepEqual(view.counts, { new: 20, learning: 0, review: 1, done: 0 });
  await queue.replay(true);
  assert.deepEqual(server.requests.map((r) => r.path), ["/api/cards/a/suspend", "/api/cards/a/unsuspend"]);
});

test("a flag undone before its answer came waits for the descriptor the answer brings", async () => {
  const { study, server, queue } = await session();
  study.reveal();
  study.act("flag", 3);
  assert.equal(study.current.flag, 3);
  study.undo(); // not yet sent: taken back
  assert.equal(study.current.flag, 0);
  study.act("flag", 5);
  await queue.replay(true);
  study.undo();
  await queue.replay(true);
  assert.deepEqual(server.requests.map((r) => [r.path, r.body]), [
    ["/api/cards/a/flag", { flag: 5 }],
    ["/api/cards/a/unflag", {}],
  ]);
});

test("ratings made offline are all sent once, in order, when the network returns", async () => {
  const { study, server, queue } = await session({ offline: true });
  rate(study);
  rate(study);
  rate(study);
  await queue.replay(true);
  assert.equal(queue.state.status, "offline");
  server.offline = false;
  await queue.replay(true);
  await queue.replay(true);
  assert.deepEqual(server.requests.map((r) => r.body.card_id), ["a", "b", "c"]);
});

test("the cards excluded from an answer are those held and those rated after it", async () => {
  const { study, queue } = await session({ offline: true });
  rate(study, 4);
  rate(study, 4);
  const [first, second] = queue.entries();
  assert.deepEqual(study.exclude(first).sort(), ["b", "c"]);
  assert.deepEqual(study.exclude(second).sort(), ["c"]);
});

test("learning steps made offline come back in the order they fall due, sent with their versions", async () => {
  const { study, view, server, queue, clock } = await session({ offline: true });
  rate(study, 1); // a: again in a minute
  rate(study, 3); // b: again in ten
  rate(study, 4); // c: days away; nothing else is held
  assert.equal(study.current.id, "a", "the step due soonest, shown early");
  clock.advance(60_000);
  rate(study, 3); // a again: ten minutes on
  assert.equal(study.current.id, "b");
  clock.advance(600_000);
  rate(study, 4);
  assert.equal(study.current.id, "a");
  rate(study, 4);
  assert.equal(study.current, null);
  assert.deepEqual(view.counts, { new: 17, learning: 0, review: 0, done: 6 });
  server.offline = false;
  await queue.replay(true);
  assert.deepEqual(server.requests.map((r) => [r.body.card_id, r.body.rating, r.body.version]), [
    ["a", 1, 0],
    ["b", 3, 0],
    ["c", 4, 0],
    ["a", 3, 1],
    ["b", 4, 1],
    ["a", 4, 2],
  ]);
  const times = server.requests.map((r) => Date.parse(r.body.reviewed_at));
  assert.deepEqual(times, times.slice().sort((x, y) => x - y), "each at the time it was made");
});

test("an undo takes the learning step its rating made back with it", async () => {
  const { study } = await session({ offline: true });
  rate(study, 1);
  study.undo();
  assert.equal(study.current.id, "a");
  assert.equal(study.buffer.filter((held) => held.id === "a").length, 0);
});

test("a page opened offline studies on from the cards an earlier page kept", async () => {
  const local = fakeStorage();
  const first = await session({ pack: createPack(local, "me", {}) });
  rate(first.study, 4);
  assert.equal(first.study.current.id, "b");
  // Offline, a copy of the page from before that rating: its card a, and its old counts.
  const again = await session({ pack: createPack(local, "me", {}), cards: [card("a")], offline: true, pageAt: 0 });
  assert.equal(again.study.current.id, "b");
  assert.deepEqual(again.view.counts, { new: 19, learning: 0, review: 0, done: 1 });
  rate(again.study, 4);
  assert.equal(again.study.current.id, "c");
});

test("a page newer than the cards kept is the server's word: a card rated before is shown", async () => {
  const local = fakeStorage();
  const first = await session({ pack: createPack(local, "me", {}) });
  rate(first.study, 1);
  // Later, online: the server's page shows card a again, due as a learning step.
  const later = await session({ pack: createPack(local, "me", {}), cards: [card("a", "learning")], pageAt: Date.now() * 2, counts: { new: 19, learning: 1, review: 0 } });
  assert.equal(later.study.current.id, "a");
  assert.deepEqual(later.view.counts, { new: 19, learning: 1, review: 0, done: 0 });
});

test("a card the server took a rating for after it rendered the page is not shown again", async () => {
  // A reload while the last page's rating was on its way: the page came first, the answer after.
  const { study, view } = await session({ acked: ["a"] });
  assert.equal(study.current.id, "b");
  assert.deepEqual(view.shown.filter((id) => id === "a"), []);
  rate(study, 3);
  assert.equal(study.current.id, "c");
});

test("taking the day along holds the server's whole list, however long, and asks for no more", async () => {
  const counts = { new: 80, learning: 0, review: 0 };
  const day = Array.from({ length: 80 }, (_, i) => card("d" + i, "new", { counts }));
  const storage = fakeStorage();
  const pack = createPack(storage, "1", {});
  const { study, view, server, asked } = await session({ cards: [day[0]], counts, day, pack });
  // The ratings' answers carry the next card as the server picks it: one the page holds.
  server.next.push(...day.slice(50, 60));
  const before = asked.next;
  assert.equal(await study.takeAlong(), 80, "the card shown and the 79 beyond it, each once");
  assert.deepEqual(study.held(), day.map((c) => c.id));
  assert.equal(pack.read(0).cards.length, 79, "kept on the device for a page opened offline");
  for (let i = 0; i < 10; i++) rate(study);
  await settle();
  assert.equal(asked.next, before, "the page holds the day: no top-up asks for more");
  assert.equal(view.counts.new, 70);
});

test("taking the day along offline keeps what is held", async () => {
  const { study, asked } = await session({ offline: true });
  assert.equal(await study.takeAlong(), 3);
  assert.equal(asked.day, 1);
});
