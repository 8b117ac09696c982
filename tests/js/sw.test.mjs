// The service worker (static/sw.js) over fake caches, a fake network and a clock: which pages
// it keeps, for whose session, and what it still shows offline.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import vm from "node:vm";

import { fakeCaches, fakeClock } from "./fakes.mjs";

const ORIGIN = "https://qbank.test";
const SOURCE = readFileSync(new URL("../../static/sw.js", import.meta.url), "utf8");
const HOUR = 3600 * 1000;

// A page as the server sends it, saying whose it is (the Qbank-Session header), if anyone's.
function html(session, { status = 200, body = "<p>page</p>" } = {}) {
  const headers = { "Content-Type": "text/html; charset=utf-8" };
  if (session !== undefined) headers["Qbank-Session"] = session;
  return new Response(body, { status, headers });
}

// The worker loaded as a browser would load it; `network.answer(path)` answers its requests,
// and with `network.offline` every request fails as fetch does.
function worker(answer = () => html("local")) {
  const clock = fakeClock();
  const caches = fakeCaches(ORIGIN);
  const handlers = {};
  // `failures`: how many requests fail before the network answers again.
  const network = { offline: false, failures: 0, answer, asked: [] };
  const context = {
    SHELL: { version: "v1", urls: [] },
    self: {
      location: { origin: ORIGIN },
      addEventListener: (type, handler) => { handlers[type] = handler; },
      skipWaiting: async () => {},
      clients: { claim: async () => {} },
    },
    caches,
    fetch: async (request) => {
      if (network.failures > 0) {
        network.failures -= 1;
        throw new TypeError("Failed to fetch");
      }
      if (network.offline) throw new TypeError("Failed to fetch");
      const url = new URL(typeof request === "string" ? request : request.url, ORIGIN);
      network.asked.push(url.pathname + url.search);
      return network.answer(url.pathname + url.search);
    },
    Request: class { constructor(url) { this.url = new URL(url, ORIGIN).href; this.method = "GET"; } },
    Response,
    URL,
    Date: { now: clock },
    Promise,
    // The worker's pause before it tries a navigation again, without the wait.
    setTimeout: (resolve) => resolve(),
    JSON,
    parseInt,
  };
  vm.createContext(context);
  vm.runInContext(SOURCE, context);

  async function lifecycle(type) {
    const waits = [];
    handlers[type]({ waitUntil: (promise) => waits.push(promise) });
    await Promise.all(waits);
  }
  return {
    clock,
    caches,
    network,
    install: () => lifecycle("install"),
    activate: () => lifecycle("activate"),
    // A navigation to `path`: the Response shown, or the error the browser would show.
    async open(path) {
      let answered = null;
      handlers.fetch({ request: { method: "GET", mode: "navigate", url: ORIGIN + path }, respondWith: (promise) => { answered = promise; } });
      assert.ok(answered, "the worker answers navigations");
      return answered;
    },
    async shows(path) {
      try {
        return await (await this.open(path)).text();
      } catch (error) {
        return null;
      }
    },
    async message(data) {
      const waits = [];
      handlers.message({ data, waitUntil: (promise) => waits.push(promise) });
      await Promise.all(waits);
    },
    pageCaches() {
      return Object.keys(caches.paths()).filter((name) => name.startsWith("qbank-pages"));
    },
  };
}

test("local mode: pages are kept and shown offline, however long after", async () => {
  const sw = worker((path) => html("local", { body: "local " + path }));
  assert.equal(await sw.shows("/stats"), "local /stats");
  sw.network.offline = true;
  sw.clock.advance(30 * 24 * HOUR);
  assert.equal(await sw.shows("/stats"), "local /stats");
  assert.equal(await sw.shows("/settings"), null, "never opened, and not the study page either");
});

test("a navigation that fails once is tried again before the kept page is shown", async () => {
  let visits = 0;
  const sw = worker((path) => html("local", { body: `${path} #${++visits}` }));
  assert.equal(await sw.shows("/study"), "/study #1");
  sw.network.failures = 1;
  assert.equal(await sw.shows("/study"), "/study #2", "the live page, not the morning's copy");
  sw.network.failures = 2;
  assert.equal(await sw.shows("/study"), "/study #2", "down twice: the copy kept");
});

test("a member's pages are shown offline only until the time her page gave", async () => {
  const sw = worker((path) => html("s1; max-age=7200", { body: "hers " + path }));
  await sw.open("/study");
  await sw.open("/account");
  sw.network.offline = true;
  assert.equal(await sw.shows("/account"), "hers /account");
  assert.equal(await sw.shows("/stats"), "hers /study", "the study page stands in for the rest");
  sw.clock.advance(2 * HOUR - 1);
  assert.equal(await sw.shows("/account"), "hers /account");
  sw.clock.advance(1);
  assert.equal(await sw.shows("/account"), null);
  assert.deepEqual(sw.pageCaches(), [], "deleted, not only hidden");
  assert.ok(!(await sw.caches.has("qbank-session")));
});

test("each page online moves the time on", async () => {
  const sw = worker(() => html("s1; max-age=3600"));
  await sw.open("/study");
  sw.clock.advance(HOUR / 2);
  await sw.open("/stats");
  sw.network.offline = true;
  sw.clock.advance(HOUR - 1);
  assert.notEqual(await sw.shows("/stats"), null);
});

for (const [how, ended] of [
  ["the sign-in page says nobody is signed in", html("none", { body: "sign in" })],
  ["a page answers 401", html(undefined, { status: 401 })],
]) {
  test(`the session seen gone online (${how}) deletes every page kept for it`, async () => {
    let gone = false;
    const sw = worker((path) => (gone ? ended.clone() : html("s1; max-age=7200", { body: "hers " + path })));
    await sw.open("/study");
    await sw.open("/account");
    gone = true;
    await sw.open("/stats");
    assert.deepEqual(sw.pageCaches(), []);
    sw.network.offline = true;
    assert.equal(await sw.shows("/account"), null);
    assert.equal(await sw.shows("/study"), null);
  });
}

test("a page's script that saw a 401 has the worker delete the pages", async () => {
  const sw = worker(() => html("s1; max-age=7200"));
  await sw.open("/study");
  await sw.message({ type: "session-ended" });
  sw.network.offline = true;
  assert.equal(await sw.shows("/study"), null);
  assert.deepEqual(sw.pageCaches(), []);
});

test("another session's page deletes the pages of the one before", async () => {
  let session = "ana; max-age=7200";
  const sw = worker((path) => html(session, { body: session.split(";")[0] + " " + path }));
  await sw.open("/account");
  session = "ben; max-age=7200";
  await sw.open("/study");
  assert.deepEqual(sw.pageCaches(), ["qbank-pages-ben"]);
  sw.network.offline = true;
  assert.equal(await sw.shows("/account"), "ben /study", "Ana's account page is gone");
});

test("a response that names no session changes nothing and is not kept", async () => {
  let named = true;
  const sw = worker((path) => (named ? html("s1; max-age=7200", { body: "hers " + path }) : html(undefined, { body: "proxy error" })));
  await sw.open("/study");
  named = false;
  assert.equal(await sw.shows("/stats"), "proxy error");
  sw.network.offline = true;
  assert.equal(await sw.shows("/stats"), "hers /study");
});

test("a session given no time keeps nothing it can show", async () => {
  const sw = worker(() => html("s1; max-age=0"));
  await sw.open("/study");
  sw.network.offline = true;
  assert.equal(await sw.shows("/study"), null);
  assert.deepEqual(sw.pageCaches(), []);
});

test("installing keeps the start page for the session it finds", async () => {
  const sw = worker((path) => html("s1; max-age=7200", { body: "hers " + path }));
  await sw.install();
  assert.deepEqual(sw.network.asked, ["/study"]);
  sw.network.offline = true;
  assert.equal(await sw.shows("/study"), "hers /study");
});

test("pages kept before sessions were named are deleted when the worker takes over", async () => {
  const sw = worker();
  await (await sw.caches.open("qbank-pages")).put("/study", html(undefined, { body: "whose?" }));
  await sw.activate();
  assert.deepEqual(sw.pageCaches(), []);
});

test("a malformed session name is not trusted as a cache name", async () => {
  const sw = worker(() => html("../x; max-age=60"));
  await sw.open("/study");
  assert.deepEqual(sw.pageCaches(), []);
});
