// Stores for static/queue.js. JSON entries (ratings, card actions, answers) go to localStorage,
// which every browser has and which reads back synchronously when a page opens; recordings are
// Blobs of up to 8 MB, which localStorage cannot hold, so they go to IndexedDB, which keeps
// Blobs as they are. Both keep what the queue pushed through a reload or a closed tab.

// One key per entry under `prefix` (a learner's own), the value the entry's data as JSON.
export function localStore(storage, prefix, events = null) {
  function at(id) {
    const time = parseInt(id.slice(0, 15), 10);
    return Number.isFinite(time) ? time : 0;
  }
  return {
    async load() {
      const found = [];
      for (let i = 0; i < storage.length; i++) {
        const key = storage.key(i);
        if (!key || !key.startsWith(prefix)) continue;
        const id = key.slice(prefix.length);
        try {
          found.push({ id, at: at(id), data: JSON.parse(storage.getItem(key)) });
        } catch (error) {
          storage.removeItem(key); // unreadable: it could never be sent
        }
      }
      return found;
    },
    async put(entry) {
      try {
        storage.setItem(prefix + entry.id, JSON.stringify(entry.data));
        return true;
      } catch (error) {
        return false; // full or refused: the queue still holds it for this page
      }
    },
    async remove(id) { storage.removeItem(prefix + id); },
    watch(onChange) {
      if (!events) return;
      events.addEventListener("storage", (event) => {
        if (!event.key || event.key.startsWith(prefix)) onChange();
      });
    },
  };
}

// Entries in one IndexedDB object store, those `mine(entry)` says belong here. Where IndexedDB
// cannot be opened (some private modes) or refuses a write, entries live in this page's memory
// and put() says so (false), so the page can warn that a reload would lose them.
export function idbStore(indexedDB, { name, store, mine = () => true }) {
  const memory = new Map();
  let opened = null;

  function open() {
    if (!opened) {
      opened = new Promise((resolve) => {
        let request;
        try {
          request = indexedDB.open(name, 1);
        } catch (error) {
          resolve(null);
          return;
        }
        request.onupgradeneeded = () => { request.result.createObjectStore(store, { keyPath: "id" }); };
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => resolve(null);
      });
    }
    return opened;
  }

  function transaction(db, mode, work) {
    return new Promise((resolve, reject) => {
      const tx = db.transaction(store, mode);
      const request = work(tx.objectStore(store));
      tx.oncomplete = () => resolve(request.result);
      tx.onerror = tx.onabort = () => reject(tx.error);
    });
  }

  return {
    async load() {
      const db = await open();
      let stored = [];
      if (db) {
        try { stored = await transaction(db, "readonly", (os) => os.getAll()); } catch (error) { stored = []; }
      }
      const found = new Map();
      for (let entry of stored.concat(Array.from(memory.values()))) {
        if (entry && !entry.data) entry = { id: entry.id, at: entry.at, data: entry }; // kept before entries had data
        if (entry && mine(entry)) found.set(entry.id, entry);
      }
      return Array.from(found.values());
    },
    async put(entry) {
      const db = await open();
      if (db) {
        try {
          await transaction(db, "readwrite", (os) => os.put(entry));
          return true;
        } catch (error) { /* full or refused: this page keeps it */ }
      }
      memory.set(entry.id, entry);
      return false;
    },
    async remove(id) {
      memory.delete(id);
      const db = await open();
      if (db) {
        try { await transaction(db, "readwrite", (os) => os.delete(id)); } catch (error) { /* gone already */ }
      }
    },
  };
}

// Entries in memory only: for tests, and for a page whose storage is switched off.
export function memoryStore(initial = []) {
  const held = new Map(initial.map((entry) => [entry.id, entry]));
  return {
    held,
    async load() { return Array.from(held.values()); },
    async put(entry) { held.set(entry.id, entry); return true; },
    async remove(id) { held.delete(id); },
  };
}
