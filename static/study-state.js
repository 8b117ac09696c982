// The study session's state, apart from the page: the card shown, a few held beyond it, what Z
// takes back and the counts. Revealing, rating, moving on and undoing never wait for the
// network: ratings and card actions go into the outbox (static/queue.js) and the server's
// answers top the buffer up and set the counts. It tells a view (static/study-paint.js, or a
// fake in the tests) what to show, and asks `fetchNext(exclude)` for more cards (`fetchDay()`
// for the whole day's).

// Cards held beyond the current one: enough to study on through a dropped connection.
export const DEPTH = 8;
// Learning steps due this soon count as due now, as the server counts them (LEARN_AHEAD).
const LEARN_AHEAD_MS = 20 * 60 * 1000;

function bucket(queue) {
  return queue === "relearning" ? "learning" : queue;
}

export class StudySession {
  constructor({ queue, keep, view, current, counts, done, revealed = false, scope = {}, fetchNext, fetchDay = async () => [], pack = null, pageAt = 0, clock = () => Date.now(), tab = "", acked = [] }) {
    this.queue = queue;
    this.keep = keep;
    this.view = view;
    this.scope = scope;
    this.fetchNext = fetchNext;
    this.fetchDay = fetchDay;
    this.clock = clock;
    this.tab = tab;
    this.current = current || null;
    this.buffer = [];
    this.history = []; // {kind, card, entryId, counts, done, undo?, restore?}, newest last
    this.counts = counts ? Object.assign({}, counts) : null;
    this.done = done || 0;
    this.revealed = revealed;
    this.exhausted = false; // the server had nothing beyond the cards held
    this.fetching = false;
    this.shownAt = clock();
    this.depth = DEPTH;
    this.pack = pack;
    this.pageAt = pageAt; // when the server made the page (a copy kept offline may be old)
    this.rated = []; // cards rated today here, so that an old copy of the page skips them
    this.acked = acked; // cards the server took a rating for after this page was asked for
    queue.subscribe((event) => this.answer(event));
  }

  // Cards rated, suspended or buried here but not yet acknowledged: the server still counts
  // them as due, so they are neither shown nor asked for again.
  pending(after = null) {
    const cards = new Set();
    for (const entry of this.queue.entries()) {
      if (after !== null && entry.id <= after) continue;
      if (entry.data.type === "rate" || entry.data.removes) cards.add(entry.data.card_id);
    }
    return cards;
  }

  held() {
    return (this.current ? [this.current.id] : []).concat(this.buffer.map((card) => card.id));
  }

  // Cards the server must not hand out in answer to `entry` (or to a top-up, when null): those
  // held here and those rated here but not yet sent.
  exclude(entry) {
    const ids = new Set(this.held());
    for (const id of this.pending(entry ? entry.id : null)) ids.add(id);
    return Array.from(ids);
  }

  // Take over the card the page shows and the cards an earlier page kept; send what waits, and
  // fetch the cards beyond.
  start() {
    const saved = this.pack && this.pack.read(this.clock());
    if (saved && saved.at > this.pageAt) {
      // This page is older than what the last page knew (a copy kept for offline use): the
      // counts are that page's, and the cards rated since are not shown again. A newer page
      // is the server's word on both.
      this.counts = saved.counts;
      this.done = saved.done;
      this.rated = saved.rated || [];
    }
    if (saved) this.depth = Math.max(DEPTH, saved.depth || 0);
    const skip = this.pending();
    for (const id of this.rated.concat(this.acked)) skip.add(id);
    for (const card of saved ? saved.cards : []) {
      if (!skip.has(card.id) && !this.held().includes(card.id)) this.buffer.push(card);
    }
    // A card rated on an earlier page but not yet sent is not shown again.
    if (this.current && skip.has(this.current.id)) this.advance();
    this.paintCounts();
    this.view.paintStatus(this.queue.state);
    this.queue.replay(true);
    this.topUp();
  }

  show() {
    this.revealed = false;
    this.shownAt = this.clock();
    this.view.showCard(this.current);
  }

  paintCounts() {
    this.view.paintCounts(this.counts, this.done);
    if (this.pack) this.pack.note(this.counts, this.done, this.clock(), this.depth, this.rated);
  }

  // Counts from the server, taken when nothing is waiting to be sent (which they could not
  // know about); otherwise the page's own reckoning stands.
  serverCounts(counts) {
    if (!counts || this.queue.size() > 0) return;
    this.counts = Object.assign({}, counts);
    this.paintCounts();
  }

  shift(card, by) {
    if (!this.counts || !card) return;
    const name = bucket(card.queue);
    if (name in this.counts) this.counts[name] = Math.max(0, this.counts[name] + by);
  }

  // ---- the buffer ------------------------------------------------------------------------------

  dueNow(card) {
    return card.queue !== "new" && card.due && Date.parse(card.due) <= this.clock();
  }

  // Put a card from the server into the buffer; a learning step that came due goes first.
  hold(card) {
    if (!card || this.held().includes(card.id) || this.pending().has(card.id)) return;
    if ((card.queue === "learning" || card.queue === "relearning") && this.dueNow(card)) this.buffer.unshift(card);
    else this.buffer.push(card);
    if (this.pack) this.pack.keep(card, this.clock());
    if (!this.current) this.advance();
    else this.view.prepare(card);
  }

  // The next card: a learning step that came due, else the next card in the server's order,
  // else the learning step due soonest (shown early, as the server does when nothing is left).
  // While cards are being fetched, a step is not shown early: the server may have others first.
  advance() {
    const now = this.clock();
    const learning = (card) => card.local || ((card.queue === "learning" || card.queue === "relearning") && card.due);
    let index = this.buffer.findIndex((card) => learning(card) && Date.parse(card.due) <= now);
    if (index < 0) index = this.buffer.findIndex((card) => !card.local);
    if (index < 0 && this.buffer.length && !this.fetching) {
      index = 0;
      this.buffer.forEach((card, i) => { if (Date.parse(card.due) < Date.parse(this.buffer[index].due)) index = i; });
    }
    this.current = index < 0 ? null : this.buffer.splice(index, 1)[0];
    this.show();
    if (!this.current) this.finishIfDone();
  }

  finishIfDone() {
    if (this.current || this.buffer.length || !this.exhausted || this.queue.size() || this.fetching) return;
    // Nothing due and every rating saved: the server's page says what comes next and when.
    this.view.finish();
  }

  async topUp() {
    if (this.fetching) return; // the top-up under way says when it is done
    if (this.exhausted || this.buffer.length >= this.depth) {
      this.view.paintAhead(this.buffer.length);
      return;
    }
    this.fetching = true;
    try {
      while (!this.exhausted && this.buffer.length < this.depth) {
        const found = await this.fetchNext(this.exclude(null));
        if (found.status === 204) { this.exhausted = true; break; }
        if (!found.card) break;
        this.serverCounts(found.card.counts);
        if (this.held().includes(found.card.id)) break; // the answer crossed a rating made meanwhile
        this.hold(found.card);
      }
    } catch (error) {
      // Offline: the outbox's retries bring the connection back, and with it more cards.
    } finally {
      this.fetching = false;
    }
    if (!this.current && this.buffer.length) this.advance();
    this.view.paintAhead(this.buffer.length);
    this.finishIfDone();
  }

  // ---- actions ---------------------------------------------------------------------------------

  reveal() {
    if (!this.current || this.revealed) return;
    this.revealed = true;
    this.view.revealAnswer();
  }

  record(kind, card, data, extra = {}) {
    const entryId = this.keep(Object.assign({ card_id: card.id, scope: this.scope, tab: this.tab }, data));
    this.history.push(Object.assign({ kind, card, entryId, counts: this.counts && Object.assign({}, this.counts), done: this.done }, extra));
    this.view.saveTrail(this.history);
    return entryId;
  }

  rate(rating) {
    if (!this.current || !this.revealed) return false;
    const card = this.current;
    const now = this.clock();
    this.record("rate", card, {
      type: "rate",
      rating,
      version: card.version,
      after_undo: card.version === null,
      duration_ms: Math.min(Math.max(Math.round(now - this.shownAt), 0), 86400000),
    });
    // The page's own reckoning until the server's answer: the card leaves its queue, and comes
    // back as a learning step when its next interval for this rating is that short, due then,
    // its later steps taken as those it had (the server has the exact ones once it is online).
    this.shift(card, -1);
    if (this.pack) this.pack.drop(card.id);
    this.rated.push(card.id);
    const next = (card.intervals || []).find((interval) => interval.rating === rating);
    if (next && next.seconds * 1000 <= LEARN_AHEAD_MS) {
      if (this.counts) this.counts.learning += 1;
      const queue = card.queue === "review" || card.queue === "relearning" ? "relearning" : "learning";
      this.buffer.push(Object.assign({}, card, { queue, due: new Date(now + next.seconds * 1000).toISOString(), version: null, local: true, parts: null }));
    }
    this.done += 1;
    this.current = null;
    this.advance();
    this.paintCounts();
    this.view.afterPaint(() => { this.queue.replay(true); this.topUp(); });
    return true;
  }

  // Suspend or bury the card shown (it leaves the session), flag it, or clear its leech mark.
  act(action, flag = 0) {
    const card = this.current;
    if (!card) return false;
    const path = "/api/cards/" + encodeURIComponent(card.id) + "/" + action;
    if (action === "flag" || action === "unleech") {
      if (action === "unleech" && !card.leech) return false;
      const before = { flag: card.flag || 0, leech: card.leech };
      const body = action === "flag" ? { flag: before.flag === flag ? 0 : flag } : {};
      if (action === "flag") card.flag = body.flag;
      else card.leech = false;
      this.record("mark", card, { type: "action", path, body }, { restore: () => Object.assign(card, before) });
      this.view.paintMarks(card);
      this.view.afterPaint(() => this.queue.replay(true));
      return true;
    }
    this.record("remove", card, { type: "action", path, removes: true });
    if (this.pack) this.pack.drop(card.id);
    // A new card put aside makes room for the next one within the day's limit.
    if (card.queue !== "new") this.shift(card, -1);
    this.current = null;
    this.advance();
    this.paintCounts();
    this.view.notice("study." + action);
    this.view.afterPaint(() => { this.queue.replay(true); this.topUp(); });
    return true;
  }

  undo() {
    const last = this.history.pop();
    if (!last) {
      // A step from before this page: the trail's, else the server's undo form.
      if (this.pending().size === 0) this.view.undoEarlier();
      return false;
    }
    this.view.saveTrail(this.history);
    if (this.queue.take(last.entryId)) {
      // Never sent: taking it back is all there is to do.
    } else if (last.kind === "rate") {
      // On its way or saved: the server undoes it, in order after what went before.
      this.keep({ type: "undo", card_id: last.card.id, tab: this.tab });
      last.card.version = null;
    } else {
      this.keep({ type: "undo-action", of: last.entryId, undo: last.undo || null, card_id: last.card.id, scope: this.scope, tab: this.tab });
    }
    this.view.afterPaint(() => this.queue.replay(true));
    this.view.notice(last.kind === "rate" ? "study.undone" : "study.action_undone");
    this.counts = last.counts;
    this.done = last.done;
    if (last.kind === "rate") {
      this.rated = this.rated.filter((id) => id !== last.card.id);
      // Its learning step, put in the buffer by the rating, goes with it.
      this.buffer = this.buffer.filter((card) => !(card.local && card.id === last.card.id));
    }
    if (last.restore) {
      last.restore();
      // A flag or a cleared leech on the card still shown: its actions change in place.
      if (this.current === last.card) {
        this.view.paintMarks(last.card);
        this.paintCounts();
        return true;
      }
    }
    if (this.current) this.buffer.unshift(this.current);
    this.current = last.card;
    this.show();
    this.paintCounts();
    return true;
  }

  // ---- the server's answers --------------------------------------------------------------------

  answer(event) {
    if (event.type === "state" || event.type === "change") {
      this.view.paintStatus(this.queue.state);
      return;
    }
    if (event.type === "drained") {
      this.finishIfDone();
      return;
    }
    const { entry, data } = event;
    const type = entry.data.type;
    if (event.type === "ack") this.acknowledged(entry, type, data || {});
    else if (event.type === "rejected") this.rejected(entry, type, event.status);
    else if (event.type === "expired") this.view.notice("study.expired");
  }

  // Take the day's whole queue (`fetchDay`: the server's list, in the order of study), kept on
  // this device for studying offline. Top-ups wait until fewer than DEPTH cards are left.
  async takeAlong() {
    let cards = [];
    try {
      cards = await this.fetchDay();
    } catch (error) {
      // Offline: what is held stays, and is what the notice counts.
    }
    if (cards.length) this.serverCounts(cards[0].counts);
    for (const card of cards) this.hold(card);
    this.paintCounts();
    return this.held().length;
  }

  acknowledged(entry, type, data) {
    if (type === "action") {
      const step = this.history.find((item) => item.entryId === entry.id);
      if (step) {
        step.undo = data.undo;
        this.view.saveTrail(this.history);
      }
    }
    if (type === "rate" || type === "action" || type === "undo-action") {
      if (data.leech) this.view.notice("study.leech", { lapses: data.lapses });
      this.exhausted = data.next === null;
      this.serverCounts(data.counts);
      this.hold(data.next);
      this.topUp();
      this.finishIfDone();
    } else if (type === "undo") {
      for (const card of [this.current].concat(this.buffer)) {
        if (card && card.id === data.card_id && card.version === null) card.version = data.version;
      }
      // An undo's answer has no counts: once nothing waits, ask for them.
      this.exhausted = false;
      if (this.queue.size() === 0) this.refreshCounts();
    }
  }

  async refreshCounts() {
    try {
      const found = await this.fetchNext(this.exclude(null));
      if (found.card) {
        this.serverCounts(found.card.counts);
        this.hold(found.card);
      } else if (found.status === 204) {
        this.serverCounts({ new: 0, learning: 0, review: 0 });
      }
    } catch (error) {
      // Offline: the next answer brings them.
    }
  }

  rejected(entry, type, status) {
    const index = this.history.findIndex((item) => item.entryId === entry.id);
    if (index >= 0) {
      this.history.splice(index, 1);
      this.view.saveTrail(this.history);
    }
    if (type === "undo") {
      // The rating stands: drop the re-rating queued after the undo and move past the card.
      for (const later of this.queue.entries().slice()) {
        if (later.data.card_id === entry.data.card_id && later.data.after_undo) this.queue.take(later.id);
      }
      if (this.current && this.current.id === entry.data.card_id && this.current.version === null) this.advance();
      this.view.notice("study.undo_failed");
    } else if (type === "action" || type === "undo-action") {
      this.view.notice(status === 404 ? "study.gone" : "study.action_failed");
    } else {
      this.view.notice(status === 404 ? "study.gone" : "study.rejected");
    }
    this.exhausted = false;
    this.topUp();
  }
}
