// nimmt board, the play view: a game against bots (`nimmt play` on the server), hints on
// demand (the board's analysis against the hint model), the record saved or reviewed.
"use strict";

(() => {
  const { call, $, cardElement, drawRows, showError, watch, showProgress, badgeCards, badgeRows, fmt } = window.nimmt;
  let state = null;   // /api/play: the decision asked, the totals, the turns told
  let busy = false;   // a move is under way (the bots are playing)

  function draw() {
    const asking = state.kind === "card" || state.kind === "row";
    document.body.dataset.play = state.kind;
    $("play-title").textContent = state.kind === "over" ? "Game over" : state.kind === "failed" ?
      `The game stopped: ${state.error}` : asking ? "Your move" : "…";
    $("play-totals").textContent = state.labels.map((l, s) => `${l} ${state.totals[s]}`).join(" · ");
    $("play-hint").disabled = !asking || busy;
    $("play-undo").disabled = !asking || busy;
    $("play-quit").disabled = !asking || busy;
    $("play-save").disabled = false;
    $("play-review").disabled = false;
    $("play-log").textContent = state.log.join("\n");
    $("play-log").scrollTop = $("play-log").scrollHeight;
    $("play-hint-state").textContent = "";
    const options = $("play-options");
    options.replaceChildren();
    $("play-revealed").textContent = state.kind === "row" ? `This turn: ${state.revealed}` : "";
    const hand = $("play-hand");
    hand.replaceChildren();
    $("play-hand-title").hidden = !asking;
    if (!asking) {
      drawRows($("play-rows"), []);
      $("play-ask").textContent = "";
      return;
    }
    if (state.kind === "card") {
      drawRows($("play-rows"), state.position.rows);
      $("play-ask").textContent = "(click the card you play)";
      state.position.hand.forEach((c) => {
        const el = cardElement(c);
        el.addEventListener("click", () => move(String(c.card)));
        hand.appendChild(el);
      });
    } else {
      drawRows($("play-rows"), state.rows);
      $("play-ask").textContent = `(your ${state.cards[0]} has more than one place: choose)`;
      state.options.forEach((o) => {
        const b = document.createElement("button");
        b.type = "button";
        b.dataset.option = o.option;
        b.textContent = o.label;
        b.addEventListener("click", () => move(String(o.option)));
        options.appendChild(b);
      });
      const rule = document.createElement("button");
      rule.type = "button";
      rule.textContent = "the rule's choice";
      rule.addEventListener("click", () => move(""));
      options.appendChild(rule);
    }
  }

  async function move(answer) {
    if (busy) return;
    busy = true;
    $("play-hint").disabled = true;
    try {
      state = await call("POST", "/api/play/move", { answer });
    } catch (e) {
      showError(e.message);
    }
    busy = false;
    showError("");
    draw();
  }

  // The hint: the board's analysis of this decision against the game's hint model.
  async function hint() {
    let job;
    try {
      job = await call("POST", "/api/analyse", { position: state.notation, opponents: state.hint_model,
        time_limit: 10, seed: 1 });
    } catch (e) {
      showError(e.message);
      return;
    }
    $("play-hint").disabled = true;
    watch(job.id, (current) => {
      const running = current.state === "running" || current.state === "queued";
      $("play-hint-state").textContent = running ? "thinking…" : current.error ? `${current.state}: ${current.error}` :
        `against ${current.result ? current.result.opponents : ""} (${state.hint_note})` +
        (current.result && current.result.method ? `, ${current.result.method}` : "");
      if (state.kind === "card") badgeCards("#play-hand .card", current.result, running);
      else badgeRows("#play-rows .row", current.result);
      if (!running) $("play-hint").disabled = false;
    });
  }

  async function save() {
    let record;
    try {
      record = await call("GET", "/api/play/record");
    } catch (e) {
      showError(e.message);
      return;
    }
    const link = $("play-download");
    link.href = URL.createObjectURL(new Blob([JSON.stringify(record, null, 1)], { type: "application/json" }));
    link.click();
  }

  async function start(info) {
    info.views.play.variants.forEach((v) => {
      const o = document.createElement("option");
      o.value = o.textContent = v;
      o.selected = v === "tactical";
      $("play-variant").appendChild(o);
    });
    info.views.play.placements.forEach((v) => {
      const o = document.createElement("option");
      o.value = o.textContent = v;
      $("play-placement").appendChild(o);
    });
    $("play-new").addEventListener("submit", async (e) => {
      e.preventDefault();
      busy = true;
      try {
        state = await call("POST", "/api/play/new", { variant: $("play-variant").value,
          players: Number($("play-players").value), bots: $("play-bots").value,
          placement: $("play-placement").value, one_round: $("play-one-round").checked,
          seed: Number($("play-seed").value) });
      } catch (err) {
        busy = false;
        showError(err.message);
        return;
      }
      busy = false;
      showError("");
      draw();
    });
    $("play-hint").addEventListener("click", hint);
    $("play-undo").addEventListener("click", () => move("undo"));
    $("play-quit").addEventListener("click", () => move("quit"));
    $("play-save").addEventListener("click", save);
    $("play-review").addEventListener("click", () => window.nimmtGame.openPlayed());
  }

  window.nimmtPlay = { start };
})();
