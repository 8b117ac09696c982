// The mock interview's state over the real queue and a fake server, view and recorder:
// static/interview-state.js.
import assert from "node:assert/strict";
import { test } from "node:test";

import { MockInterview, countdown, keyAction, mmss, suggested } from "../../static/interview-state.js";
import { Queue } from "../../static/queue.js";
import { createStudySync } from "../../static/study-sync.js";
import { fakeClock, fakeServer, fakeStorage, fakeTimers, recordingStore, settle } from "./fakes.mjs";

const MOCK = 7;
const LIMIT_MS = 120_000;
const ANSWERED = "qbank.mock.ann.7.answered";

function question(id, position, extra = {}) {
  return Object.assign({ id, phase: "question", position, t0: 1_000, total: 0, recorded: false, followups: [] }, extra);
}

// A page: the questions it holds for later, and what the state asked it to show.
function fakeView(later = []) {
  const view = { later: later.slice(), mounted: [], phases: [], clock: null, followupClock: null, stoppedAt: null, coverage: null, status: { state: null, key: null }, recordStatus: null, button: {}, finished: false, left: null, focused: 0, checked: { said: 0, count: 3 } };
  view.paintClock = (face) => { view.clock = face; };
  view.paintFollowupClock = (index, face) => { view.followupClock = Object.assign({ index }, face); };
  view.startClock = () => { view.stoppedAt = null; };
  view.stopClock = (t1) => { view.stoppedAt = t1; };
  view.mount = (shown) => view.mounted.push(shown.id);
  view.showPhase = (phase) => view.phases.push(phase);
  view.nextQuestion = (skip) => {
    while (view.later.length) {
      const next = view.later.shift();
      if (!skip.has(next.id)) return next;
    }
    return null;
  };
  view.coverage = () => view.checked;
  view.paintCoverage = (said, count, rating) => { view.coverage_ = { said, count, rating }; };
  view.focusChecklist = () => { view.focused += 1; };
  view.paintSyncState = (state) => { view.status.state = state; };
  view.paintStatus = (key, values) => { view.status.key = key; view.status.values = values; };
  view.paintRecordButton = (change) => Object.assign(view.button, change);
  view.paintRecordStatus = (key, values) => { view.recordStatus = key && Object.assign({ key }, values); };
  view.finishing = () => { view.finished = true; };
  view.leave = (url) => { view.left = url; };
  view.afterPaint = (work) => work();
  return view;
}

// The microphone: a recording starts when the test says the browser granted it.
function fakeRecorder({ remembered = false } = {}) {
  const recorder = { recording: null, asked: [], remembered: () => remembered };
  recorder.active = () => recorder.recording !== null;
  recorder.start = (hooks) => { recorder.asked.push(hooks); };
  recorder.grant = () => {
    const hooks = recorder.asked.shift();
    if (!hooks.stillWanted()) return false;
    recorder.recording = hooks;
    hooks.started();
    return true;
  };
  recorder.stop = () => {
    const hooks = recorder.recording;
    recorder.recording = null;
    return hooks.stopped({ size: 2048 });
  };
  return recorder;
}

function fakeRecordings() {
  const listeners = [];
  const uploads = { added: [], waiting: 0 };
  return {
    uploads,
    on: (listener) => listeners.push(listener),
    emit: (...args) => listeners.forEach((listener) => listener(...args)),
    add: async (mock, card, blob) => { uploads.added.push({ mock, card, size: blob.size }); },
    waiting: async () => uploads.waiting,
  };
}

async function setup({ later = [], served = { elapsed: 0, running: true }, first = question("a", 0), answer, storage = fakeStorage(), recorder = null, recordings = null } = {}) {
  const server = fakeServer(answer);
  const sync = createStudySync();
  const queue = new Queue({ store: recordingStore(), send: server.send, prepare: (entry) => sync.prepare(entry), clock: fakeClock(), timers: fakeTimers() });
  await queue.ready();
  let keys = 0;
  const keep = (data) => queue.push(Object.assign({ key: "k" + ++keys }, data));
  const view = fakeView(later);
  const now = fakeClock(0);
  const wall = fakeClock(5_000_000);
  const timers = fakeTimers();
  const mock = new MockInterview({ mock: MOCK, limitMs: LIMIT_MS, learner: "ann", queue, keep, storage, view, recordings, recorder, summary: "/interview/mock/7/summary", resume: "/interview/mock/7", now, wallClock: wall, timers });
  mock.start(first, served);
  await settle();
  return { mock, view, queue, server, now, wall, timers, storage };
}

const FIELDS = { key: "k-a", said: [0, 2], followups_answered: ["0", "0"], rating: 0, count_as_review: true };

test("the clocks read as the page shows them", () => {
  assert.equal(mmss(75_400), "1:15");
  assert.deepEqual(countdown(-3_000), { text: "+0:03", over: true, low: false });
  assert.deepEqual(countdown(9_000), { text: "0:09", over: false, low: true });
  assert.deepEqual(countdown(60_000), { text: "1:00", over: false, low: false });
});

test("the checklist suggests a rating as the server would", () => {
  assert.equal(suggested(1, 3, false), 1);
  assert.equal(suggested(2, 3, false), 2);
  assert.equal(suggested(5, 6, false), 3);
  assert.equal(suggested(3, 3, false), 4);
  assert.equal(suggested(3, 3, true), 3); // over time: at most Good
  assert.equal(suggested(0, 0, false), 4); // a question without key points
});

test("keys do what the phase on screen allows", () => {
  assert.equal(keyAction("r", "question", true), "record");
  assert.equal(keyAction("R", "answer", true), null);
  assert.equal(keyAction("r", "question", false), null);
  assert.equal(keyAction(" ", "question", true), "done");
  assert.equal(keyAction("Enter", "f1", true), "next");
  assert.equal(keyAction("3", "answer", true), "point");
  assert.equal(keyAction("Enter", "answer", true), "submit");
  assert.equal(keyAction("3", "question", true), null);
});

test("the main clock runs from the server's time and stops when the answer ends", async () => {
  const { mock, view, now } = await setup({ served: { elapsed: 30_000, running: true } });
  now.advance(20_000);
  mock.tick();
  assert.deepEqual(view.clock, { text: "1:10", over: false, low: false });
  mock.show("answer");
  assert.equal(view.stoppedAt, 1_000 + 50_000); // t0 + the answer's 50 s, for the form
  assert.deepEqual(view.phases.slice(-1), ["answer"]);
  now.advance(90_000);
  mock.tick();
  assert.deepEqual(view.clock, { text: "0:50", over: false, low: false }); // frozen at the answer
  assert.equal(view.focused, 1);
});

test("an answer over its time shows how far over, then the time it took in red", async () => {
  const { mock, view, now } = await setup();
  view.checked = { said: 3, count: 3 };
  now.advance(LIMIT_MS + 5_000);
  mock.tick();
  assert.deepEqual(view.clock, { text: "+0:05", over: true, low: false });
  mock.show("answer");
  assert.deepEqual(view.clock, { text: "2:05", over: true, low: false });
  assert.equal(view.coverage_.rating, 3); // everything said, but over time
});

test("each follow-up has its own clock", async () => {
  const { mock, view, now } = await setup({ first: question("a", 0, { followups: [30_000, 45_000] }) });
  mock.show("f1");
  now.advance(40_000);
  mock.tick();
  assert.deepEqual(view.followupClock, { index: 1, text: "0:05", over: false, low: true });
});

test("an answer is kept before the next question shows and sent once", async () => {
  const second = question("b", 1);
  const { mock, view, queue, server, now, storage } = await setup({ later: [second] });
  now.advance(40_000);
  mock.show("answer");
  now.advance(10_000);
  const body = mock.answer(FIELDS);
  assert.deepEqual(body, { card_id: "a", key: "k-a", said: [0, 2], followups_answered: 1, answer_ms: 40_000, total_ms: 50_000, rating: null, count_as_review: true });
  assert.deepEqual(view.mounted, ["a", "b"]);
  assert.equal(second.t0, 5_000_000); // a later question's clock starts when it shows
  assert.deepEqual(JSON.parse(storage.getItem(ANSWERED)), ["a"]);
  await settle();
  assert.deepEqual(server.sent.map((request) => [request.url, JSON.parse(request.init.body).card_id, request.init.headers["Idempotency-Key"]]), [["/api/mocks/7/answers", "a", "k1"]]);
  assert.equal(queue.entries().length, 0);
});

test("questions answered on this device are not asked again after a reload", async () => {
  const storage = fakeStorage();
  storage.setItem(ANSWERED, JSON.stringify(["a", "b"]));
  const { view } = await setup({ storage, later: [question("b", 1), question("c", 2)] });
  assert.deepEqual(view.mounted, ["c"]);
});

test("after the last answer the report opens once everything is delivered", async () => {
  const recordings = fakeRecordings();
  recordings.uploads.waiting = 1;
  const { mock, view, storage } = await setup({ recordings });
  mock.answer(FIELDS);
  assert.equal(view.finished, true);
  await settle();
  assert.equal(view.left, null); // a recording is still on its way
  recordings.uploads.waiting = 0;
  recordings.emit("saved", { mock: "7", card: "a" }, { size: 4096 });
  await settle();
  assert.equal(view.left, "/interview/mock/7/summary");
  assert.equal(storage.getItem(ANSWERED), null);
});

test("an answer the server refuses is asked again at the end, its times and rating kept", async () => {
  const { mock, view, wall } = await setup({ answer: () => ({ outcome: "rejected", status: 409, data: null }) });
  wall.advance(1_000);
  mock.answer(Object.assign({}, FIELDS, { rating: 3 }));
  await settle();
  const url = new URL(view.left, "http://qbank.test");
  assert.equal(url.pathname, "/interview/mock/7");
  assert.deepEqual(Object.fromEntries(url.searchParams), { phase: "answer", t0: "5001000", t1: "5001000", rating: "3", changed: "true" });
});

test("the status line says when answers wait, and only a slow save", async () => {
  const { mock, view, server, timers, queue } = await setup({ later: [question("b", 1)] });
  server.offline = true;
  mock.answer(FIELDS);
  await settle();
  assert.equal(view.status.state, "offline");
  assert.deepEqual([view.status.key, view.status.values], ["mock.sync_offline", { n: 1 }]);
  server.offline = false;
  await queue.replay(true);
  await settle();
  assert.equal(view.status.key, "study.saved");
  await timers.fire();
  assert.equal(view.status.key, null);
});

test("a recording starts with each question once the learner has recorded, and ends with the answer", async () => {
  const recorder = fakeRecorder({ remembered: true });
  const recordings = fakeRecordings();
  const { mock, view } = await setup({ recorder, recordings, later: [question("b", 1)] });
  assert.equal(recorder.grant(), true);
  assert.deepEqual([view.button.pressed, view.recordStatus.key], [true, "mock.recording"]);
  mock.show("answer");
  assert.equal(mock.stopping, 1);
  await settle();
  assert.equal(mock.stopping, 0);
  assert.deepEqual(recordings.uploads.added, [{ mock: "7", card: "a", size: 2048 }]);
  assert.deepEqual([view.button.pressed, view.button.enabled], [false, false]);
  recordings.emit("saved", { mock: "7", card: "a" }, { size: 2048 });
  assert.deepEqual(view.recordStatus, { key: "mock.recorded", kb: 2 });
  mock.answer(FIELDS);
  assert.equal(recorder.asked.length, 1); // the next question asks for the microphone too
});

test("a microphone granted after the question moved on records nothing", async () => {
  const recorder = fakeRecorder();
  const { mock } = await setup({ recorder, later: [question("b", 1)] });
  mock.toggleRecording();
  mock.show("answer");
  assert.equal(recorder.grant(), false);
  assert.equal(recorder.active(), false);
});
