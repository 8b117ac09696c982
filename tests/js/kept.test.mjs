// What a page does for a session that has ended: static/kept.js.
import assert from "node:assert/strict";
import { test } from "node:test";

import { forgetOthersPacks, sessionEnded } from "../../static/kept.js";
import { createPack } from "../../static/study-pack.js";
import { fakeStorage } from "./fakes.mjs";

function packed(storage, learner) {
  const pack = createPack(storage, learner, {});
  pack.keep({ id: "c1" }, 1);
  pack.note({ new: 1 }, 0, 1, 10, []);
}

test("a page of nobody deletes every member's cards taken along, and only those", () => {
  const storage = fakeStorage();
  packed(storage, "7");
  packed(storage, "9");
  storage.setItem("qbank.outbox.7.0001", "{}");
  assert.equal(forgetOthersPacks(storage, ""), 4);
  assert.deepEqual([...Array(storage.length).keys()].map(storage.key), ["qbank.outbox.7.0001"], "her unsent actions stay hers");
});

test("a member's page keeps her own cards and deletes the others'", () => {
  const storage = fakeStorage();
  packed(storage, "7");
  packed(storage, "70");
  forgetOthersPacks(storage, "7");
  assert.equal(createPack(storage, "7", {}).read(2).cards.length, 1);
  assert.equal(createPack(storage, "70", {}).read(2), null);
});

test("storage switched off is no error", () => {
  const off = { get length() { throw new Error("SecurityError"); } };
  assert.equal(forgetOthersPacks(off, ""), 0);
});

test("the service worker in control is told the session ended", () => {
  const sent = [];
  sessionEnded({ controller: { postMessage: (data) => sent.push(data) } });
  sessionEnded({ controller: null });
  sessionEnded(undefined);
  assert.deepEqual(sent, [{ type: "session-ended" }]);
});
