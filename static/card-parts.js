// What a card's kind and source change on the study page, as plain data for static/study-paint.js:
// a cloze card asks with its block (front_html, its own deletions blank) under a heading kept for
// screen readers; every card links to the line of the note it comes from.

// The front to show above the answer: a cloze card's block, a basic card's stem (the code its
// question asks about), or nothing.
export function frontOf(card) {
  const kind = card.kind || "basic";
  return (kind === "cloze" || kind === "basic") && card.front_html ? card.front_html : "";
}

// The card's kind as the page's data-kind, which the stylesheet reads.
export function kindOf(card) {
  return card.kind || "basic";
}

// The link to the card's note at its line (`/notes/<path>?line=N#LN`), or null without a source.
export function sourceLink(card) {
  if (!card.source_path) return null;
  const path = card.source_path.split("/").map(encodeURIComponent).join("/");
  const line = card.source_line || 1;
  return { href: "/notes/" + path + "?line=" + line + "#L" + line, text: card.source_path + ":" + line };
}
