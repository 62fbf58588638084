// The rater page: every change is saved as a draft at once (notes after a short pause),
// Submit saves the rating and moves on, Previous/Next wait for the draft, keys 1-5 (0-9
// on a persona item's page, from the form's data-scale-min/max), y/n and Enter, j/→ and
// k/← for Next/Previous, s to skip with a reason, ? for the keys' help. A submit with a
// required question unanswered is refused (the server refuses it too); with an optional
// one unanswered it asks first (Enter or Submit again confirms). Served as a file: the
// Content-Security-Policy allows no inline script.
"use strict";
(function () {
  const form = document.getElementById("rating");
  if (!form) return;
  const base = form.dataset.base;
  const n = Number(form.dataset.n);
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const status = document.getElementById("status");
  const notes = document.getElementById("notes");
  const hintCount = document.getElementById("hint-count");
  const hint = document.getElementById("hint");
  const questions = Array.from(form.querySelectorAll(".question"));
  const low = Number(form.dataset.scaleMin || 1); // games 1-5; persona items 0-9
  const high = Number(form.dataset.scaleMax || 5);
  const NOTES_PAUSE_MS = 400;
  const RETRY_MS = 2000;
  let timer = null; // a pending draft save (notes typed, or a retry)
  let chain = Promise.resolve(); // saves go out one after another, in order
  let unsaved = false; // the page holds something the server has not acknowledged
  let generation = 0;
  let current = 0;
  let confirming = null; // the form (as JSON) a partial submit was asked about
  const help = document.getElementById("help");
  const skipButton = document.getElementById("skip");
  const skipPanel = document.getElementById("skip-panel");
  const skipReason = document.getElementById("skip-reason");

  function state() {
    const score = form.querySelector('input[name="score"]:checked');
    const answers = {};
    for (const q of questions) {
      const checked = q.querySelector("input:checked");
      answers[q.dataset.key] = checked ? checked.value === "yes" : null;
    }
    return { score: score ? Number(score.value) : null, answers: answers, notes: notes.value };
  }

  function show(text, kind) {
    status.textContent = text;
    status.className = "status " + (kind || "");
  }

  function clock(iso) {
    const when = new Date(iso);
    return isNaN(when) ? "" : " at " + when.toLocaleTimeString();
  }

  async function post(action, body, keepalive) {
    const response = await fetch(base + "/" + n + "/" + action, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf,
                 "X-Unit": form.dataset.unit || "" },
      body: JSON.stringify(body),
      credentials: "same-origin",
      keepalive: Boolean(keepalive),
    });
    let data = {};
    try { data = await response.json(); } catch (e) { data = {}; }
    if (!response.ok) throw new Error(data.error || "the server answered " + response.status);
    return data;
  }

  function saveDraft(keepalive) {
    clearTimeout(timer);
    timer = null;
    const body = state();
    const mine = ++generation;
    unsaved = true;
    show("Saving…", "pending");
    chain = chain.then(() => post("draft", body, keepalive)).then(
      (data) => {
        if (mine !== generation) return true; // a newer change is on its way
        unsaved = false;
        show("Draft saved" + clock(data.saved_at) + ". Submit when you are ready.", "ok");
        return true;
      },
      (error) => {
        if (mine === generation) {
          show("Not saved yet: " + error.message + ". Retrying…", "error");
          timer = setTimeout(() => saveDraft(false), RETRY_MS);
        }
        return false;
      },
    );
    return chain;
  }

  function updateHint() {
    if (!hint || !hintCount) return; // persona items have no questions
    const answers = Object.values(state().answers);
    const yes = answers.filter((v) => v === true).length;
    const minYes = Number(hint.dataset.minYes);
    const minScore = Number(hint.dataset.minScore);
    hintCount.textContent = "You answered yes to " + yes + " of " + answers.length + ": " +
      (yes >= minYes ? "that suggests " + minScore + " or more." :
        minYes + "+ yes would suggest " + minScore + " or more.");
  }

  function highlight(index) {
    current = Math.max(0, Math.min(index, questions.length - 1));
    questions.forEach((q, i) => q.classList.toggle("current", i === current));
  }

  async function submit() {
    const body = state();
    if (body.score === null) {
      show("Choose a score from " + low + " to " + high + " first (keys " + low + "–" + high +
        ").", "error");
      return;
    }
    const open = questions.filter((q) => body.answers[q.dataset.key] === null);
    questions.forEach((q) => q.classList.remove("missing-answer"));
    const required = open.filter((q) => q.dataset.required === "1");
    if (required.length) {
      required.forEach((q) => q.classList.add("missing-answer"));
      highlight(questions.indexOf(required[0]));
      show("Not submitted: answer the required questions first: " +
        required.map((q) => q.dataset.text).join("; "), "error");
      return;
    }
    const asked = JSON.stringify(body);
    if (open.length && confirming !== asked) {
      confirming = asked;
      open.forEach((q) => q.classList.add("missing-answer"));
      show(open.length + " of " + questions.length + " questions unanswered (" +
        open.map((q) => q.dataset.text).join("; ") +
        "). Press Enter or Submit again to submit anyway.", "pending");
      return;
    }
    confirming = null;
    clearTimeout(timer);
    timer = null;
    generation++;
    show("Submitting…", "pending");
    try {
      await chain;
      const data = await post("submit", body);
      unsaved = false;
      show("Submitted.", "ok");
      window.location.assign(data.next);
    } catch (error) {
      unsaved = true;
      show("Not submitted: " + error.message + ". Your choices are still here; try again.",
        "error");
    }
  }

  async function leave(href) {
    if (unsaved || timer !== null) {
      const saved = await saveDraft(false);
      if (!saved) return; // stay: what is on the page is not in the store yet
    }
    window.location.assign(href);
  }

  function toggleHelp() {
    if (help) help.open = !help.open;
  }

  function openSkip() {
    if (!skipPanel) return;
    skipPanel.hidden = false;
    skipReason.focus();
  }

  function closeSkip() {
    skipPanel.hidden = true;
    skipReason.blur();
  }

  async function skip() {
    const reason = skipReason.value.trim();
    if (!reason) {
      show("Give a reason for skipping (it is stored with the skip).", "error");
      skipReason.focus();
      return;
    }
    if (unsaved || timer !== null) {
      const saved = await saveDraft(false);
      if (!saved) return; // stay: the draft is not in the store yet
    }
    show("Skipping…", "pending");
    try {
      const data = await post("skip", { reason: reason });
      window.location.assign(data.next);
    } catch (error) {
      show("Not skipped: " + error.message + ". Try again.", "error");
    }
  }

  function go(id) {
    const link = document.getElementById(id);
    if (link && link.href) leave(link.href);
  }

  if (skipButton) {
    skipButton.hidden = false; // skipping needs this script: shown only with it
    skipButton.addEventListener("click", openSkip);
    document.getElementById("skip-go").addEventListener("click", skip);
    document.getElementById("skip-cancel").addEventListener("click", closeSkip);
    skipReason.addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        event.preventDefault(); // not the form's submit: this is the skip's own field
        skip();
      } else if (event.key === "Escape") {
        event.preventDefault();
        closeSkip();
      }
    });
  }

  form.addEventListener("change", (event) => {
    const target = event.target;
    if (target.type !== "radio") return;
    const question = target.closest(".question");
    if (question) highlight(questions.indexOf(question) + 1);
    updateHint();
    saveDraft(false);
  });
  notes.addEventListener("input", () => {
    unsaved = true;
    generation++;
    show("Typing… saved when you pause.", "pending");
    clearTimeout(timer);
    timer = setTimeout(() => saveDraft(false), NOTES_PAUSE_MS);
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    submit();
  });
  for (const id of ["previous", "next"]) {
    const link = document.getElementById(id);
    if (!link) continue;
    link.addEventListener("click", (event) => {
      event.preventDefault();
      leave(link.href);
    });
  }
  questions.forEach((q, i) => q.addEventListener("click", () => highlight(i)));
  window.addEventListener("pagehide", () => {
    if (unsaved || timer !== null) saveDraft(true); // keepalive: outlives the page
  });

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const tag = event.target.tagName;
    if (tag === "TEXTAREA" || (tag === "INPUT" && event.target.type === "text")) return;
    if (tag === "A" || tag === "BUTTON" || tag === "SUMMARY") {
      if (event.key === "Enter" || event.key === " ") return; // the focused control acts
    }
    const key = event.key.toLowerCase();
    if (/^[0-9]$/.test(key) && Number(key) >= low && Number(key) <= high) {
      const radio = form.querySelector('input[name="score"][value="' + key + '"]');
      if (radio && !radio.checked) {
        radio.checked = true;
        radio.dispatchEvent(new Event("change", { bubbles: true }));
      }
      event.preventDefault();
    } else if ((key === "y" || key === "n") && questions.length) {
      const q = questions[current];
      const radio = q.querySelector('input[value="' + (key === "y" ? "yes" : "no") + '"]');
      radio.checked = true;
      radio.dispatchEvent(new Event("change", { bubbles: true }));
      event.preventDefault();
    } else if (key === "enter") {
      event.preventDefault();
      submit();
    } else if (key === "j" || key === "arrowright") {
      event.preventDefault();
      go("next");
    } else if (key === "k" || key === "arrowleft") {
      event.preventDefault();
      go("previous");
    } else if (key === "s") {
      event.preventDefault();
      openSkip();
    } else if (key === "?") {
      event.preventDefault();
      toggleHelp();
    } else if (key === "escape" && help && help.open) {
      help.open = false;
    }
  });

  const firstOpen = questions.findIndex((q) => !q.querySelector("input:checked"));
  highlight(firstOpen < 0 ? 0 : firstOpen);
  updateHint();
  form.dataset.ready = "1"; // the keys and the saving are live (tests wait for this)
})();
