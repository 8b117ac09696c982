// The cards the study page holds, kept in localStorage so that a page opened offline (from the
// service worker's copy, static/sw.js) studies on from them: one key per card, written when the
// card arrives and removed when it is rated, so that a key press costs one removeItem; and the
// counts last shown, with the time, since the page's own may be older. "Take today's cards with
// you" keeps the whole day's queue here (GET /api/study/day).

const STALE_MS = 18 * 3600 * 1000; // cards taken along on an earlier day are due again anew

export function createPack(storage, learner, scope) {
  const prefix = "qbank.pack." + learner + "." + new URLSearchParams(scope).toString() + ".";
  const metaKey = prefix + "meta";
  const cardPrefix = prefix + "card.";

  function safely(work, fallback) {
    try { return work(); } catch (error) { return fallback; } // storage off or full
  }

  function meta() {
    return safely(() => JSON.parse(storage.getItem(metaKey)), null);
  }

  return {
    // What an earlier page left: {cards (oldest first), counts, done, at, depth, rated}, or null.
    read(now) {
      const saved = meta();
      if (!saved || now - saved.at > STALE_MS) {
        this.clear();
        return null;
      }
      const cards = [];
      for (let i = 0; i < storage.length; i++) {
        const key = storage.key(i);
        if (!key || !key.startsWith(cardPrefix)) continue;
        const card = safely(() => JSON.parse(storage.getItem(key)), null);
        if (card) cards.push(card);
      }
      cards.sort((a, b) => a.packed - b.packed);
      return Object.assign({}, saved, { cards });
    },
    keep(card, now) {
      const copy = Object.assign({}, card, { packed: now });
      delete copy.parts;
      safely(() => storage.setItem(cardPrefix + card.id, JSON.stringify(copy)));
    },
    drop(id) { safely(() => storage.removeItem(cardPrefix + id)); },
    // The counts and progress shown, the depth asked for and the cards rated today here.
    note(counts, done, now, depth, rated) {
      safely(() => storage.setItem(metaKey, JSON.stringify({ counts, done, at: now, depth, rated: rated.slice(-500) })));
    },
    clear() {
      const keys = [];
      for (let i = 0; i < storage.length; i++) {
        const key = storage.key(i);
        if (key && key.startsWith(prefix)) keys.push(key);
      }
      for (const key of keys) safely(() => storage.removeItem(key));
    },
  };
}
