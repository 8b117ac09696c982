// Progressive enhancement for practice: keys, instant reveal, timer.
// Every action also works without this file, as links and form posts.
import { RATING_KEYS } from "./names.js";
import { undoEarlier } from "./undo-trail.js";
import { forgetOthersPacks } from "./kept.js";

function enhance() {
  // The study page has its own client (static/study.js); this file serves practice and cards.
  if (document.getElementById("study-state")) return;
  const card = document.getElementById("card");
  const answer = document.getElementById("answer-side");
  const revealRow = document.getElementById("reveal-row");
  const rateForm = document.getElementById("rate-form");
  const undoForm = document.getElementById("undo-form");
  let submitted = false;

  function revealed() { return !!answer && !answer.hidden; }

  function reveal() {
    if (!answer || revealed()) return;
    answer.hidden = false;
    if (revealRow) revealRow.hidden = true;
    if (rateForm) rateForm.hidden = false;
    card.dataset.revealed = "true";
    const first = rateForm && rateForm.querySelector('button[data-key="3"]');
    if (first) first.focus({ preventScroll: true });
    stopTimer();
  }

  function rate(value) {
    if (!rateForm || !revealed() || submitted) return;
    const button = rateForm.querySelector('button[data-key="' + value + '"]');
    if (!button) return;
    submitted = true;  // one submission per card, even with key repeat or double clicks
    const duration = rateForm.querySelector('input[name="duration_ms"]');
    if (duration) duration.value = String(Math.round(performance.now() - shownAt));
    rateForm.requestSubmit(button);
  }

  const shownAt = performance.now();
  // On the done page, Z first takes back the study page's last steps, card actions included.
  if (undoForm) undoForm.addEventListener("submit", function (event) {
    if (undoEarlier(undoForm)) event.preventDefault();
  });
  if (rateForm) rateForm.addEventListener("submit", function (event) {
    if (submitted && event.submitter === undefined) event.preventDefault();
    submitted = true;
  });

  const revealLink = document.getElementById("reveal");
  if (revealLink) revealLink.addEventListener("click", function (event) { event.preventDefault(); reveal(); });

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.tagName === "SELECT")) return;
    if (!card && !undoForm) return;
    const key = event.key;
    if ((key === " " || key === "Enter") && card && !revealed()) {
      event.preventDefault();
      reveal();
    } else if (RATING_KEYS.includes(key) && revealed()) {
      event.preventDefault();
      rate(key);
    } else if ((key === "z" || key === "Z") && undoForm) {
      event.preventDefault();
      undoForm.requestSubmit();
    }
  });

  // Practice countdown: purely a prompt to answer aloud in time; the answer stays hidden until asked.
  const timer = document.getElementById("timer");
  let interval = null;
  function stopTimer() { if (interval) { clearInterval(interval); interval = null; } if (timer) timer.hidden = true; }
  if (timer) {
    const total = parseInt(timer.dataset.seconds, 10);
    const shown = timer.querySelector("b");
    const started = Date.now();
    interval = setInterval(function () {
      const left = Math.max(0, total - Math.floor((Date.now() - started) / 1000));
      shown.textContent = Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0");
      timer.classList.toggle("low", left <= 10);
      if (left === 0) {
        clearInterval(interval);
        interval = null;
        const up = document.getElementById("time-up");
        if (up) up.hidden = false;
      }
    }, 250);
  }
}

// The header's "More" menu closes on Escape and on a tap anywhere else, as menus do.
function closeMenus() {
  const more = document.querySelector("header.top .nav-more");
  if (!more) return;
  document.addEventListener("click", (event) => { if (more.open && !more.contains(event.target)) more.open = false; });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && more.open) {
      more.open = false;
      more.querySelector("summary").focus();
    }
  });
}

// Cards taken along by a member whose session is not this page's go (static/kept.js).
function forgetOthers() {
  const body = document.body;
  if (body.dataset.session === "none") forgetOthersPacks(localStorage, "");
  else if (body.dataset.learner) forgetOthersPacks(localStorage, body.dataset.learner);
}

enhance();
closeMenus();
forgetOthers();
// Said on the page once its keys and forms are enhanced: a key pressed before then does what
// it does without this file (nothing), which a test or a tool driving the page must wait out.
document.body.dataset.enhanced = "true";
// The app shell kept for offline use (static/sw.js); a browser without workers just goes online.
if ("serviceWorker" in navigator) navigator.serviceWorker.register("/sw.js").catch(() => {});
