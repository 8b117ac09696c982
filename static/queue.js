// A queue of requests that must reach the server once each, in order, in the shape of Workbox's
// background-sync Queue: entries are kept in a store before anything is sent, replayed oldest
// first one at a time, a failed attempt is put back at the head and retried with backoff, and an
// entry older than the retention limit is dropped instead of sent. Unlike Workbox it runs in the
// page, so the page can take back an entry not yet sent and see every answer, and it keeps its
// sync state as plain data the page paints.
//
// A store holds entries ({id, at, data}) and has three methods, each returning a promise:
// load() -> entries in any order, put(entry) -> true when it outlives the page, remove(id).
// It may also have watch(onChange), called when another tab changed what it holds.

const MAX_DELAY_MS = 30000;
const DAY_MS = 86400000;

let counter = 0;

// Sortable and unique across tabs: the time, then a per-page counter and a random suffix.
export function stamp(now, random = Math.random) {
  counter += 1;
  return String(now).padStart(15, "0") + "." + String(counter).padStart(6, "0") + "." + random().toString(36).slice(2, 8);
}

function byAge(a, b) {
  if (a.at !== b.at) return a.at - b.at;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

// Why an attempt did not deliver, as the sync state the page shows.
export const WAITING = ["offline", "retrying", "signed_out"];

export class Queue {
  // `send(request, entry)` makes one attempt and resolves to {outcome, data, status}: outcome
  // "done" (answered), "rejected" (refused for good) or one of WAITING (try again later).
  // `prepare(entry)` turns a stored entry into the request to send, or null when there is
  // nothing left to send for it; it never changes the entry.
  constructor({ store, send, prepare = (entry) => entry.data, retentionMs = 7 * DAY_MS, clock = () => Date.now(), random = Math.random, timers = globalThis, online = () => true }) {
    this.store = store;
    // While the device says it is offline nothing is attempted: an entry stays takeable, and
    // the page replays when the `online` event comes.
    this.online = online;
    this.sendRequest = send;
    this.prepare = prepare;
    this.retentionMs = retentionMs;
    this.clock = clock;
    this.random = random;
    this.timers = timers;
    this.list = [];
    this.listeners = [];
    this.state = { status: "idle", waiting: 0, inFlight: null, durable: true };
    this.attempt = 0;
    this.timer = null;
    this.replaying = false;
    this.loaded = null;
    this.writing = new Set();
    if (store.watch) store.watch(() => this.reload());
  }

  // Read what the store holds (once); every other method works on the copy in memory.
  ready() {
    if (!this.loaded) this.loaded = this.reload();
    return this.loaded;
  }

  async reload() {
    const stored = await this.store.load();
    // The entry on its way and those still being written stay, whatever the store says now.
    const kept = this.list.filter((entry) => entry.id === this.state.inFlight || this.writing.has(entry.id));
    const ids = new Set(stored.map((entry) => entry.id));
    this.list = stored.concat(kept.filter((entry) => !ids.has(entry.id))).sort(byAge);
    this.setState({ waiting: this.list.length });
    this.emit({ type: "change" });
  }

  subscribe(listener) {
    this.listeners.push(listener);
    return () => { this.listeners = this.listeners.filter((other) => other !== listener); };
  }

  emit(event) {
    for (const listener of this.listeners.slice()) listener(event);
  }

  setState(change) {
    const next = Object.assign({}, this.state, change);
    if (Object.keys(next).every((key) => next[key] === this.state[key])) return;
    this.state = next;
    this.emit({ type: "state", state: next });
  }

  // The entries waiting, oldest first (the one on its way included). Do not change them.
  entries() { return this.list; }

  size() { return this.list.length; }

  has(id) { return this.list.some((entry) => entry.id === id); }

  // Keep `data` and return its entry id at once; the store's write finishes in the background.
  // An `id` given replaces the entry of that id (a question's recording made again).
  push(data, { id } = {}) {
    const at = this.clock();
    const entry = { id: id || stamp(at, this.random), at, data };
    this.list = this.list.filter((other) => other.id !== entry.id || other.id === this.state.inFlight);
    this.list.push(entry);
    this.setState({ waiting: this.list.length });
    this.emit({ type: "change" });
    this.writing.add(entry.id);
    this.saving = Promise.resolve(this.store.put(entry)).then((durable) => {
      this.writing.delete(entry.id);
      if (durable === false) this.setState({ durable: false });
      return durable !== false;
    });
    return entry.id;
  }

  // Take back an entry not yet sent; false when it is on its way or gone.
  take(id) {
    if (this.state.inFlight === id || !this.has(id)) return false;
    this.drop(id);
    return true;
  }

  drop(id) {
    this.list = this.list.filter((entry) => entry.id !== id);
    this.store.remove(id);
    this.setState({ waiting: this.list.length });
    this.emit({ type: "change" });
  }

  // Send what is waiting, oldest first; `soon` starts at once, forgetting earlier failures.
  async replay(soon = false) {
    if (soon) {
      this.timers.clearTimeout(this.timer);
      this.timer = null;
      this.attempt = 0;
    }
    if (this.replaying) return;
    this.replaying = true;
    try {
      await this.ready();
      for (;;) {
        const entry = this.list[0];
        if (!entry) {
          this.setState({ status: "idle" });
          this.emit({ type: "drained" });
          return;
        }
        if (this.clock() - entry.at > this.retentionMs) {
          this.drop(entry.id);
          this.emit({ type: "expired", entry });
          continue;
        }
        if (!this.online()) {
          this.setState({ status: "offline" });
          return;
        }
        const request = this.prepare(entry);
        if (request === null) {
          this.drop(entry.id);
          continue;
        }
        this.setState({ status: "sending", inFlight: entry.id });
        let result;
        try {
          result = await this.sendRequest(request, entry);
        } catch (error) {
          result = { outcome: "retrying" };
        }
        this.setState({ inFlight: null });
        if (WAITING.includes(result.outcome)) {
          // Put back: the entry stays first, and everything behind it waits with it.
          this.setState({ status: result.outcome });
          this.schedule();
          return;
        }
        this.attempt = 0;
        if (this.has(entry.id)) this.drop(entry.id);
        if (result.outcome === "done") this.emit({ type: "ack", entry, data: result.data });
        else this.emit({ type: "rejected", entry, status: result.status, data: result.data });
      }
    } finally {
      this.replaying = false;
    }
  }

  // Exponential backoff with jitter, so a returning server is not hit by every tab at once.
  delay() {
    return Math.min(MAX_DELAY_MS, 500 * 2 ** Math.min(this.attempt, 6)) * (0.75 + this.random() / 2);
  }

  schedule() {
    this.timers.clearTimeout(this.timer);
    const delay = this.delay();
    this.attempt += 1;
    this.timer = this.timers.setTimeout(() => { this.timer = null; return this.replay(); }, delay);
  }
}
