// nimmt board: draws a position, asks the server for its analysis, badges the cards.
// Every figure comes from the server's JSON, which is `nimmt analyse --format json`'s.
"use strict";

const token = new URLSearchParams(location.search).get("token") || "";
const $ = (id) => document.getElementById(id);
let position = null;   // the position the page shows (server's JSON)
let job = null;        // the analysis under way or shown
let chosen = null;     // the card clicked

async function call(method, path, body) {
  const options = { method, headers: { "X-Nimmt-Token": token } };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  const data = await response.json().catch(() => ({ error: `the server answered ${response.status}` }));
  if (!response.ok) throw new Error(data.error || `the server answered ${response.status}`);
  return data;
}

function showError(message) {
  $("error").textContent = message || "";
  $("error").hidden = !message;
}

function cardElement(c) {
  const el = document.createElement("div");
  el.className = `card c${c.cows}`;
  el.dataset.card = c.card;
  el.innerHTML = `<span class="n">${c.card}</span><span class="cows">${c.cows} ${c.cows === 1 ? "cow" : "cows"}</span>`;
  return el;
}

// Rows drawn into `box` (the rows' JSON: a list of rows of cards), each labelled with its cows.
function drawRows(box, rows) {
  box.replaceChildren();
  rows.forEach((row, i) => {
    const line = document.createElement("div");
    line.className = "row";
    const cows = row.reduce((s, c) => s + c.cows, 0);
    line.innerHTML = `<span class="label">row ${i + 1}<br>${cows} cows</span>`;
    row.forEach((c) => line.appendChild(cardElement(c)));
    box.appendChild(line);
  });
}

// The other players' hands (known ones as small cards) into `box`.
function drawOthers(box, others) {
  box.replaceChildren();
  others.forEach((h, i) => {
    const title = document.createElement("h2");
    title.textContent = `Player ${i + 2}` + (h ? "" : ": hand hidden");
    box.appendChild(title);
    if (h) {
      const cards = document.createElement("div");
      cards.className = "cards small";
      h.forEach((c) => cards.appendChild(cardElement(c)));
      box.appendChild(cards);
    }
  });
}

function draw() {
  drawRows($("rows"), position.rows);
  $("facts").textContent = `${position.variant}, ${position.players} players, ` +
    `${position.placement} placement, ${position.cards_left} cards each` +
    (position.turn.length ? `; row choice for card ${position.turn.join(",")}` : "");
  const hand = $("hand");
  hand.replaceChildren();
  position.hand.forEach((c) => {
    const el = cardElement(c);
    el.addEventListener("click", () => { chosen = c.card; showDetail(); });
    hand.appendChild(el);
  });
  drawOthers($("others"), position.others);
  const gone = $("gone");
  gone.replaceChildren();
  position.gone.forEach((c) => gone.appendChild(cardElement(c)));
  $("gone-box").hidden = position.gone.length === 0;
  $("notation").value = position.notation;
}

async function load(text) {
  try {
    position = await call("POST", "/api/position", { position: text });
  } catch (e) {
    showError(e.message);
    return;
  }
  showError("");
  job = null;
  chosen = null;
  $("summary").replaceChildren();
  $("detail").replaceChildren();
  $("line").replaceChildren();
  $("tree").replaceChildren();
  draw();
  if ($("edit-box").open) startEdit();   // the palette shows the position loaded
}

const fmt = (x) => (x === null || x === undefined ? "" : Number(x).toFixed(3));

// Badge each card of `selector` (cards with data-card) with its value and loss in `result`
// (an analysis' JSON); `pending`: a dashed badge on cards not valued yet.
function badgeCards(selector, result, pending, chosenCard) {
  const byCard = new Map(((result && result.cards) || []).map((c) => [c.card, c]));
  document.querySelectorAll(selector).forEach((el) => {
    el.querySelector(".badge")?.remove();
    el.classList.toggle("chosen", Number(el.dataset.card) === chosenCard);
    const badge = document.createElement("span");
    badge.className = "badge";
    const c = byCard.get(Number(el.dataset.card));
    if (!c) {
      if (pending) {
        badge.classList.add("pending");
        badge.textContent = "…";
        el.appendChild(badge);
      }
      return;
    }
    const regret = c.regret || 0;
    badge.classList.add(regret < 1e-9 ? "best" : regret < 0.5 ? "mild" : "bad");
    badge.dataset.value = c.value;
    badge.dataset.regret = regret;
    const spread = c.ci95 && c.ci95[1] > c.ci95[0] ? ` ±${fmt((c.ci95[1] - c.ci95[0]) / 2)}` : "";
    badge.innerHTML = `${fmt(c.value)}${spread}<span class="loss">${regret < 1e-9 ? "best" : "+" + fmt(regret)}</span>`;
    el.appendChild(badge);
  });
}

// Badge each row of `selector` (the .row elements, in order) with a row choice's value and
// loss in `result` (an analysis of a turn= position); returns the choices.
function badgeRows(selector, result) {
  document.querySelectorAll(`${selector} .choice`).forEach((el) => el.remove());
  const choices = (result && result.choices) || [];
  choices.forEach((c) => {
    if (c.take_row === null || c.take_row === undefined) return;  // a tie side, not a row
    const line = document.querySelectorAll(selector)[c.take_row];  // 0-based in the JSON
    if (!line) return;
    const badge = document.createElement("span");
    badge.className = "badge choice " + (c.regret < 1e-9 ? "best" : c.regret < 0.5 ? "mild" : "bad");
    badge.dataset.value = c.value;
    badge.dataset.regret = c.regret;
    badge.innerHTML = `take: ${fmt(c.value)}<span class="loss">${c.regret < 1e-9 ? "best" : "+" + fmt(c.regret)}</span>`;
    line.appendChild(badge);
  });
  return choices;
}

function badges() {
  const running = job && (job.state === "running" || job.state === "queued");
  badgeCards("#hand .card", job && job.result, running, chosen);
}

// A row choice (turn=): each row badged with the choice's value and its loss, and a list.
function rowBadges() {
  const choices = badgeRows("#rows .row", job && job.result);
  if (!choices.length) return;
  const list = document.createElement("table");
  list.innerHTML = "<caption>row choices</caption>" + choices.map((c) =>
    `<tr><td>${c.choice}</td><td>${fmt(c.value)}</td><td>${c.regret < 1e-9 ? "best" : "+" + fmt(c.regret)}</td></tr>`).join("");
  $("detail").appendChild(list);
}

function summary() {
  const box = $("summary");
  box.replaceChildren();
  if (!job) return;
  const r = job.result;
  if (job.error) {
    const p = document.createElement("p");
    p.className = "stopped";
    p.textContent = `${job.state}: ${job.error}`;
    box.appendChild(p);
  }
  if (job.state === "cancelled") box.textContent = "cancelled";
  if (!r) return;
  const p = document.createElement("p");
  p.innerHTML = `<span class="value">${fmt(r.value)}</span> ${r.unit || ""} against <b>${r.opponents}</b>` +
    (r.method ? `<br>${r.method}: ${r.reason || ""}` : r.turn ? `<br>row choice for ${r.turn.join(",")}` : "") + (r.seed !== undefined ? `<br>seed ${r.seed}` : "") +
    ` · ${fmt(job.seconds)} s`;
  box.appendChild(p);
}

// The model a line or a tree is searched in: the analysis' opponents when it is a model the
// searches take, else random (said on the page).
function searchModel() {
  const o = $("opponents").value;
  return ["random", "worst", "nash"].includes(o) ? o : "random";
}

// Start a job (POST `path` with `body`) and, when it ends, `render` its result into `box`
// (or the one line it ended with); `waiting` says what is under way meanwhile.
async function jobInto(box, path, body, waiting, render) {
  box.textContent = waiting;
  let started;
  try {
    started = await call("POST", path, body);
  } catch (e) {
    box.textContent = e.message;
    return;
  }
  watch(started.id, (current) => {
    if (current.state === "running" || current.state === "queued") return;
    if (!current.result) box.textContent = `${current.state}: ${current.error || ""}`;
    else render(current.result);
  });
}

// The line after the chosen card, to the end of the round (the server's principal line).
function playOut(card) {
  jobInto($("line"), "/api/line", { position: position.notation, card, opponents: searchModel() },
    "searching the line…", (r) => {
      const table = document.createElement("table");
      table.className = "line";
      table.innerHTML = `<caption>after your ${r.card}, the most damaging replies ${r.opponents} allows and your best answers: ` +
        `${r.total} cows to the end</caption>` +
        "<tr><th>turn</th><th>you</th><th>opponents</th><th>cows</th></tr>" +
        r.turns.map((t) => `<tr><td>${t.turn}</td><td>${t.you}</td><td>${t.opponents}` +
          (t.choices.length ? `<br><small>${t.choices.join("; ")}</small>` : "") +
          `</td><td>${t.cows || ""}</td></tr>`).join("");
      $("line").replaceChildren(table);
    });
}

// A tree node as nested <details>: each edge's label, cows and probability, the best ones marked.
function treeElement(edge, node, open, parent) {
  const el = document.createElement(node.children && node.children.length ? "details" : "div");
  el.className = "node";
  if (open) el.open = true;
  const head = document.createElement(el.tagName === "DETAILS" ? "summary" : "span");
  const best = edge && edge.best && parent !== "chance";   // chance edges are no one's choice
  const via = edge ? `${best ? "★ " : ""}${edge.label}` +
    (edge.probability !== undefined ? ` (p ${fmt(edge.probability)})` : "") +
    (edge.cows ? ` +${edge.cows} cows` : "") + " → " : "";
  const what = node.actor === "p1" ? `you choose (turn ${node.turn})` : node.actor === "leaf" ? "end of the round" :
    node.actor === "choice" ? `row choice by ${node.owner}` : node.actor;
  head.textContent = `${via}${what}: ${fmt(node.value)}` + (node.ref ? " (as above)" : "");
  if (best) head.classList.add("best");
  el.appendChild(head);
  (node.children || []).forEach((c) => el.appendChild(treeElement(c, c.node, false, node.actor)));
  return el;
}

function showTree() {
  jobInto($("tree"), "/api/tree", { position: position.notation, opponents: searchModel(),
    depth: Number($("tree-depth").value), best_only: $("tree-best").checked }, "building the tree…", (r) => {
    const title = document.createElement("p");
    title.textContent = `decision tree against ${r.opponents}, ${r.depth} turn${r.depth > 1 ? "s" : ""} deep, ${r.nodes} nodes (★ best)`;
    $("tree").replaceChildren(title, treeElement(null, r.tree, true, null));
  });
}

function showDetail() {
  badges();
  const box = $("detail");
  box.replaceChildren();
  const c = job && job.result && (job.result.cards || []).find((x) => x.card === chosen);
  if (!c) return;
  const table = document.createElement("table");
  const names = { value: "value", regret: "loss against the best", cows_now: "cows this turn",
    cows_later: "cows later", take_probability: "takes a row this turn", stderr: "standard error",
    samples: "samples", frequency: "equilibrium frequency" };
  table.innerHTML = `<caption>card ${c.card}</caption>` + Object.entries(names)
    .filter(([k]) => c[k] !== undefined)
    .map(([k, label]) => `<tr><td>${label}</td><td>${k === "samples" ? c[k] : fmt(c[k])}</td></tr>`)
    .join("") + (c.ci95 ? `<tr><td>95% interval</td><td>${fmt(c.ci95[0])} – ${fmt(c.ci95[1])}</td></tr>` : "");
  box.appendChild(table);
  const out = document.createElement("button");
  out.type = "button";
  out.id = "play-out";
  out.textContent = `Play ${c.card} out (against ${searchModel()})`;
  out.addEventListener("click", () => playOut(c.card));
  box.appendChild(out);
}

async function poll() {
  if (!job) return;
  try {
    job = await call("GET", `/api/jobs/${job.id}`);
  } catch (e) {
    showError(e.message);
    return;
  }
  const running = job.state === "running" || job.state === "queued";
  $("progress").hidden = !running;
  $("cancel").disabled = !running;
  $("go").disabled = running;
  const p = job.progress;
  $("bar").value = p.total ? p.done / p.total : 0;
  $("progress-text").textContent = p.total ? `${p.done} of ${p.total} ${p.what}` : "starting";
  document.body.dataset.state = job.state;
  badges();
  summary();
  showDetail();
  rowBadges();
  if (running) setTimeout(poll, 200);
}

async function analyse(event) {
  event.preventDefault();
  if (!position) return;
  const request = { position: position.notation, opponents: $("opponents").value,
    method: $("method").value, samples: Number($("samples").value), seed: Number($("seed").value),
    time_limit: Number($("time_limit").value) };
  try {
    job = await call("POST", "/api/analyse", request);
  } catch (e) {
    showError(e.message);
    return;
  }
  showError("");
  poll();
}

function options(select, names) {
  names.forEach((name) => {
    const o = document.createElement("option");
    o.value = o.textContent = name;
    select.appendChild(o);
  });
}

// The tabs: one view shown at a time; the others keep their state.
function showView(name) {
  document.querySelectorAll(".view").forEach((v) => { v.hidden = v.id !== `view-${name}`; });
  document.querySelectorAll("#tabs button").forEach((b) => b.classList.toggle("on", b.dataset.view === name));
  $("load").hidden = name !== "position";
  document.body.dataset.view = name;
}

// ---- editing by clicking: each card of the deck placed in the hand, a row, a known hand,
// the cards gone, or nowhere; the server checks and draws the result.
let placed = new Map();   // card -> "hand" | "row1".."row4" | "p2".. | "gone"
let target = "hand";

function startEdit() {
  placed = new Map();
  position.hand.forEach((c) => placed.set(c.card, "hand"));
  position.rows.forEach((row, i) => row.forEach((c) => placed.set(c.card, `row${i + 1}`)));
  position.others.forEach((h, i) => (h || []).forEach((c) => placed.set(c.card, `p${i + 2}`)));
  position.gone.forEach((c) => placed.set(c.card, "gone"));
  const targets = $("edit-targets");
  targets.replaceChildren();
  const names = [["hand", "your hand"], ["row1", "row 1"], ["row2", "row 2"], ["row3", "row 3"], ["row4", "row 4"],
    ...position.others.map((_, i) => [`p${i + 2}`, `player ${i + 2}`]), ["gone", "gone"]];
  names.forEach(([value, label]) => {
    const el = document.createElement("label");
    el.innerHTML = `<input type="radio" name="edit-target" value="${value}"> ${label}`;
    const input = el.querySelector("input");
    input.checked = value === target;
    input.addEventListener("change", () => { target = value; });
    targets.appendChild(el);
  });
  drawPalette();
}

function drawPalette() {
  const palette = $("edit-palette");
  palette.replaceChildren();
  position.deck.forEach(({ card, cows }) => {
    const el = cardElement({ card, cows });
    const where = placed.get(card);
    if (where) {
      el.classList.add("placed");
      const tag = document.createElement("span");
      tag.className = "where";
      tag.textContent = where.replace("row", "r").replace("hand", "you");
      el.appendChild(tag);
    }
    el.addEventListener("click", () => {
      if (placed.get(card) === target) placed.delete(card);
      else placed.set(card, target);
      drawPalette();
    });
    palette.appendChild(el);
  });
}

async function applyEdit() {
  const of = (where) => [...placed].filter(([, w]) => w === where).map(([c]) => c);
  const others = {};
  position.others.forEach((_, i) => { others[String(i + 2)] = of(`p${i + 2}`); });
  let edited;
  try {
    edited = await call("POST", "/api/position/edit", { variant: position.variant, players: position.players,
      placement: position.placement, rows: [1, 2, 3, 4].map((r) => of(`row${r}`)), hand: of("hand"),
      others, gone: of("gone") });
  } catch (e) {
    showError(e.message);
    return;
  }
  showError("");
  await load(edited.notation);
}

// Open a position (the notation) on the Position tab and analyse it.
async function openPosition(notation) {
  showView("position");
  await load(notation);
  if (position) $("go").click();
}

// Follow a job until it ends: onUpdate(job) after each poll (progress, then the result).
async function watch(id, onUpdate) {
  let current;
  try {
    current = await call("GET", `/api/jobs/${id}`);
  } catch (e) {
    showError(e.message);
    return;
  }
  onUpdate(current);
  if (current.state === "running" || current.state === "queued") setTimeout(() => watch(id, onUpdate), 250);
}

// A progress bar and its text (ids `${prefix}-progress`, `-bar`, `-progress-text`) for a job.
function showProgress(prefix, current) {
  const running = current.state === "running" || current.state === "queued";
  $(`${prefix}-progress`).hidden = !running;
  const p = current.progress;
  $(`${prefix}-bar`).value = p.total ? p.done / p.total : 0;
  $(`${prefix}-progress-text`).textContent = p.total ? `${p.done} of ${p.total} ${p.what}` : "starting";
  return running;
}

window.nimmt = { call, $, cardElement, drawRows, drawOthers, fmt, showError, showView, openPosition,
  watch, showProgress, badgeCards, badgeRows };

async function start() {
  let info;
  try {
    info = await call("GET", "/api/info");
  } catch (e) {
    showError(e.message);
    return;
  }
  options($("examples"), ["examples…", ...Object.keys(info.examples)]);
  options($("opponents"), [...info.models, ...info.bots]);
  options($("method"), info.methods);
  $("time_limit").value = info.time_limit;
  $("examples").addEventListener("change", (e) => { if (e.target.selectedIndex > 0) load(e.target.value); });
  $("load").addEventListener("submit", (e) => {
    e.preventDefault();
    $("examples").selectedIndex = 0;
    load($("notation").value);
  });
  $("analyse").addEventListener("submit", analyse);
  $("tree-go").addEventListener("click", showTree);
  $("edit-box").addEventListener("toggle", () => { if ($("edit-box").open) startEdit(); });
  $("edit-apply").addEventListener("click", applyEdit);
  $("edit-reset").addEventListener("click", startEdit);
  $("cancel").addEventListener("click", async () => { if (job) job = await call("DELETE", `/api/jobs/${job.id}`); });
  document.querySelectorAll("#tabs button").forEach((b) => {
    b.hidden = b.dataset.view !== "position" && !(b.dataset.view in info.views) ||
      b.dataset.view === "game" && !info.views.game.loaded;   // shown once a game is open
    b.addEventListener("click", () => showView(b.dataset.view));
  });
  if (info.views.game) window.nimmtGame.start(info);
  if (info.views.play) window.nimmtPlay.start(info);
  if (info.views.puzzles) window.nimmtPuzzles.start(info);
  showView(info.start);
  await load(info.position);
  if (position && info.start === "position") $("go").click();   // the first analysis starts at once
}

document.addEventListener("DOMContentLoaded", start);
