// Fakes for the client's unit tests: a clock, timers run by hand, a store and a server.
import { memoryStore } from "../../static/stores.js";

export function fakeClock(start = 1_700_000_000_000) {
  let now = start;
  const clock = () => now;
  clock.advance = (ms) => { now += ms; };
  return clock;
}

// setTimeout/clearTimeout whose callbacks run only when the test says so.
export function fakeTimers() {
  const pending = new Map();
  let next = 1;
  return {
    pending,
    setTimeout(fn, delay) { const id = next++; pending.set(id, { fn, delay }); return id; },
    clearTimeout(id) { pending.delete(id); },
    delays() { return Array.from(pending.values()).map((timer) => timer.delay); },
    async fire() {
      const due = Array.from(pending.entries());
      pending.clear();
      for (const [, timer] of due) await timer.fn();
    },
  };
}

// A store that remembers every write, and can be told to refuse them.
export function recordingStore(initial = []) {
  const store = memoryStore(initial);
  store.refuse = false;
  const put = store.put;
  store.put = async (entry) => (store.refuse ? false : put(entry));
  return store;
}

// A server answering each request with `answer(request)` (an outcome object), or offline.
export function fakeServer(answer = () => ({ outcome: "done", data: {} })) {
  const server = { offline: false, sent: [] };
  server.send = async (request, entry) => {
    if (server.offline) return { outcome: "offline" };
    server.sent.push(request);
    return answer(request, entry);
  };
  return server;
}

// Let queued promise callbacks run.
export async function settle() {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

// The Web Storage interface over a Map.
export function fakeStorage() {
  const held = new Map();
  return {
    get length() { return held.size; },
    key: (i) => Array.from(held.keys())[i],
    getItem: (key) => (held.has(key) ? held.get(key) : null),
    setItem: (key, value) => held.set(key, String(value)),
    removeItem: (key) => held.delete(key),
  };
}

// The Cache Storage API (caches.open, has, keys, delete, match) over Maps, for static/sw.js.
export function fakeCaches(origin) {
  const named = new Map();
  function urlOf(request) {
    return new URL(typeof request === "string" ? request : request.url, origin);
  }
  function same(a, b, ignoreSearch) {
    return ignoreSearch ? a.origin + a.pathname === b.origin + b.pathname : a.href === b.href;
  }
  function cache() {
    const held = new Map();
    return {
      held,
      async match(request, { ignoreSearch = false } = {}) {
        const wanted = urlOf(request);
        for (const [url, response] of held) if (same(new URL(url), wanted, ignoreSearch)) return response.clone();
        return undefined;
      },
      async put(request, response) { held.set(urlOf(request).href, response.clone()); },
      async addAll(requests) { if (requests.length) throw new Error("the fake fetches nothing"); },
      async keys() { return Array.from(held.keys(), (url) => ({ url })); },
      async delete(request) { return held.delete(urlOf(request).href); },
    };
  }
  return {
    named,
    async open(name) {
      if (!named.has(name)) named.set(name, cache());
      return named.get(name);
    },
    async has(name) { return named.has(name); },
    async keys() { return Array.from(named.keys()); },
    async delete(name) { return named.delete(name); },
    // The URLs each cache holds, for assertions: {name: [path, …]}.
    paths() {
      const found = {};
      for (const [name, held] of named) found[name] = Array.from(held.held.keys(), (url) => new URL(url).pathname);
      return found;
    },
  };
}
