// What Z takes back beyond one page. The study page keeps its ratings and card actions here,
// newest last, for this tab only, so the "done" page it ends on (and the study page after a
// reload) undoes them in the order they were made: a card action goes as its plain form post,
// back to the study page showing that card; a rating is the undo form's, as without script.
const KEY = "qbank.undo-trail";
const MAX = 100;
const TTL_MS = 12 * 3600 * 1000; // older steps belong to another sitting

function learner() { return document.body ? document.body.dataset.learner || "" : ""; }

export function read() {
  try {
    const saved = JSON.parse(sessionStorage.getItem(KEY) || "null");
    if (!saved || saved.learner !== learner() || Date.now() - saved.at > TTL_MS) return [];
    return Array.isArray(saved.items) ? saved.items : [];
  } catch (error) {
    return [];
  }
}

export function write(items) {
  try {
    sessionStorage.setItem(KEY, JSON.stringify({ at: Date.now(), learner: learner(), items: items.slice(-MAX) }));
  } catch (error) {
    // Storage off or full: Z still undoes ratings through the server.
  }
}

// Take the newest earlier step off the trail. A card action is sent at once as a form post
// (true); for a rating, or with nothing left, the caller's undo form does the rest (false).
export function undoEarlier(undoForm) {
  const items = read();
  const last = items.pop();
  if (!last) return false;
  write(items);
  if (last.type !== "action") return false;
  const form = document.createElement("form");
  form.method = "post";
  form.action = last.form;
  form.hidden = true;
  const fields = Object.assign({}, last.fields, { next: last.back });
  const csrf = undoForm && undoForm.querySelector("input[name=csrf_token]");
  if (csrf) fields.csrf_token = csrf.value;
  for (const name in fields) {
    const input = document.createElement("input");
    input.type = "hidden";
    input.name = name;
    input.value = String(fields[name]);
    form.append(input);
  }
  document.body.append(form);
  form.submit();
  return true;
}

