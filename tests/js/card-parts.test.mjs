// A card's kind and source as the study page paints them: static/card-parts.js, over cards as
// the JSON API gives them (/api/study/next).
import assert from "node:assert/strict";
import { test } from "node:test";

import { frontOf, kindOf, sourceLink } from "../../static/card-parts.js";

const CLOZE = {
  id: "c-8ea7fc1ef45f",
  kind: "cloze",
  question_html: "The H100 SXM has […] SMs and 50 MB of L2.",
  front_html: '<p>The H100 SXM has <span class="cloze-blank">[…]</span> SMs and 50 MB of L2.</p>\n',
  answer_html: '<p>The H100 SXM has <span class="cloze-answer">132</span> SMs and 50 MB of L2.</p>\n',
  source_path: "gpu/H100 notes.md",
  source_line: 5,
};

test("a cloze card asks with its block, its own deletion blank and the others filled in", () => {
  assert.equal(frontOf(CLOZE), CLOZE.front_html);
  assert.match(frontOf(CLOZE), /cloze-blank">\[…\]</);
  assert.doesNotMatch(frontOf(CLOZE), /132/);
  assert.match(frontOf(CLOZE), /50 MB/);
  assert.equal(kindOf(CLOZE), "cloze");
});

test("a basic card shows its stem, the code its question asks about, under the question", () => {
  const stem = '<pre><code class="language-python">print(sum([1, 2]))\n</code></pre>\n';
  assert.equal(frontOf({ kind: "basic", question_html: "What does this print?", front_html: stem }), stem);
});

test("other cards ask with their question: no front, whatever the payload holds", () => {
  assert.equal(frontOf({ kind: "basic", front_html: "", question_html: "Why?" }), "");
  assert.equal(frontOf({ kind: "reversed", front_html: "<p>stray</p>" }), "");
  assert.equal(kindOf({ kind: "reversed" }), "reversed");
  // A card taken along before cards had kinds is a basic one.
  assert.equal(kindOf({}), "basic");
  assert.equal(frontOf({}), "");
});

test("every card links to its note's line, the path's parts encoded", () => {
  assert.deepEqual(sourceLink(CLOZE), {
    href: "/notes/gpu/H100%20notes.md?line=5#L5",
    text: "gpu/H100 notes.md:5",
  });
  assert.equal(sourceLink({ source_path: "" }), null);
  assert.equal(sourceLink({ source_path: "a#b?.md", source_line: 2 }).href, "/notes/a%23b%3F.md?line=2#L2");
});
