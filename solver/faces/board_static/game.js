// nimmt board, the game view: step through a game record; review it as `nimmt review` does
// and mark each decision; make the review's mistakes into puzzles.
"use strict";

(() => {
  const { call, $, cardElement, drawRows, fmt, showError, openPosition, watch, showProgress } = window.nimmt;
  let game = null;     // /api/game
  let index = 0;       // the step shown
  let review = null;   // the review's JSON, when one has finished
  let reviewJob = null;

  // The review's decisions of a step's seat (card first, then a row choice).
  function marks(step, seat) {
    if (!review) return [];
    return review.decisions.filter((d) => d.round === step.round && d.turn === step.turn && d.player === seat + 1);
  }

  function markBadge(d) {
    const badge = document.createElement("span");
    const severity = { best: "best", ok: "best", inaccuracy: "mild", mistake: "bad", blunder: "bad" }[d.label] || "pending";
    badge.className = `badge mark ${severity}`;
    badge.dataset.label = d.label;
    const loss = d.regret === null ? "" : d.regret > 1e-9 ? `+${fmt(d.regret)}` : "";
    badge.innerHTML = `${d.label}<span class="loss">${loss}</span>`;
    badge.title = d.regret === null ? d.note || "" : `best: ${d.best}; loss ${fmt(d.regret)}` +
      (d.regret_ci95_half_width ? ` ±${fmt(d.regret_ci95_half_width)}` : "") + ` (${d.method})`;
    return badge;
  }

  function draw() {
    const step = game.steps[index];
    $("game-step").value = index;
    $("game-where").textContent = `round ${step.round}, turn ${step.turn} of 10 · step ${index + 1} of ${game.steps.length}`;
    drawRows($("game-rows"), step.position.rows);
    const seats = $("game-seats");
    seats.replaceChildren();
    const turnBox = $("review-turn");
    turnBox.replaceChildren();
    game.names.forEach((name, s) => {
      const box = document.createElement("div");
      box.className = "seat";
      box.dataset.player = s + 1;
      const taken = step.take_rows[s] >= 0 ? `, chose to take row ${step.take_rows[s] + 1}` : "";
      const head = document.createElement("h3");
      head.innerHTML = `<span>${s + 1}. ${name}</span> <small>${step.scores[s]} cows before · ` +
        `${step.cows[s] ? "+" + step.cows[s] + " this turn" : "none this turn"}${taken}</small>`;
      const go = document.createElement("button");
      go.type = "button";
      go.className = "link";
      go.textContent = "analyse";
      go.title = `open the position as player ${s + 1} saw it on the Position tab`;
      go.addEventListener("click", () => openPosition(step.views[s]));
      head.appendChild(go);
      box.appendChild(head);
      const cards = document.createElement("div");
      cards.className = "cards small";
      step.hands[s].forEach((c) => {
        const el = cardElement(c);
        if (c.card === step.cards[s]) {
          el.classList.add("played");
          marks(step, s).filter((d) => d.kind === "card").forEach((d) => el.appendChild(markBadge(d)));
        }
        cards.appendChild(el);
      });
      box.appendChild(cards);
      marks(step, s).filter((d) => d.kind === "row").forEach((d) => {
        const p = document.createElement("p");
        p.className = "row-mark";
        p.textContent = `row choice: ${d.played} (best ${d.best}) `;
        p.appendChild(markBadge(d));
        box.appendChild(p);
      });
      seats.appendChild(box);
      marks(step, s).forEach((d) => {
        const line = document.createElement("p");
        line.textContent = `${name}: ${d.kind === "card" ? "card " + d.played : d.played} — ${d.label}` +
          (d.regret ? ` (+${fmt(d.regret)}; best ${d.best})` : "");
        turnBox.appendChild(line);
      });
    });
    $("game-prev").disabled = index === 0;
    $("game-first").disabled = index === 0;
    $("game-next").disabled = index === game.steps.length - 1;
    $("game-last").disabled = index === game.steps.length - 1;
  }

  function go(to) {
    index = Math.max(0, Math.min(game.steps.length - 1, to));
    draw();
  }

  function showReview(current) {
    const running = showProgress("review", current);
    $("review-cancel").disabled = !running;
    $("review-go").disabled = running;
    $("review-state").textContent = current.error ? `${current.state}: ${current.error}` :
      current.state === "done" ? `reviewed ${current.result.turns_reviewed} decisions against ${current.result.opponents} in ${fmt(current.seconds)} s` :
      current.state === "cancelled" ? "cancelled" : "";
    document.body.dataset.review = current.state;
    if (current.state !== "done") return;
    review = current.result;
    if (review.picture) {
      $("review-picture").src = `data:image/svg+xml;base64,${review.picture}`;
      $("review-picture").hidden = false;
    }
    $("review-picture-note").textContent = review.picture ? "" : `(${review.picture_note})`;
    const table = document.createElement("table");
    table.innerHTML = "<caption>per player</caption><tr><th>player</th><th>decisions</th><th>total loss</th><th>best</th><th>mistakes</th><th>blunders</th></tr>" +
      review.summary.map((s) => `<tr><td>${s.player}. ${s.name}</td><td>${s.decisions}</td><td>${fmt(s.total_regret)}</td>` +
        `<td>${Math.round(100 * s.best_share)}%</td><td>${s.labels.mistake || 0}</td><td>${s.labels.blunder || 0}</td></tr>`).join("");
    $("review-summary").replaceChildren(table);
    $("review-puzzles").disabled = !["random", "worst"].includes(review.opponents);
    $("review-puzzles").title = $("review-puzzles").disabled ? "puzzles come from a review against random or worst" : "";
    draw();
  }

  async function startReview(event) {
    event.preventDefault();
    const players = $("review-players").value.trim();
    const request = { opponents: $("review-opponents").value, from_turn: Number($("review-from").value),
      time_limit: Number($("review-time").value), seed: Number($("review-seed").value) };
    if (players) request.players = players;
    try {
      reviewJob = await call("POST", "/api/game/review", request);
    } catch (e) {
      showError(e.message);
      return;
    }
    showError("");
    review = null;
    watch(reviewJob.id, showReview);
  }

  async function mistakes() {
    let job;
    try {
      job = await call("POST", "/api/puzzles/from-review", { job: reviewJob.id });
    } catch (e) {
      showError(e.message);
      return;
    }
    $("review-puzzles").disabled = true;
    watch(job.id, (current) => {
      const state = $("review-puzzles-state");
      if (current.state === "running" || current.state === "queued") {
        state.textContent = `solving the mistakes exactly… ${current.progress.done} of ${current.progress.total || "?"}`;
        return;
      }
      $("review-puzzles").disabled = false;
      if (current.state !== "done") {
        state.textContent = `${current.state}: ${current.error || ""}`;
        return;
      }
      const r = current.result;
      state.textContent = `${r.count} puzzles made` + (r.skipped.length ? `; ${r.skipped.length} skipped (${r.skipped[0]})` : "");
      if (r.count) window.nimmtPuzzles.openSet(r.set, r.file);
    });
  }

  function shown(loaded) {
    game = loaded;
    index = 0;
    review = null;
    reviewJob = null;
    $("review-picture").hidden = true;
    $("review-picture-note").textContent = "";
    $("review-summary").replaceChildren();
    $("review-state").textContent = "";
    $("review-puzzles").disabled = true;
    $("game-title").textContent = `${game.variant}, ${game.players} players: ${game.names.join(", ")}` +
      (game.complete ? "" : " (stopped early)");
    $("game-step").max = game.steps.length - 1;
    document.querySelector("#tabs button[data-view=game]").hidden = false;
    draw();
  }

  // The game played on the Play tab, opened here for stepping and review.
  async function openPlayed() {
    try {
      shown(await call("POST", "/api/game/open-play", {}));
    } catch (e) {
      showError(e.message);
      return;
    }
    showError("");
    window.nimmt.showView("game");
  }

  async function start(info) {
    const opponents = $("review-opponents");
    ["random", "worst", ...info.bots].forEach((name) => {
      const o = document.createElement("option");
      o.value = o.textContent = name;
      opponents.appendChild(o);
    });
    $("game-first").addEventListener("click", () => go(0));
    $("game-prev").addEventListener("click", () => go(index - 1));
    $("game-next").addEventListener("click", () => go(index + 1));
    $("game-last").addEventListener("click", () => go(game.steps.length - 1));
    $("game-step").addEventListener("input", (e) => go(Number(e.target.value)));
    $("game-analyse").addEventListener("click", () => openPosition(game.steps[index].views[0]));
    document.addEventListener("keydown", (e) => {
      if (!game || document.body.dataset.view !== "game" || e.target.tagName === "INPUT" || e.target.tagName === "SELECT") return;
      const to = { ArrowLeft: index - 1, ArrowRight: index + 1, Home: 0, End: game.steps.length - 1 }[e.key];
      if (to !== undefined) { e.preventDefault(); go(to); }
    });
    $("review").addEventListener("submit", startReview);
    $("review-cancel").addEventListener("click", async () => { if (reviewJob) await call("DELETE", `/api/jobs/${reviewJob.id}`); });
    $("review-puzzles").addEventListener("click", mistakes);
    if (!info.views.game.loaded) return;
    try {
      shown(await call("GET", "/api/game"));
    } catch (e) {
      showError(e.message);
    }
  }

  window.nimmtGame = { start, openPlayed };
})();
