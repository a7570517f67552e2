// nimmt board, the puzzles view: choose puzzles by theme and difficulty, click the card you
// would play, read the answer (the quiz's: the solution, every card's value, the line).
"use strict";

(() => {
  const { call, $, cardElement, drawRows, drawOthers, fmt, showError, showView } = window.nimmt;
  let listing = null;   // /api/puzzles: the chosen puzzles of the set shown
  let at = 0;           // index into listing.puzzles
  let answered = null;  // the answer to the puzzle shown
  let score = { right: 0, asked: 0 };

  function chosenThemes() {
    return [...document.querySelectorAll("#puzzle-themes input:checked")].map((el) => el.value);
  }

  function drawFilters() {
    const sets = $("puzzle-set");
    sets.replaceChildren();
    listing.sets.forEach((name) => {
      const o = document.createElement("option");
      o.value = o.textContent = name;
      o.selected = name === listing.set;
      sets.appendChild(o);
    });
    const box = $("puzzle-themes");
    const keep = new Set(chosenThemes());
    box.querySelectorAll("label").forEach((el) => el.remove());
    listing.themes.forEach((theme) => {
      const label = document.createElement("label");
      label.innerHTML = `<input type="checkbox" value="${theme}"> ${theme}`;
      label.querySelector("input").checked = keep.has(theme);
      box.appendChild(label);
    });
    $("puzzle-difficulty").placeholder = listing.difficulty ? `${listing.difficulty[0]}..${listing.difficulty[1]}` : "";
  }

  function draw() {
    const shown = listing.puzzles.length;
    $("puzzle-count").textContent = `${shown} of ${listing.size} puzzles of ${listing.set}`;
    $("puzzle-prev").disabled = at === 0;
    $("puzzle-next").disabled = at >= shown - 1;
    $("puzzle-answer").replaceChildren();
    answered = null;
    const p = listing.puzzles[at];
    document.body.dataset.puzzle = p ? p.number : "";
    if (!p) {
      $("puzzle-number").textContent = "";
      $("puzzle-facts").textContent = "no puzzle matches: widen the themes or the difficulty";
      $("puzzle-rows").replaceChildren();
      $("puzzle-hand").replaceChildren();
      $("puzzle-others").replaceChildren();
      return;
    }
    const origin = p.from_game ? ` · from the game: round ${p.from_game.round}, turn ${p.from_game.turn}, ${p.from_game.name}` : "";
    $("puzzle-number").textContent = `${p.number}`;
    $("puzzle-facts").textContent = `${p.position.variant}, ${p.position.players} players, against ${p.model} · ` +
      `difficulty ${p.difficulty} · ${p.themes.join(", ") || "no theme"}${origin}`;
    drawRows($("puzzle-rows"), p.position.rows);
    const hand = $("puzzle-hand");
    hand.replaceChildren();
    p.position.hand.forEach((c) => {
      const el = cardElement(c);
      el.addEventListener("click", () => answer(p, c.card));
      hand.appendChild(el);
    });
    drawOthers($("puzzle-others"), p.position.others);
  }

  async function answer(p, card) {
    if (answered) return;   // one answer a puzzle; next or previous to go on
    let r;
    try {
      r = await call("POST", "/api/puzzles/answer", { set: listing.set, number: p.number, card });
    } catch (e) {
      showError(e.message);
      return;
    }
    answered = r;
    score.asked += 1;
    if (r.correct) score.right += 1;
    $("puzzle-score").textContent = `score: ${score.right}/${score.asked}`;
    const byCard = new Map(r.values.map((v) => [v.card, v.value]));
    document.querySelectorAll("#puzzle-hand .card").forEach((el) => {
      const c = Number(el.dataset.card);
      const loss = byCard.get(c) - byCard.get(r.solution);
      const badge = document.createElement("span");
      badge.className = `badge ${loss < 1e-9 ? "best" : loss < 0.5 ? "mild" : "bad"}`;
      badge.innerHTML = `${fmt(byCard.get(c))}<span class="loss">${loss < 1e-9 ? "best" : "+" + fmt(loss)}</span>`;
      el.appendChild(badge);
      el.classList.toggle("chosen", c === card);
    });
    const box = $("puzzle-answer");
    box.replaceChildren();
    const verdict = document.createElement("p");
    verdict.className = r.correct ? "verdict right" : "verdict wrong";
    verdict.textContent = r.correct ? `Right: ${card} is best.` : `Not quite: ${card} costs ${fmt(r.loss)} more than ${r.solution}.`;
    box.appendChild(verdict);
    const why = document.createElement("p");
    why.textContent = r.explanation;
    box.appendChild(why);
    if (r.line) {
      const line = document.createElement("p");
      line.className = "line";
      line.textContent = `After your ${card}: ${r.line}`;
      box.appendChild(line);
    }
    const unit = document.createElement("p");
    unit.className = "unit";
    unit.textContent = `values in ${r.unit}; themes: ${r.themes.join(", ") || "none"}`;
    box.appendChild(unit);
  }

  async function choose(request) {
    try {
      listing = await call("POST", "/api/puzzles", request);
    } catch (e) {
      showError(e.message);
      return;
    }
    showError("");
    at = 0;
    drawFilters();
    draw();
  }

  function filters() {
    const request = { set: $("puzzle-set").value, themes: chosenThemes() };
    const difficulty = $("puzzle-difficulty").value.trim();
    if (difficulty) request.difficulty = difficulty;
    return request;
  }

  // Open a set made on this board (a review's mistakes) and offer its file for saving.
  async function openSet(name, file) {
    const link = $("puzzle-save");
    link.href = URL.createObjectURL(new Blob([JSON.stringify(file, null, 1)], { type: "application/json" }));
    link.hidden = false;
    document.querySelectorAll("#puzzle-themes input").forEach((el) => { el.checked = false; });
    $("puzzle-difficulty").value = "";
    await choose({ set: name });
    showView("puzzles");
  }

  async function start(info) {
    $("puzzle-filter").addEventListener("submit", (e) => { e.preventDefault(); choose(filters()); });
    $("puzzle-set").addEventListener("change", () => {
      document.querySelectorAll("#puzzle-themes input").forEach((el) => { el.checked = false; });
      $("puzzle-difficulty").value = "";
      choose({ set: $("puzzle-set").value });
    });
    $("puzzle-prev").addEventListener("click", () => { at = Math.max(0, at - 1); draw(); });
    $("puzzle-next").addEventListener("click", () => { at = Math.min(listing.puzzles.length - 1, at + 1); draw(); });
    await choose({ set: info.views.puzzles.set });
  }

  window.nimmtPuzzles = { start, openSet };
})();
