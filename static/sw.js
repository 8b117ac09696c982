// The service worker: an installed qbank opens without a network. The server puts SHELL
// ({version, urls}) before this file (app/web/routes/offline.py): every page's styles, scripts,
// KaTeX's fonts and the icons under today's versioned URLs, kept when the worker installs.
// Pages are fetched from the network and a copy kept; offline the copy is shown, and the study
// page studies on from the cards it took along (static/study-pack.js). The JSON API is never
// answered from here: the outbox must see a failed request to keep its entry.
//
// A shared device: every page says whose it is (the Qbank-Session header, app/web/templating.py):
// "local" in local mode, "none" when nobody is signed in, else an opaque id of the member's
// session and how many seconds its pages may be kept (at most to the end of her study day).
// Pages are kept per session, and offline only the current session's are shown, until then.
// Whatever shows the session gone (a page saying "none", a 401 a page reports, the time up)
// deletes every page kept for it; a page of another session deletes the one before.
/* global SHELL */

const SHELL_CACHE = "qbank-shell-" + SHELL.version;
const PAGES_PREFIX = "qbank-pages"; // "qbank-pages-<session>", and "qbank-pages" before sessions
const PAGES_KEPT = 40;
// The device's current session, {id, until}: until is this device's time in ms, or null.
const SESSION_CACHE = "qbank-session";
const SESSION_KEY = "/sw/session";

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    await (await caches.open(SHELL_CACHE)).addAll(SHELL.urls);
    // The start page, so that an installed qbank opens offline even before it was studied.
    try {
      const response = await fetch("/study", { credentials: "same-origin" });
      await inTurn(() => keep(new Request("/study"), response));
    } catch (error) { /* offline now: the page is kept when next opened */ }
    await self.skipWaiting();
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith("qbank-shell-") && name !== SHELL_CACHE) await caches.delete(name);
      // Pages kept before they were kept per session: whose they are is not known.
      if (name === PAGES_PREFIX) await caches.delete(name);
    }
    await self.clients.claim();
  })());
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (url.pathname.startsWith("/static/v/")) event.respondWith(asset(request, url));
  else if (request.mode === "navigate") event.respondWith(page(request, url));
});

// A page's script saw the session gone (a 401 from the API, static/kept.js).
self.addEventListener("message", (event) => {
  if (event.data && event.data.type === "session-ended") event.waitUntil(inTurn(() => forget(null)));
});

// Versioned files never change: from the cache, else the network. A page kept from before an
// upgrade asks for its own version's URLs, answered with today's file, as the server does.
async function asset(request, url) {
  const cache = await caches.open(SHELL_CACHE);
  const today = url.pathname.replace(/^\/static\/v\/[^/]+\//, "/static/v/" + SHELL.version + "/");
  const hit = (await cache.match(request)) || (await cache.match(today));
  if (hit) return hit;
  const response = await fetch(request);
  if (response.ok) cache.put(request, response.clone());
  return response;
}

// How long a failed navigation waits before it is tried once more.
const RETRY_MS = 250;

async function page(request, url) {
  let response;
  try {
    response = await fetchOnceMore(request);
  } catch (error) {
    // Offline: this page as last seen, else the study page, which studies on from its pack;
    // only the current session's, and only until its time is up.
    const session = await inTurn(() => current(Date.now()));
    const kept = session && await keptPage(PAGES_PREFIX + "-" + session.id, request, url);
    if (kept) return kept;
    throw error;
  }
  // A copy not kept (storage full) still leaves the page to show.
  await inTurn(() => keep(request, response)).catch(() => {});
  return response;
}

// The network often comes back a moment after the page saw it back (a phone between networks):
// a page kept from the morning would show cards already rated, so a failed navigation is tried
// once more before the kept copy is shown.
async function fetchOnceMore(request) {
  try {
    return await fetch(request);
  } catch (error) {
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    return fetch(request);
  }
}

async function keptPage(cacheName, request, url) {
  if (!(await caches.has(cacheName))) return null;
  const cache = await caches.open(cacheName);
  return (await cache.match(request)) || (await cache.match(url.pathname, { ignoreSearch: true })) || (await cache.match("/study", { ignoreSearch: true })) || null;
}

// What `response` says of the device's session: "none", {id, until}, or null (nothing).
function sessionOf(response, now) {
  if (response.status === 401) return "none";
  const header = response.headers.get("Qbank-Session");
  if (!header) return null;
  const [id, ...params] = header.split(";").map((part) => part.trim());
  if (id === "none") return "none";
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(id)) return null;
  let until = null;
  for (const param of params) {
    const seconds = /^max-age=(\d+)$/.exec(param);
    if (seconds) until = now + parseInt(seconds[1], 10) * 1000;
  }
  return { id, until };
}

// Note whose page `response` is, and keep a copy if it is one to keep.
async function keep(request, response) {
  const session = sessionOf(response, Date.now());
  if (session === null) return;
  if (session === "none") return forget(null);
  await forget(session.id);
  await (await caches.open(SESSION_CACHE)).put(SESSION_KEY, new Response(JSON.stringify(session), { headers: { "Content-Type": "application/json" } }));
  const html = (response.headers.get("content-type") || "").startsWith("text/html");
  if (!response.ok || !html || response.redirected) return;
  const cache = await caches.open(PAGES_PREFIX + "-" + session.id);
  await cache.put(request, response.clone());
  const kept = await cache.keys();
  for (const old of kept.slice(0, Math.max(0, kept.length - PAGES_KEPT))) await cache.delete(old);
}

// The device's current session, or null; one whose time is up is forgotten here.
async function current(now) {
  const found = await (await caches.open(SESSION_CACHE)).match(SESSION_KEY);
  let session = null;
  try { session = found ? await found.json() : null; } catch (error) { session = null; }
  if (!session || typeof session.id !== "string" || (session.until !== null && !(now < session.until))) {
    await forget(null);
    return null;
  }
  return session;
}

// Delete every page kept for a session other than `except` (all of them for null).
async function forget(except) {
  for (const name of await caches.keys()) {
    const pages = name === PAGES_PREFIX || name.startsWith(PAGES_PREFIX + "-");
    if (pages && name !== PAGES_PREFIX + "-" + except) await caches.delete(name);
  }
  if (except === null) await caches.delete(SESSION_CACHE);
}

// One change to the kept pages at a time: a page kept for a session just forgotten would
// otherwise outlive it.
let turn = Promise.resolve();
function inTurn(work) {
  const done = turn.then(work);
  turn = done.catch(() => {});
  return done;
}
