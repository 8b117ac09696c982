// What this device keeps of a member, bound to her session (see static/sw.js): the service worker
// keeps her pages, localStorage the cards she took along (static/study-pack.js). When a page's
// request shows her session gone (the API answers 401) the worker is told, and deletes her
// pages; a page opened by anyone else, or by nobody (the sign-in page), deletes the cards that
// others took along. Her outbox stays: it holds actions not yet sent, which go out under her
// name only, when she signs in again (static/outbox.js).

const PACK_PREFIX = "qbank.pack.";

// Tell the service worker that the session is gone; without one in control there is nothing kept.
export function sessionEnded(container) {
  const worker = container && container.controller;
  if (worker) worker.postMessage({ type: "session-ended" });
}

// Delete the cards taken along by anyone but `learner` ("" for nobody); how many keys went.
export function forgetOthersPacks(storage, learner) {
  const own = PACK_PREFIX + learner + ".";
  const others = [];
  try {
    for (let i = 0; i < storage.length; i++) {
      const key = storage.key(i);
      if (key && key.startsWith(PACK_PREFIX) && (!learner || !key.startsWith(own))) others.push(key);
    }
    for (const key of others) storage.removeItem(key);
  } catch (error) {
    return 0; // storage switched off: nothing was kept either
  }
  return others.length;
}
