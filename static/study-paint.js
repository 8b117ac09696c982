// Painting the study page: a card from the JSON API turned into DOM nodes ahead of time and
// swapped in, the card actions, the counts, the save status and notices. static/study.js drives
// it through window.qbankStudy and holds all the state; this file only reads the page's nodes.
(function () {
  "use strict";
  const stateNode = document.getElementById("study-state");
  if (!stateNode) return;
  const initial = JSON.parse(stateNode.textContent);
  const strings = initial.strings;
  const scope = initial.scope || {};

  const cardNode = document.getElementById("card");
  const metaNode = cardNode.querySelector(".card-meta");
  const questionNode = cardNode.querySelector(".question");
  const answerNode = document.getElementById("answer-side");
  const revealRow = document.getElementById("reveal-row");
  const revealLink = document.getElementById("reveal");
  const rateForm = document.getElementById("rate-form");
  const statusNode = document.getElementById("sync-status");
  const noticeNode = document.getElementById("study-notice");
  const progressNode = document.getElementById("study-progress");

  let remaining = null;
  let scrolled = window.scrollY > 0;
  window.addEventListener("scroll", function () { scrolled = window.scrollY > 0; }, { passive: true });

  function t(key, values) {
    let text = strings[key] || key;
    for (const name in values || {}) text = text.replace("{" + name + "}", values[name]);
    return text;
  }

  function studyUrl() {
    const query = new URLSearchParams(scope).toString();
    return "/study" + (query ? "?" + query : "");
  }

  function node(tag, attrs, html) {
    const made = document.createElement(tag);
    for (const name in attrs || {}) made.setAttribute(name, attrs[name]);
    if (html !== undefined) made.innerHTML = html; // card HTML was made and sanitised at import
    return made;
  }

  function details(className, summary, html) {
    const box = node("details", { class: className });
    box.append(node("summary", {}, undefined), node("div", { class: "prose" }, html));
    box.firstChild.textContent = summary;
    return box;
  }

  function answerSection(card) {
    const section = node("section", { class: "answer", "aria-label": t("card.answer") });
    section.append(node("div", { class: "prose" }, card.answer_html));
    if (card.followups.length) {
      const block = node("section", { class: "followup-questions", "aria-label": t("card.followup_questions") });
      const heading = node("h2");
      heading.textContent = t("card.followup_questions");
      const list = node("ol");
      for (const followup of card.followups) {
        const box = node("details");
        box.append(node("summary", {}, followup.question_html), node("div", { class: "prose followup-answer" }, followup.answer_html));
        const item = node("li", { id: "followup-" + followup.id });
        item.append(box);
        list.append(item);
      }
      block.append(heading, list);
      section.append(block);
    }
    if (card.followups_html) section.append(details("followups", t("card.followups"), card.followups_html));
    if (card.pitfalls_html) section.append(details("pitfalls", t("card.pitfalls"), card.pitfalls_html));
    if (card.links.length) {
      const reading = node("section", { class: "reading", "aria-labelledby": "reading-" + card.id });
      const heading = node("h3", { id: "reading-" + card.id });
      heading.textContent = t("card.reading");
      const list = node("ul");
      for (const link of card.links) {
        const item = node("li");
        if (link.url) {
          const external = /^https?:/i.test(link.url);
          const anchor = node("a", external ? { href: link.url, rel: "noopener noreferrer", class: "external" } : { href: link.url, class: "topic-link" });
          anchor.textContent = link.title;
          item.append(anchor);
        } else {
          const missing = node("span", { class: "unresolved" });
          missing.textContent = link.title + " " + t("card.unresolved");
          item.append(missing);
        }
        list.append(item);
      }
      reading.append(heading, list);
      section.append(reading);
    }
    return section;
  }

  // The card actions (suspend, bury, flags) as the server rendered them for the first card.
  const actionsTemplate = document.getElementById("card-actions");
  const actionsModel = actionsTemplate ? actionsTemplate.cloneNode(true) : null;
  if (actionsModel) actionsModel.querySelector("form[action$='/unleech']")?.remove();

  function actionsSection(card) {
    const section = actionsModel.cloneNode(true);
    const base = "/cards/" + encodeURIComponent(card.id) + "/";
    section.dataset.cardId = card.id;
    for (const form of section.querySelectorAll("form")) {
      form.action = base + form.getAttribute("action").split("/").pop();
    }
    paintFlags(section, card.flag);
    if (card.leech) {
      const form = node("form", { method: "post", action: base + "unleech", class: "inline" });
      const csrf = section.querySelector("input[name=csrf_token]");
      if (csrf) form.append(csrf.cloneNode());
      form.append(section.querySelector("input[name=next]").cloneNode());
      const badge = node("span", { class: "badge leech" });
      badge.textContent = t("marks.leech");
      const button = node("button", { type: "submit", id: "action-unleech", "data-action": "unleech" });
      button.textContent = t("marks.unleech");
      form.append(badge, " ", button);
      section.append(form);
    }
    return section;
  }

  function paintFlags(section, flag) {
    for (const button of section.querySelectorAll("button[data-flag]")) {
      const value = parseInt(button.dataset.flag, 10);
      button.value = String(flag === value ? 0 : value);
      button.setAttribute("aria-pressed", flag === value ? "true" : "false");
    }
  }

  function metaNodes(card) {
    const deck = node("a", { href: "/decks/" + encodeURIComponent(card.deck) });
    deck.textContent = card.deck_title;
    const badge = node("span", { class: "badge " + card.queue });
    badge.textContent = t("queue." + card.queue);
    const permalink = node("a", { class: "permalink", href: "/cards/" + encodeURIComponent(card.id) });
    permalink.textContent = t("card.permalink");
    return [deck].concat(card.section ? ["\u00a0› " + card.section] : [], [" ", badge, " ", permalink]);
  }

  // A card's markup, parsed ahead of time so that showing it only swaps nodes in.
  function prepare(card) {
    if (card.nodes) return card.nodes;
    const question = document.createDocumentFragment();
    question.append(node("template", {}, card.question_html).content);
    const answer = document.createDocumentFragment();
    answer.append(answerSection(card));
    if (actionsModel) answer.append(actionsSection(card));
    card.nodes = { meta: metaNodes(card), question: question, answer: answer };
    return card.nodes;
  }

  // Show `card` question side up, or say that cards are on their way when it is null.
  function paintCard(card) {
    cardNode.dataset.revealed = "false";
    answerNode.hidden = true;
    rateForm.hidden = true;
    if (!card) {
      cardNode.dataset.cardId = "";
      metaNode.replaceChildren();
      questionNode.textContent = t("study.waiting_for_cards");
      answerNode.replaceChildren();
      revealRow.hidden = true;
      return;
    }
    const nodes = prepare(card);
    card.nodes = null; // nodes live in one place: shown again (after an undo), it is rebuilt
    metaNode.replaceChildren(...nodes.meta);
    questionNode.replaceChildren(nodes.question);
    answerNode.replaceChildren(nodes.answer);
    for (const interval of card.intervals) {
      const label = rateForm.querySelector('button[data-key="' + interval.rating + '"] .interval');
      if (label) label.textContent = interval.label;
    }
    rateForm.elements.card_id.value = card.id;
    rateForm.elements.version.value = card.version === null ? "" : String(card.version);
    revealLink.href = studyUrl() + (Object.keys(scope).length ? "&" : "?") + "reveal=1&card=" + encodeURIComponent(card.id);
    revealRow.hidden = false;
    cardNode.dataset.cardId = card.id; // set last: the card is complete once its id changes
  }

  // Bring a newly painted card into view and, while `stillShown()` and unrevealed, focus its
  // reveal link. Reading the scroll position or moving focus would lay the page out before the
  // frame does; both wait for the frame, the scroll known from its events.
  function settle(stillShown) {
    if (scrolled) window.scrollTo(0, 0);
    afterPaint(function () { if (stillShown() && !revealed()) revealLink.focus({ preventScroll: true }); });
  }

  function revealed() { return cardNode.dataset.revealed === "true"; }

  function paintAnswer() {
    answerNode.hidden = false;
    revealRow.hidden = true;
    rateForm.hidden = false;
    cardNode.dataset.revealed = "true";
    const good = rateForm.querySelector('button[data-key="3"]');
    if (good) good.focus({ preventScroll: true });
  }

  // The shown card's actions, changed in place.
  function paintShownFlag(flag) { paintFlags(document.getElementById("card-actions"), flag); }
  function dropShownUnleech() { document.querySelector("#card-actions form[action$='/unleech']")?.remove(); }
  function repaintShownActions(card) {
    const shown = document.getElementById("card-actions");
    if (shown && actionsModel) shown.replaceWith(actionsSection(card));
  }

  // The counts from the server's latest answer (or those last seen, when null), and the progress
  // bar over `done` ratings this session.
  function paintCounts(counts, done) {
    if (counts) {
      for (const queue of ["new", "learning", "review"]) {
        const shown = document.getElementById("count-" + queue);
        if (shown) shown.textContent = String(counts[queue]);
      }
      remaining = counts.new + counts.learning + counts.review;
    }
    if (progressNode && remaining !== null) {
      progressNode.max = done + remaining;
      progressNode.value = done;
    }
  }

  let noticeTimer = null;
  function notice(text) {
    noticeNode.textContent = text;
    noticeNode.hidden = false;
    clearTimeout(noticeTimer);
    noticeTimer = setTimeout(function () { noticeNode.hidden = true; }, 6000);
  }

  let savedTimer = null;
  let savingTimer = null;
  function paintStatus(outbox) {
    const waiting = outbox.size();
    statusNode.dataset.state = outbox.state;
    clearTimeout(savingTimer);
    if (outbox.state === "offline") statusNode.textContent = t("study.offline", { n: waiting });
    else if (outbox.state === "retrying") statusNode.textContent = t("study.retrying", { n: waiting });
    else if (outbox.state === "signed_out") statusNode.textContent = t("study.signed_out", { n: waiting });
    else if (outbox.state === "sending") {
      // Only a slow save is worth a word; a quick one would just flicker.
      savingTimer = setTimeout(function () { statusNode.textContent = t("study.saving"); }, 700);
      return;
    } else if (statusNode.textContent) {
      statusNode.textContent = t("study.saved");
      clearTimeout(savedTimer);
      savedTimer = setTimeout(function () { if (outbox.state === "idle") statusNode.textContent = ""; }, 2000);
    }
  }

  // Network work waits until the frame with the new card is on screen.
  function afterPaint(work) {
    requestAnimationFrame(function () { setTimeout(work, 0); });
  }

  window.qbankStudy = {
    initial: initial,
    scope: scope,
    t: t,
    studyUrl: studyUrl,
    prepare: prepare,
    paintCard: paintCard,
    settle: settle,
    revealed: revealed,
    paintAnswer: paintAnswer,
    paintShownFlag: paintShownFlag,
    dropShownUnleech: dropShownUnleech,
    repaintShownActions: repaintShownActions,
    paintCounts: paintCounts,
    notice: notice,
    paintStatus: paintStatus,
    afterPaint: afterPaint,
  };
})();
