// The service worker: an installed qbank opens without a network. The server puts SHELL
// ({version, urls}) before this file (app/web/routes/offline.py): every page's styles, scripts,
// KaTeX's fonts and the icons under today's versioned URLs, kept when the worker installs.
// Pages are fetched from the network and a copy kept; offline the copy is shown, and the study
// page studies on from the cards it took along (static/study-pack.js). The JSON API is never
// answered from here: the outbox must see a failed request to keep its entry.
/* global SHELL */

const SHELL_CACHE = "qbank-shell-" + SHELL.version;
const PAGES_CACHE = "qbank-pages";
const PAGES_KEPT = 40;

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    await (await caches.open(SHELL_CACHE)).addAll(SHELL.urls);
    // The start page, so that an installed qbank opens offline even before it was studied.
    try {
      const response = await fetch("/study", { credentials: "same-origin" });
      if (response.ok && !response.redirected) await (await caches.open(PAGES_CACHE)).put("/study", response);
    } catch (error) { /* offline now: the page is kept when next opened */ }
    await self.skipWaiting();
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith("qbank-shell-") && name !== SHELL_CACHE) await caches.delete(name);
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

async function page(request, url) {
  const cache = await caches.open(PAGES_CACHE);
  try {
    const response = await fetch(request);
    const html = (response.headers.get("content-type") || "").startsWith("text/html");
    if (response.ok && html && !response.redirected) {
      await cache.put(request, response.clone());
      const kept = await cache.keys();
      for (const old of kept.slice(0, Math.max(0, kept.length - PAGES_KEPT))) await cache.delete(old);
    }
    return response;
  } catch (error) {
    // Offline: this page as last seen, else the study page, which studies on from its pack.
    const kept = (await cache.match(request)) || (await cache.match(url.pathname, { ignoreSearch: true })) || (await cache.match("/study", { ignoreSearch: true }));
    if (kept) return kept;
    throw error;
  }
}
