// Painting the study page: cards from the JSON API filled into the page's card template (the
// server's own partials, templates/study.html) ahead of time and swapped in; the counts, the
// save status and notices. It keeps no study state: static/study-state.js says what to show.

import { frontOf, kindOf, sourceLink } from "./card-parts.js";
import * as trail from "./undo-trail.js";

export function afterPaint(work) {
  // Network work waits until the frame with the new card is on screen.
  requestAnimationFrame(() => setTimeout(work, 0));
}

// Every part of a card this view fills is found by its `data-slot`, never by its classes.
function slotted(name) { return '[data-slot="' + name + '"]'; }

function slot(root, name) { return root.querySelector(slotted(name)); }

export function createView({ strings, scope, first }) {
  const cardNode = document.getElementById("card");
  const metaNode = slot(cardNode, "meta");
  const questionNode = slot(cardNode, "question_html");
  const frontNode = slot(cardNode, "front_html");
  const answerNode = document.getElementById("answer-side");
  const revealRow = document.getElementById("reveal-row");
  const revealLink = document.getElementById("reveal");
  const rateForm = document.getElementById("rate-form");
  const undoForm = document.getElementById("undo-form");
  const statusNode = document.getElementById("sync-status");
  const noticeNode = document.getElementById("study-notice");
  const progressNode = document.getElementById("study-progress");
  const template = document.getElementById("card-template").content;
  const leechModel = slot(template, "unleech");
  // The card the server rendered into the page, kept to be shown again after an undo.
  const pageParts = first ? {
    meta: metaNode.cloneNode(true),
    question: questionNode.cloneNode(true),
    front: frontNode.cloneNode(true),
    answer: answerNode.cloneNode(true),
  } : null;

  let scrolled = window.scrollY > 0;
  window.addEventListener("scroll", () => { scrolled = window.scrollY > 0; }, { passive: true });

  function t(key, values) {
    let text = strings[key] || key;
    for (const name in values || {}) text = text.replace("{" + name + "}", values[name]);
    return text;
  }

  function studyUrl(extra) {
    const params = new URLSearchParams(scope);
    for (const name in extra || {}) params.set(name, extra[name]);
    const query = params.toString();
    return "/study" + (query ? "?" + query : "");
  }

  // ---- filling the template --------------------------------------------------------------------
  // The template is the server's partials rendered with every optional part present; each part
  // this file fills carries a `data-slot` naming it. Card HTML was made and sanitised at import.

  function fillMeta(meta, card) {
    const deck = slot(meta, "deck");
    deck.href = "/decks/" + encodeURIComponent(card.deck);
    deck.textContent = card.deck_title;
    slot(meta, "section").textContent = card.section ? "\u00a0› " + card.section : "";
    const badge = slot(meta, "queue");
    badge.className = "badge " + card.queue;
    badge.textContent = t("queue." + card.queue);
    slot(meta, "permalink").href = "/cards/" + encodeURIComponent(card.id);
    fillSource(slot(meta, "source"), card);
  }

  // The note and line a card comes from, linking to the note's read-only page at that line.
  function fillSource(link, card) {
    if (!link) return;
    const source = sourceLink(card);
    link.hidden = !source;
    if (!source) return;
    link.href = source.href;
    link.textContent = source.text;
  }

  // The list items of `part`, one for each of `items`, from the template's models of them: a
  // model is the item holding the slot the filler asks for.
  function fillList(part, items, fill) {
    if (!items.length) { part.remove(); return; }
    const models = Array.from(part.querySelectorAll("li"));
    const list = models[0].parentNode;
    const model = (name) => models.find((item) => item.matches(slotted(name)) || slot(item, name)).cloneNode(true);
    for (const item of items) list.append(fill(item, model));
    for (const item of models) item.remove();
  }

  function fillAnswer(answer, card) {
    const section = slot(answer, "answer");
    slot(section, "answer_html").innerHTML = card.answer_html;
    for (const name of ["followups", "pitfalls"]) {
      const box = slot(section, name);
      if (card[name + "_html"]) slot(box, name + "_html").innerHTML = card[name + "_html"];
      else box.remove();
    }
    fillList(slot(section, "followup-questions"), card.followups, (followup, model) => {
      const item = model("followup");
      item.id = "followup-" + followup.id;
      slot(item, "followup-question").innerHTML = followup.question_html;
      slot(item, "followup-answer").innerHTML = followup.answer_html;
      return item;
    });
    const reading = slot(section, "reading");
    reading.setAttribute("aria-labelledby", "reading-" + card.id);
    slot(reading, "reading-title").id = "reading-" + card.id;
    fillList(reading, card.links, (link, model) => {
      const kind = !link.url ? "link-unresolved" : /^https?:/i.test(link.url) ? "link-external" : "link-topic";
      const item = model(kind);
      const title = slot(item, kind);
      if (link.url) {
        title.href = link.url;
        title.textContent = link.title;
      } else {
        title.textContent = link.title + title.textContent; // the template's text is the " (no such topic)"
      }
      return item;
    });
  }

  function fillActions(actions, card) {
    const base = "/cards/" + encodeURIComponent(card.id) + "/";
    actions.dataset.cardId = card.id;
    for (const form of actions.querySelectorAll("form")) {
      form.action = base + form.getAttribute("action").split("/").pop();
    }
    paintMarksIn(actions, card);
  }

  function paintMarksIn(actions, card) {
    for (const button of actions.querySelectorAll("button[data-flag]")) {
      const value = parseInt(button.dataset.flag, 10);
      button.value = String(card.flag === value ? 0 : value);
      button.setAttribute("aria-pressed", card.flag === value ? "true" : "false");
    }
    const leech = slot(actions, "unleech");
    if (leech && !card.leech) leech.remove();
    if (!leech && card.leech) {
      const form = leechModel.cloneNode(true);
      form.action = "/cards/" + encodeURIComponent(card.id) + "/unleech";
      actions.append(form);
    }
  }

  // A card's parts, built ahead of time so that showing it only swaps nodes in.
  function prepare(card) {
    if (card.parts) return card.parts;
    if (!("question_html" in card)) {
      // The page's own card: its markup is the server's, as rendered into the page.
      const answer = pageParts.answer.cloneNode(true);
      const actions = slot(answer, "actions");
      if (actions) paintMarksIn(actions, card);
      card.parts = {
        meta: Array.from(pageParts.meta.cloneNode(true).childNodes),
        question: Array.from(pageParts.question.cloneNode(true).childNodes),
        front: Array.from(pageParts.front.cloneNode(true).childNodes),
        answer: Array.from(answer.childNodes),
      };
      return card.parts;
    }
    const parts = template.cloneNode(true);
    const meta = slot(parts, "meta");
    const question = slot(parts, "question_html");
    const front = slot(parts, "front_html");
    const answer = slot(parts, "answer-parts");
    fillMeta(meta, card);
    question.innerHTML = card.question_html;
    // A cloze card asks with its block, its own deletions blank; the heading names it.
    front.innerHTML = frontOf(card);
    fillAnswer(answer, card);
    fillActions(slot(answer, "actions"), card);
    card.parts = {
      meta: Array.from(meta.childNodes),
      question: Array.from(question.childNodes),
      front: Array.from(front.childNodes),
      answer: Array.from(answer.childNodes),
    };
    return card.parts;
  }

  // Show `card` question side up, or say that cards are on their way when it is null.
  function showCard(card) {
    cardNode.dataset.revealed = "false";
    answerNode.hidden = true;
    rateForm.hidden = true;
    if (!card) {
      cardNode.dataset.cardId = "";
      metaNode.replaceChildren();
      cardNode.dataset.kind = "basic";
      frontNode.replaceChildren();
      frontNode.hidden = true;
      questionNode.textContent = t("study.waiting_for_cards");
      answerNode.replaceChildren();
      revealRow.hidden = true;
      return;
    }
    const parts = prepare(card);
    card.parts = null; // nodes live in one place: shown again (after an undo), it is rebuilt
    metaNode.replaceChildren(...parts.meta);
    questionNode.replaceChildren(...parts.question);
    frontNode.replaceChildren(...parts.front);
    frontNode.hidden = parts.front.length === 0;
    cardNode.dataset.kind = kindOf(card);
    answerNode.replaceChildren(...parts.answer);
    for (const interval of card.intervals) {
      const label = slot(rateForm.querySelector('button[data-key="' + interval.rating + '"]'), "interval");
      if (label) label.textContent = interval.label;
    }
    rateForm.elements.card_id.value = card.id;
    rateForm.elements.version.value = card.version === null ? "" : String(card.version);
    revealLink.href = studyUrl({ reveal: "1", card: card.id });
    revealRow.hidden = false;
    cardNode.dataset.cardId = card.id; // set last: the card is complete once its id changes
    // Bring it into view and focus its reveal link. Reading the scroll position or moving focus
    // would lay the page out before the frame does; both wait for the frame.
    if (scrolled) window.scrollTo(0, 0);
    afterPaint(() => {
      if (cardNode.dataset.cardId === card.id && cardNode.dataset.revealed !== "true") revealLink.focus({ preventScroll: true });
    });
  }

  function revealAnswer() {
    answerNode.hidden = false;
    revealRow.hidden = true;
    rateForm.hidden = false;
    cardNode.dataset.revealed = "true";
    const good = rateForm.querySelector('button[data-key="3"]');
    if (good) good.focus({ preventScroll: true });
  }

  function paintMarks(card) {
    const shown = document.getElementById("card-actions");
    if (shown) paintMarksIn(shown, card);
  }

  function paintCounts(counts, done) {
    if (!counts) return;
    for (const queue of ["new", "learning", "review"]) {
      const shown = document.getElementById("count-" + queue);
      if (shown) shown.textContent = String(counts[queue]);
    }
    if (progressNode) {
      const remaining = counts.new + counts.learning + counts.review;
      progressNode.max = done + remaining;
      progressNode.value = done;
    }
  }

  let noticeTimer = null;
  function notice(key, values) {
    noticeNode.textContent = t(key, values);
    noticeNode.hidden = false;
    clearTimeout(noticeTimer);
    noticeTimer = setTimeout(() => { noticeNode.hidden = true; }, 6000);
  }

  let savedTimer = null;
  let savingTimer = null;
  function paintStatus(state) {
    const n = state.waiting;
    statusNode.dataset.state = state.status;
    clearTimeout(savingTimer);
    if (state.status === "offline") statusNode.textContent = t("study.offline", { n });
    else if (state.status === "retrying") statusNode.textContent = t("study.retrying", { n });
    else if (state.status === "signed_out") statusNode.textContent = t("study.signed_out", { n });
    else if (state.status === "sending") {
      // Only a slow save is worth a word; a quick one would just flicker.
      savingTimer = setTimeout(() => { statusNode.textContent = t("study.saving"); }, 700);
    } else if (statusNode.textContent) {
      statusNode.textContent = t("study.saved");
      clearTimeout(savedTimer);
      savedTimer = setTimeout(() => { if (statusNode.dataset.state === "idle") statusNode.textContent = ""; }, 2000);
    }
  }

  // The steps Z takes back beyond this page, as a page without script would take them back:
  // a rating by the server's undo form, a card action by the form of the server's undo
  // descriptor (a leech put back has no form, so it stays on this page).
  const earlier = trail.read();
  function saveTrail(history) {
    const steps = [];
    for (const step of history) {
      if (step.kind === "rate") steps.push({ type: "rating" });
      else if (step.undo && !/\/leech$/.test(step.undo.path)) {
        steps.push({
          type: "action",
          form: step.undo.path.replace(/^\/api\/cards\//, "/cards/"),
          fields: step.undo.body || {},
          back: studyUrl({ card: step.card.id }),
        });
      }
    }
    trail.write(earlier.concat(steps));
  }

  function undoEarlier() {
    if (!trail.undoEarlier(undoForm)) undoForm.submit();
  }

  function finish() { window.location.assign(studyUrl()); }

  // How many cards the page holds ahead once a top-up is done: what it can study on from
  // offline (and what a test waits for instead of a quiet network).
  function paintAhead(count) { document.body.dataset.ahead = String(count); }

  return { t, studyUrl, prepare, showCard, revealAnswer, paintMarks, paintCounts, notice, paintStatus, paintAhead, saveTrail, undoEarlier, finish, afterPaint };
}
