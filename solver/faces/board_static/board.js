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

function draw() {
  const rows = $("rows");
  rows.replaceChildren();
  position.rows.forEach((row, i) => {
    const line = document.createElement("div");
    line.className = "row";
    const cows = row.reduce((s, c) => s + c.cows, 0);
    line.innerHTML = `<span class="label">row ${i + 1}<br>${cows} cows</span>`;
    row.forEach((c) => line.appendChild(cardElement(c)));
    rows.appendChild(line);
  });
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
  const others = $("others");
  others.replaceChildren();
  position.others.forEach((h, i) => {
    const title = document.createElement("h2");
    title.textContent = `Player ${i + 2}` + (h ? "" : ": hand hidden");
    others.appendChild(title);
    if (h) {
      const box = document.createElement("div");
      box.className = "cards small";
      h.forEach((c) => box.appendChild(cardElement(c)));
      others.appendChild(box);
    }
  });
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
  draw();
}

const fmt = (x) => (x === null || x === undefined ? "" : Number(x).toFixed(3));

function badges() {
  const result = job && job.result;
  const byCard = new Map(((result && result.cards) || []).map((c) => [c.card, c]));
  document.querySelectorAll("#hand .card").forEach((el) => {
    el.querySelector(".badge")?.remove();
    el.classList.toggle("chosen", Number(el.dataset.card) === chosen);
    const badge = document.createElement("span");
    badge.className = "badge";
    const c = byCard.get(Number(el.dataset.card));
    if (!c) {
      if (job && (job.state === "running" || job.state === "queued")) {
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
    const spread = c.ci95 ? ` ±${fmt((c.ci95[1] - c.ci95[0]) / 2)}` : "";
    badge.innerHTML = `${fmt(c.value)}${spread}<span class="loss">${regret < 1e-9 ? "best" : "+" + fmt(regret)}</span>`;
    el.appendChild(badge);
  });
}

// A row choice (turn=): each row badged with the choice's value and its loss, and a list.
function rowBadges() {
  document.querySelectorAll("#rows .row .choice").forEach((el) => el.remove());
  const choices = (job && job.result && job.result.choices) || [];
  choices.forEach((c) => {
    if (c.take_row === null || c.take_row === undefined) return;  // a tie side, not a row
    const line = document.querySelectorAll("#rows .row")[c.take_row];  // 0-based in the JSON
    if (!line) return;
    const badge = document.createElement("span");
    badge.className = "badge choice " + (c.regret < 1e-9 ? "best" : c.regret < 0.5 ? "mild" : "bad");
    badge.dataset.value = c.value;
    badge.dataset.regret = c.regret;
    badge.innerHTML = `take: ${fmt(c.value)}<span class="loss">${c.regret < 1e-9 ? "best" : "+" + fmt(c.regret)}</span>`;
    line.appendChild(badge);
  });
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
  $("cancel").addEventListener("click", async () => { if (job) job = await call("DELETE", `/api/jobs/${job.id}`); });
  await load(info.position);
  if (position) $("go").click();   // the first analysis starts at once
}

start();
