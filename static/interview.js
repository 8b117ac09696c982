// Mock interview: the page as a client of the JSON API. The interview's state
// (static/interview-state.js), its painting (static/interview-paint.js), the outbox
// (static/outbox.js) and the recordings (static/recordings.js), wired to the keys, the clock's
// tick and the microphone. The page holds every question of the session still to answer (the
// later ones in <template>s), so a session goes on through a dropped connection. Without this
// file every step still works: phases are links, the checklist is a form post.
import { outbox, keep } from "./outbox.js";
import { recordings } from "./recordings.js";
import { createView } from "./interview-paint.js";
import { MockInterview, keyAction } from "./interview-state.js";

// Someone who recorded once gets every new question recorded from its start.
const REMEMBER = "qbank.mock.record";
const AUDIO_TYPES = ["audio/webm;codecs=opus", "audio/webm", "audio/ogg;codecs=opus", "audio/mp4"];
const TICK_MS = 250;

// The microphone, asked for once a recording: what static/interview-state.js calls a recorder.
function microphone() {
  let recorder = null;
  function remember(yes) {
    try {
      if (yes) localStorage.setItem(REMEMBER, "1");
      else localStorage.removeItem(REMEMBER);
    } catch (error) { /* private mode: ask each time */ }
  }
  return {
    active: () => recorder !== null && recorder.state !== "inactive",
    remembered() {
      try { return localStorage.getItem(REMEMBER) === "1"; } catch (error) { return false; }
    },
    start({ stillWanted, started, failed, stopped }) {
      if (recorder) return;
      navigator.mediaDevices.getUserMedia({ audio: true }).then((stream) => {
        if (recorder || !stillWanted()) {
          stream.getTracks().forEach((track) => track.stop()); // moved on meanwhile
          return;
        }
        const type = AUDIO_TYPES.find((candidate) => MediaRecorder.isTypeSupported(candidate));
        const made = new MediaRecorder(stream, type ? { mimeType: type } : undefined);
        const chunks = [];
        recorder = made;
        made.addEventListener("dataavailable", (event) => { if (event.data.size) chunks.push(event.data); });
        made.addEventListener("stop", () => {
          stream.getTracks().forEach((track) => track.stop());
          recorder = null;
          stopped(new Blob(chunks, { type: made.mimeType || "audio/webm" }));
        });
        made.start(1000);
        remember(true);
        started();
      }, () => {
        remember(false);
        failed();
      });
    },
    stop() { if (recorder && recorder.state !== "inactive") recorder.stop(); },
  };
}

function typing(target) {
  return target && (target.tagName === "TEXTAREA" || target.tagName === "SELECT" ||
    (target.tagName === "INPUT" && target.type !== "checkbox" && target.type !== "radio"));
}

function interview(stateNode) {
  const initial = JSON.parse(stateNode.textContent);
  const on = {};
  const view = createView({ strings: initial.strings, on });
  const canRecord = !!(window.MediaRecorder && navigator.mediaDevices && navigator.mediaDevices.getUserMedia && recordings);
  const mock = new MockInterview({
    mock: initial.mock,
    limitMs: view.limitMs,
    learner: document.body.dataset.learner || "anonymous",
    queue: outbox,
    keep,
    storage: localStorage,
    view,
    recordings,
    recorder: canRecord ? microphone() : null,
    summary: initial.summary,
    resume: initial.resume,
  });
  on.phase = (next) => mock.show(next);
  on.answer = (fields) => mock.answer(fields);
  on.change = () => mock.paintCoverage();
  setInterval(() => mock.tick(), TICK_MS);

  if (canRecord) {
    view.showRecording();
    document.querySelector('[data-slot="record"]').addEventListener("click", () => mock.toggleRecording());
  }

  document.addEventListener("keydown", (event) => {
    if (mock.finishing || event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
    const action = keyAction(event.key, mock.phase, canRecord);
    if (action === "record") {
      event.preventDefault();
      mock.toggleRecording();
    } else if (action === "done" || action === "next") {
      event.preventDefault();
      view.nextPhase(mock.phase);
    } else if (action === "point" && view.togglePoint(event.key)) {
      event.preventDefault();
      mock.paintCoverage();
    } else if (action === "submit" && view.submit()) {
      event.preventDefault();
    }
  });

  // Later questions may need KaTeX's fonts: fetch them while there is a connection.
  if (document.fonts) {
    for (const face of ["1em KaTeX_Main", "italic 1em KaTeX_Math", "1em KaTeX_Size1", "1em KaTeX_Size2", "1em KaTeX_AMS"]) {
      document.fonts.load(face).catch(() => {});
    }
  }
  mock.start(view.first(), view.served);
}

const stateNode = document.getElementById("mock-state");
if (stateNode) {
  await outbox.ready();
  interview(stateNode);
}
