// The requests the outbox sends for study entries, prepared from each stored entry as it goes
// out, never by rewriting what is stored: a rating made after an undo takes the version the
// undo's answer returned, and the undo of a card action replays the server's own undo
// descriptor from that action's answer. Entries:
//   {type: "rate", card_id, rating, version, after_undo, duration_ms, scope, key}, made at its entry's `at`
//   {type: "undo", card_id, key}: the server undoes its last rating of the card
//   {type: "action", path, body, scope?, key}: a card action, or any other JSON post
//   {type: "undo-action", of, undo?, card_id, scope, key}: put back what action entry `of` did

export function createStudySync({ csrf = () => "" } = {}) {
  const versions = new Map(); // card id -> version the server last answered with
  const undos = new Map(); // action entry id -> the server's undo descriptor
  let exclude = () => [];

  function url(path, data, entry) {
    if (!data.scope) return path;
    const params = new URLSearchParams(data.scope);
    for (const id of exclude(entry).slice(0, 50)) params.append("exclude", id);
    const query = params.toString();
    return path + (query ? "?" + query : "");
  }

  function post(path, body, key) {
    return {
      url: path,
      init: {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json", "Idempotency-Key": key, "X-CSRF-Token": csrf() },
        body: JSON.stringify(body),
      },
    };
  }

  // The request for `entry`, or null when there is nothing to send (an undone action that the
  // server refused has nothing to put back).
  function prepare(entry) {
    const data = entry.data;
    if (data.type === "undo") return post("/api/reviews/undo", { card_id: data.card_id }, data.key);
    if (data.type === "undo-action") {
      const undo = data.undo || undos.get(data.of);
      if (!undo) return null;
      return post(url(undo.path, data, entry), undo.body || {}, data.key);
    }
    if (data.type === "action") return post(url(data.path, data, entry), data.body || {}, data.key);
    let version = data.version;
    if (data.after_undo) version = versions.has(data.card_id) ? versions.get(data.card_id) : null;
    // The time it was made, which the server records (a rating kept offline arrives later).
    const body = { card_id: data.card_id, rating: data.rating, duration_ms: data.duration_ms, version, reviewed_at: new Date(entry.at).toISOString() };
    return post(url("/api/reviews", data, entry), body, data.key);
  }

  // Remember what an answer says that later requests need.
  function acknowledge(entry, answer) {
    if (!answer) return;
    const type = entry.data.type;
    if ((type === "rate" || type === "undo") && "version" in answer) versions.set(answer.card_id, answer.version);
    if (type === "action" && answer.undo) undos.set(entry.id, answer.undo);
  }

  return {
    prepare,
    acknowledge,
    versions,
    undos,
    // Cards the server must not hand out in the answer to `entry` (those the page holds).
    setExclude(fn) { exclude = fn; },
  };
}
