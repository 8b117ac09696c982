// The study page as a client of the JSON API: the session's state (static/study-state.js), its
// painting (static/study-paint.js) and the outbox (static/outbox.js), wired to the keys and
// forms. Without JavaScript the same page works as links and forms.

import { sessionEnded } from "./kept.js";
import { ackedSince, outbox, keep, sync } from "./outbox.js";
import { createView } from "./study-paint.js";
import { createPack } from "./study-pack.js";
import { StudySession } from "./study-state.js";
import { FLAG_KEYS, RATING_KEYS } from "./names.js";

const initial = JSON.parse(document.getElementById("study-state").textContent);
const scope = initial.scope || {};
const view = createView({ strings: initial.strings, scope, first: initial.current });

async function fetchNext(exclude) {
  const params = new URLSearchParams(scope);
  for (const id of exclude.slice(0, 50)) params.append("exclude", id);
  const response = await fetch("/api/study/next?" + params, { credentials: "same-origin", headers: { Accept: "application/json" } });
  if (response.status === 401) sessionEnded(navigator.serviceWorker);
  if (response.status === 204 || !response.ok) return { status: response.status, card: null };
  return { status: response.status, card: await response.json() };
}

// The day's whole queue in the scope, however long: one answer, not a page per card.
async function fetchDay() {
  const response = await fetch("/api/study/day?" + new URLSearchParams(scope), { credentials: "same-origin", headers: { Accept: "application/json" } });
  if (response.status === 401) sessionEnded(navigator.serviceWorker);
  return response.ok ? await response.json() : [];
}

const rateForm = document.getElementById("rate-form");
await outbox.ready();
// When this page was asked for: a rating the server took after it is not in the page's cards.
const navigation = performance.getEntriesByType("navigation")[0];
const requestedAt = performance.timeOrigin + (navigation ? navigation.requestStart : 0);
const session = new StudySession({
  queue: outbox,
  keep,
  view,
  current: initial.current,
  counts: initial.counts,
  done: initial.done,
  // A page opened revealed (?reveal=1) shows its answer already.
  revealed: document.getElementById("card").dataset.revealed === "true",
  scope,
  fetchNext,
  fetchDay,
  pack: createPack(localStorage, document.body.dataset.learner || "anonymous", scope),
  pageAt: parseInt(rateForm.elements.shown_at.value, 10) || 0,
  clock: () => Date.now(),
  tab: Math.random().toString(36).slice(2),
  acked: ackedSince(requestedAt),
});
sync.setExclude((entry) => session.exclude(entry));

const revealLink = document.getElementById("reveal");
const undoForm = document.getElementById("undo-form");
const answerNode = document.getElementById("answer-side");

revealLink.addEventListener("click", (event) => { event.preventDefault(); session.reveal(); });
rateForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const rating = event.submitter && parseInt(event.submitter.value, 10);
  if (rating) session.rate(rating);
});
undoForm.addEventListener("submit", (event) => { event.preventDefault(); session.undo(); });
answerNode.addEventListener("submit", (event) => {
  const button = event.submitter;
  if (!button || !button.dataset.action) return;
  event.preventDefault();
  session.act(button.dataset.action, button.dataset.flag ? parseInt(button.dataset.flag, 10) : 0);
});

document.addEventListener("keydown", (event) => {
  if (event.ctrlKey && !event.metaKey && !event.altKey && FLAG_KEYS.includes(event.key) && session.current) {
    event.preventDefault();
    session.act("flag", parseInt(event.key, 10));
    return;
  }
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const target = event.target;
  if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.tagName === "SELECT")) return;
  const key = event.key;
  if ((key === " " || key === "Enter") && session.current && !session.revealed) {
    event.preventDefault();
    session.reveal();
  } else if (RATING_KEYS.includes(key) && session.revealed) {
    event.preventDefault();
    if (!event.repeat) session.rate(parseInt(key, 10));
  } else if ((key === "@" || key === "-") && session.current && !event.repeat) {
    event.preventDefault();
    session.act(key === "@" ? "suspend" : "bury");
  } else if ((key === "z" || key === "Z") && !event.repeat) {
    event.preventDefault();
    session.undo();
  }
});

// Cards shown later may need KaTeX's fonts: fetch them while there is a connection.
if (document.fonts) {
  for (const face of ["1em KaTeX_Main", "italic 1em KaTeX_Math", "1em KaTeX_Size1", "1em KaTeX_Size2", "1em KaTeX_AMS"]) {
    document.fonts.load(face).catch(() => {});
  }
}
// "Take today's cards with you": the day's queue kept on this device, for studying offline.
const takeAlong = document.getElementById("take-along");
takeAlong.hidden = false;
takeAlong.addEventListener("click", async () => {
  takeAlong.disabled = true;
  const held = await session.takeAlong();
  takeAlong.disabled = false;
  // In team mode the device may be shared: the notice says how long the cards stay here.
  view.notice(takeAlong.hasAttribute("data-shared") ? "study.taken_along_shared" : "study.taken_along", { n: held });
});

session.start();
