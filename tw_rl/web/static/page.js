// The tw_rl web page: draws positions sent by the server (tw_rl/web/views.py) as SVG and
// talks to its JSON API (tw_rl/web/app.py). No framework: one file, plain DOM.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);
const TERRITORY = { red: "#f4b4b4", white: "#bccbe3", both: "#dcc3e6", none: "#f5f3ea" };
const DISCS = { 1: ["#c62828", "#7f1414", "#fff"], 2: ["#fafafa", "#444", "#111"], 3: ["#9e9e9e", "#555", "#111"] };

const page = {
  mode: "play",
  options: null,
  game: null, // the game against the bot (server view)
  study: null, // the opened game (summary)
  ply: 0,
  studyPosition: null,
  analysis: null,
  analysisAsked: 0, // how many analyses were asked for; only the newest answer is shown
  busy: false,
  review: null, // {ply, view}: a past position of the game, shown from the move list
  hint: null, // {ply, best, pv, ...}: the last hint, for the position it was asked at
  evalAsked: 0, // as analysisAsked, for the evaluation bar
  hover: null, // the cell under the pointer (for the preview)
};

// ------------------------------------------------------------------ server

async function api(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (err) {
    throw new Error("the server cannot be reached (" + err.message + ")");
  }
  let data = null;
  try {
    data = await response.json();
  } catch (err) {
    throw new Error("the server answered " + response.status + " without JSON");
  }
  if (!response.ok) throw new Error(data && data.error ? data.error : "error " + response.status);
  return data;
}

function say(text, kind) {
  const box = $("message");
  box.textContent = text || "";
  box.className = kind || "";
}

// ------------------------------------------------------------------- board

function hexPoints(x, y, r) {
  const out = [];
  for (let k = 0; k < 6; k++) {
    const a = (Math.PI / 180) * (60 * k + 30);
    out.push((x + r * Math.cos(a)).toFixed(2) + "," + (y + r * Math.sin(a)).toFixed(2));
  }
  return out.join(" ");
}

function el(name, attrs, parent) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

// Draw one position. board: geometry; position: views.position_view; heat: policy per cell or
// null; clickable: cells the person may click now; hint: {best, pv} names to mark, or null;
// preview: whether hovering a cell previews the stack a click would place.
function drawBoard(board, position, heat, clickable, hint, preview) {
  const svg = $("board");
  svg.replaceChildren();
  const r = board.radius;
  const xs = board.centres.map((c) => c[0]);
  const ys = board.centres.map((c) => c[1]);
  const pad = r * 1.3;
  const minX = Math.min(...xs) - pad, minY = Math.min(...ys) - pad;
  svg.setAttribute("viewBox", [minX, minY, Math.max(...xs) - minX + pad, Math.max(...ys) - minY + pad].join(" "));
  const show = {
    names: $("aid-names").checked,
    territory: $("aid-territory").checked,
    red: $("aid-red").checked,
    white: $("aid-white").checked,
    heat: $("aid-heat").checked && page.mode === "study",
  };
  const redTerr = new Set(position.territory.red);
  const whiteTerr = new Set(position.territory.white);
  const redPlace = new Set(position.placeable.red);
  const whitePlace = new Set(position.placeable.white);
  const legal = new Set(clickable || []);
  const line = hint ? hint.pv : [];
  const maxHeat = heat && heat.length ? Math.max(...heat, 1e-9) : 1;
  board.centres.forEach(([x, y], i) => {
    const name = board.names[i];
    const g = el("g", { class: "cell", "data-cell": i, "data-name": name }, svg);
    let fill = TERRITORY.none;
    if (show.territory) {
      if (redTerr.has(i) && whiteTerr.has(i)) fill = TERRITORY.both;
      else if (redTerr.has(i)) fill = TERRITORY.red;
      else if (whiteTerr.has(i)) fill = TERRITORY.white;
    }
    el("polygon", { points: hexPoints(x, y, r), fill }, g);
    if (show.heat && heat && heat[i] > 0) {
      const alpha = Math.min(0.85, 0.1 + 0.75 * (heat[i] / maxHeat));
      el("polygon", { points: hexPoints(x, y, r * 0.92), fill: "rgba(255,120,0," + alpha.toFixed(3) + ")" }, g);
      if (heat[i] >= 0.01) {
        const t = el("text", { x, y: y + r * 0.62, class: "heat" }, g);
        t.textContent = Math.round(heat[i] * 100) + "%";
      }
    }
    const owner = position.owner[i];
    if (owner) {
      const [disc, rim, ink] = DISCS[owner];
      el("circle", { cx: x, cy: y - r * 0.05, r: r * 0.5, fill: disc, stroke: rim, "stroke-width": 2 }, g);
      const t = el("text", { x, y: y - r * 0.05, class: "height", fill: ink }, g);
      t.textContent = position.height[i];
    }
    if (show.red && redPlace.has(i)) el("circle", { cx: x - r * 0.42, cy: y - r * 0.45, r: r * 0.12, class: "dot-red" }, g);
    if (show.white && whitePlace.has(i)) el("circle", { cx: x + r * 0.42, cy: y - r * 0.45, r: r * 0.12, class: "dot-white" }, g);
    if (show.names && !(show.heat && heat && heat[i] >= 0.01)) {
      const t = el("text", { x, y: y + r * 0.8, class: "name" }, g);
      t.textContent = name;
    }
    if (i === position.last_move) g.classList.add("last");
    if (legal.has(i)) g.classList.add("legal");
    if (hint && name === hint.best) g.classList.add("hint");
    const step = line.indexOf(name);
    if (step >= 0) {
      const t = el("text", { x: x + r * 0.5, y: y + r * 0.35, class: "pv" }, g);
      t.textContent = String(step + 1);
    }
    if (preview) {
      g.addEventListener("mouseenter", () => showPreview(board, position, i, g));
      g.addEventListener("mouseleave", () => clearPreview(g));
    }
    const title = el("title", {}, g);
    title.textContent = name + (owner ? " (" + ["", "red", "white", "neutral"][owner] + " " + position.height[i] + ")" : "");
    g.addEventListener("click", () => clickCell(i, name));
  });
}

function redraw() {
  if (page.mode === "play" && page.game) {
    const preview = $("aid-preview").checked;
    if (page.review) {
      drawBoard(page.game.board, page.review.view.position, null, [], null, false);
      drawScoreBar(page.review.view.position);
    } else {
      const p = page.game.position;
      const hint = page.hint && page.hint.ply === page.game.moves.length ? page.hint : null;
      drawBoard(page.game.board, p, null, page.game.your_turn ? p.legal : [], hint, preview && page.game.your_turn);
      drawScoreBar(p);
    }
  } else if (page.mode === "study" && page.study && page.studyPosition) {
    const heat = page.analysis && page.analysis.ply === page.ply ? page.analysis.policy : null;
    drawBoard(page.study.board, page.studyPosition.position, heat, [], null, false);
    drawScoreBar(page.studyPosition.position);
  } else {
    $("board").replaceChildren();
    drawScoreBar(null);
  }
}

// ------------------------------------------------------------------ aids

// What a click on cell i would do, from the server's per-cell preview (views._preview).
function previewText(board, position, i) {
  const name = board.names[i];
  const p = position.preview[i];
  if (!p) return "";
  if (!p.legal) return name + ": refused (" + p.why + ")";
  const me = position.to_move;
  const owner = ["", "red", "white", "neutral"][position.owner[i]];
  let what = name + ": a " + me + " stack of height " + p.height;
  if (owner === me) what += ", reinforcing " + me + "'s stack of " + position.height[i];
  else if (owner) what += ", capturing the " + owner + " stack of " + position.height[i];
  if (p.suicidal) what += "; suicidal: the opponent sees more stacks there and could take it at once (these rules allow it)";
  return what;
}

function showPreview(board, position, i, g) {
  page.hover = i;
  const box = $("preview");
  const text = previewText(board, position, i);
  box.textContent = text;
  const p = position.preview[i];
  if (!p) return;
  const [x, y] = board.centres[i];
  const r = board.radius;
  const ghost = el("g", { class: "ghost" + (p.legal ? "" : " refused") }, g);
  if (p.legal) {
    const [disc, rim, ink] = DISCS[position.to_move === "red" ? 1 : 2];
    el("circle", { cx: x, cy: y - r * 0.05, r: r * 0.5, fill: disc, stroke: rim, "stroke-width": 2 }, ghost);
    const t = el("text", { x, y: y - r * 0.05, class: "height", fill: ink }, ghost);
    t.textContent = p.height;
  } else {
    const d = r * 0.35;
    el("path", { d: `M${x - d},${y - d}L${x + d},${y + d}M${x + d},${y - d}L${x - d},${y + d}`, stroke: "#b00020", "stroke-width": 4 }, ghost);
  }
}

function clearPreview(g) {
  page.hover = null;
  $("preview").textContent = "";
  for (const ghost of g.querySelectorAll(".ghost")) ghost.remove();
}

// The CodeCup viewer's bar: red's territory, cells only red can play, the rest, cells only
// white can play, white's territory (views._score_bar).
function drawScoreBar(position) {
  const bar = $("score-bar");
  const legend = $("score-legend");
  if (!position) {
    bar.hidden = true;
    legend.textContent = "";
    return;
  }
  bar.hidden = false;
  const b = position.score_bar;
  const rest = b.cells - b.red_territory - b.red_only - b.white_only - b.white_territory;
  const parts = [["red-t", b.red_territory], ["red-only", b.red_only], ["rest", rest], ["white-only", b.white_only], ["white-t", b.white_territory]];
  for (const [cls, count] of parts) {
    const seg = bar.querySelector("." + cls);
    seg.dataset.count = count;
    seg.style.flex = count + " 0 0";
    seg.textContent = count > 0 ? count : "";
  }
  legend.textContent = "Red: territory " + b.red_territory + ", only red can play " + b.red_only +
    " | white: territory " + b.white_territory + ", only white can play " + b.white_only + " | other cells " + rest;
}

function showEval(valueRed, text) {
  const box = $("eval-box");
  box.classList.remove("off");
  const red = valueRed === null ? 50 : Math.round((1 + valueRed) * 50);
  $("eval-red").style.width = red + "%";
  $("eval-bar").dataset.valueRed = valueRed === null ? "" : valueRed;
  $("eval-text").textContent = text;
}

function signed(v) {
  return (v >= 0 ? "+" : "") + v.toFixed(2);
}

// The live evaluation of the position shown: the bot's evaluator or an offered checkpoint.
async function updateEval() {
  const asked = ++page.evalAsked;
  if (page.mode !== "play") return; // the study panel shows its analysis instead
  if (!$("aid-eval").checked || !page.game) {
    $("eval-box").classList.add("off");
    return;
  }
  const game = page.game;
  const ply = page.review ? page.review.ply : game.moves.length;
  const position = page.review ? page.review.view.position : game.position;
  if (position.over || position.phase !== "play") {
    showEval(null, position.over ? "The game is over." : "No evaluation during the set-up.");
    return;
  }
  const by = $("eval-by").value;
  showEval(Number($("eval-bar").dataset.valueRed || 0), "Evaluating…");
  try {
    const e = await api("GET", "/api/games/" + game.id + "/eval/" + ply + "?by=" + encodeURIComponent(by));
    if (asked !== page.evalAsked) return;
    showEval(e.value_red, "Red " + signed(e.value_red) + " (" + e.note + ")");
  } catch (err) {
    if (asked !== page.evalAsked) return;
    showEval(null, "No evaluation: " + err.message);
  }
}

async function askHint() {
  if (!page.game || page.busy) return;
  const game = page.game;
  const ply = game.moves.length;
  $("hint-text").textContent = "Thinking about a hint…";
  try {
    const h = await api("POST", "/api/games/" + game.id + "/hint", {});
    if (game !== page.game) return;
    h.ply = ply;
    h.game = game.id;
    page.hint = h;
    $("hint-text").textContent = "Hint: " + h.best + "; line " + h.pv.join(" ") + "; value " + signed(h.value) +
      " for you (" + h.simulations + " simulations; " + h.note + ")";
    redraw();
  } catch (err) {
    if (game !== page.game) return;
    $("hint-text").textContent = "No hint: " + err.message;
  }
}

// A past position of the game (a click in the move list): shown, not played on.
async function reviewPly(k) {
  if (!page.game || page.busy) return;
  const game = page.game;
  if (k === game.moves.length) {
    leaveReview();
    return;
  }
  try {
    const view = await api("GET", "/api/games/" + game.id + "/ply/" + k);
    if (game !== page.game) return;
    page.review = { ply: k, view };
    $("review").hidden = false;
    $("review-label").textContent = "Viewing ply " + k + " of " + game.moves.length + (k > 0 ? ", after " + game.moves[k - 1].name : " (the start)") + ".";
    $("review-play").disabled = !view.can_play_from;
    $("review-play").title = view.can_play_from ? "take back every move after this one" : "the bot is to move here";
    $("status").textContent = view.status;
    markViewed(k);
    redraw();
    updateEval();
  } catch (err) {
    say(err.message, "error");
  }
}

function leaveReview() {
  page.review = null;
  $("review").hidden = true;
  markViewed(null);
  if (page.game) showGame(page.game);
}

function markViewed(k) {
  $("moves").querySelectorAll("li").forEach((li, i) => li.classList.toggle("viewed", k !== null && i === k - 1));
}

// -------------------------------------------------------------------- play

function showGame(view) {
  page.game = view;
  $("status").textContent = view.status + (view.you ? " You are " + view.you + "." : "");
  $("players").textContent = "Bot: " + view.bot;
  const list = $("moves");
  list.replaceChildren();
  view.moves.forEach((m, i) => {
    const li = document.createElement("li");
    li.textContent = m.name;
    li.className = m.by;
    li.title = (m.by === "you" ? "your move" : "the bot's move") + ": click to see the position after it";
    li.addEventListener("click", () => reviewPly(i + 1));
    list.appendChild(li);
  });
  page.review = null; // a new view of the game: back from any earlier position
  $("review").hidden = true;
  $("hint").disabled = !(view.your_turn && view.position.phase === "play");
  if (!page.hint || page.hint.ply !== view.moves.length || page.hint.game !== view.id) {
    page.hint = null;
    $("hint-text").textContent = "";
  }
  $("pass").disabled = !(view.your_turn && view.position.pass_legal);
  $("undo").disabled = !view.can_undo;
  $("retry").hidden = !view.bot_error;
  const link = $("download");
  link.hidden = view.position.phase !== "play" && !view.position.over;
  link.href = "/api/games/" + view.id + "/record";
  link.setAttribute("download", "tumbleweed-" + view.id + ".txt");
  if (view.bot_error) say("The bot could not move: " + view.bot_error, "error");
  redraw();
  updateEval();
}

async function act(method, path, body, busyText) {
  if (page.busy) return;
  page.busy = true;
  if (busyText) say(busyText, "busy");
  try {
    const view = await api(method, path, body);
    say("");
    showGame(view);
  } catch (err) {
    say(err.message, "error");
  } finally {
    page.busy = false;
  }
}

function newGame(event) {
  if (event) event.preventDefault();
  const body = {
    size: Number($("size").value),
    variant: $("variant").value,
    setup: $("setup").value,
    colour: $("colour").value,
    bot: $("bot").value.trim() || page.options.bot,
  };
  act("POST", "/api/games", body, "Starting a new game…");
}

function clickCell(index, name) {
  if (page.mode !== "play" || !page.game) return;
  if (page.review) {
    say("You are viewing an earlier position: go back to the game to play.", "error");
    return;
  }
  if (page.busy) {
    say("Wait: the bot is thinking.", "busy");
    return;
  }
  if (page.game.position.over) {
    say("The game is over: start a new game.", "error");
    return;
  }
  if (!page.game.your_turn) {
    say("It is the bot's turn.", "error");
    return;
  }
  act("POST", "/api/games/" + page.game.id + "/move", { move: name }, "You played " + name + "; the bot is thinking…");
}

// ------------------------------------------------------------------- study

async function loadStored() {
  const box = $("stored").querySelector("tbody");
  box.replaceChildren();
  try {
    const db = $("stored-db").value;
    const data = await api("GET", "/api/stored" + (db ? "?db=" + encodeURIComponent(db) : ""));
    if (!data.db) {
      $("stored-note").textContent = "No results database (start the server with --db FILE to browse rated games).";
      return;
    }
    $("stored-note").textContent = data.games.length + " games in " + data.db;
    for (const g of data.games) {
      const tr = document.createElement("tr");
      const result = g.result === 1 ? "1-0" : g.result === 0 ? "0-1" : "½-½";
      for (const text of ["#" + g.id, g.red + " – " + g.white, result, g.plies + " plies"]) {
        const td = document.createElement("td");
        td.textContent = text;
        tr.appendChild(td);
      }
      const td = document.createElement("td");
      const button = document.createElement("button");
      button.textContent = "Open";
      button.type = "button";
      button.dataset.game = g.id;
      button.addEventListener("click", () => openStudy({ db_game: g.id, db: data.db }));
      td.appendChild(button);
      tr.appendChild(td);
      box.appendChild(tr);
    }
  } catch (err) {
    $("stored-note").textContent = "Stored games: " + err.message;
  }
}

async function openStudy(body) {
  try {
    say("Opening…", "busy");
    const summary = await api("POST", "/api/study", body);
    page.study = summary;
    page.analysis = null;
    $("study-title").textContent = summary.title;
    $("study-note").textContent = summary.note || "";
    $("ply").max = summary.plies;
    say("");
    await gotoPly(0);
  } catch (err) {
    say(err.message, "error");
  }
}

async function gotoPly(k) {
  if (!page.study) return;
  k = Math.max(0, Math.min(page.study.plies, k));
  page.ply = k;
  $("ply").value = k;
  try {
    const study = page.study;
    const position = await api("GET", "/api/study/" + study.id + "/ply/" + k);
    if (study !== page.study || k !== page.ply) return; // a newer step was asked for meanwhile
    page.studyPosition = position;
    const move = k > 0 ? " after " + page.study.moves[k - 1] : " (start)";
    $("ply-label").textContent = "ply " + k + " of " + page.study.plies + move;
    $("status").textContent = page.studyPosition.status;
    redraw();
    await analyse();
  } catch (err) {
    say(err.message, "error");
  }
}

async function analyse() {
  const checkpoint = $("checkpoint").value.trim();
  const box = $("analysis");
  const asked = ++page.analysisAsked;
  if (!checkpoint) {
    box.textContent = "Choose a checkpoint to see its policy and value.";
    page.analysis = null;
    redraw();
    return;
  }
  const ply = page.ply;
  box.textContent = "Analysing with " + checkpoint + "…";
  try {
    const a = await api("GET", "/api/study/" + page.study.id + "/analysis/" + ply + "?checkpoint=" + encodeURIComponent(checkpoint));
    if (asked !== page.analysisAsked) return; // the person moved on (ply, study or checkpoint) meanwhile
    a.ply = ply;
    page.analysis = a;
    if (a.value === null) {
      box.textContent = a.note;
    } else {
      const mover = page.studyPosition.position.to_move;
      showEval(a.value_red, "Red " + signed(a.value_red) + " (checkpoint " + a.checkpoint + ")");
      box.textContent = "Value for " + mover + " to move: " + (a.value >= 0 ? "+" : "") + a.value.toFixed(3) +
        "; policy's first choice " + a.best + (a.pass > 0.01 ? "; pass " + Math.round(a.pass * 100) + "%" : "") +
        " (" + a.checkpoint + ": " + a.note + ")";
    }
    // The page's message line is left alone: it may hold a newer error (a record that could
    // not be opened while this answer was on its way).
    redraw();
  } catch (err) {
    if (asked !== page.analysisAsked) return;
    page.analysis = null;
    box.textContent = "No analysis: " + err.message; // shown beside the position, which stays
    redraw();
  }
}

async function openRecord(event) {
  event.preventDefault();
  const file = $("record-file").files[0];
  const text = file ? await file.text() : $("record").value;
  openStudy({ record: text, size: Number($("study-size").value), variant: $("study-variant").value, title: file ? file.name : "pasted record" });
}

// -------------------------------------------------------------------- page

function setMode(mode) {
  page.mode = mode;
  $("tab-play").classList.toggle("active", mode === "play");
  $("tab-study").classList.toggle("active", mode === "study");
  $("play-panel").hidden = mode !== "play";
  $("study-panel").hidden = mode !== "study";
  document.body.classList.toggle("playing", mode === "play");
  $("eval-box").classList.add("off");
  say("");
  if (mode === "study") {
    loadStored();
    $("status").textContent = page.studyPosition ? page.studyPosition.status : "Open a stored game or a record.";
  } else if (page.game) {
    $("status").textContent = page.game.status;
    updateEval();
  }
  redraw();
}

function fillSelect(select, values, chosen) {
  select.replaceChildren();
  for (const v of values) {
    const option = document.createElement("option");
    option.value = option.textContent = v;
    if (String(v) === String(chosen)) option.selected = true;
    select.appendChild(option);
  }
}

async function start() {
  // The token of an exposed server came in the address; the server keeps it in a cookie now.
  if (new URLSearchParams(location.search).has("token")) history.replaceState(null, "", location.pathname);
  try {
    page.options = await api("GET", "/api/options");
  } catch (err) {
    say(err.message, "error");
    return;
  }
  const o = page.options;
  fillSelect($("size"), o.sizes, 6);
  fillSelect($("study-size"), o.sizes, 6);
  fillSelect($("variant"), o.variants, "codecup");
  fillSelect($("study-variant"), o.variants, "codecup");
  const setups = () => fillSelect($("setup"), o.setups[$("variant").value], o.setups[$("variant").value][0]);
  setups();
  $("variant").addEventListener("change", setups);
  $("bot").value = o.bot;
  $("bot").title = o.bot_usage;
  $("bot-checkpoints").textContent = o.checkpoints.map((c, i) => c + " = " + i).join(", ");
  fillSelect($("checkpoint"), ["", ...o.checkpoints], o.analysis_checkpoint || "");
  $("checkpoint").options[0].textContent = "(none)";
  fillSelect($("eval-by"), o.evaluators, "bot");
  fillSelect($("stored-db"), o.dbs, o.db);
  $("stored-db-label").hidden = o.dbs.length < 2;
  $("stored-db").addEventListener("change", loadStored);
  const L = o.limits;
  $("limits").textContent = "This server: bot@S takes " + L.bot_seconds[0] + " to " + L.bot_seconds[1] +
    " s for the whole game, at most " + L.move_seconds + " s on one move; ckpt:NAME@N at most " + L.simulations +
    " simulations a move; a hint searches " + L.hint_seconds + " s; " + L.searches + " searches at once and " + L.queue +
    " waiting (then: busy, try again); your newest " + L.games_per_client + " games are kept; requests at most " +
    Math.round(L.body_bytes / 1000) + " kB.";
  $("tab-play").addEventListener("click", () => setMode("play"));
  $("tab-study").addEventListener("click", () => setMode("study"));
  $("new-game").addEventListener("submit", newGame);
  $("pass").addEventListener("click", () => act("POST", "/api/games/" + page.game.id + "/move", { move: page.game.pass_name }, "You passed; the bot is thinking…"));
  $("undo").addEventListener("click", () => act("POST", "/api/games/" + page.game.id + "/undo", {}, "Undoing…"));
  $("retry").addEventListener("click", () => act("POST", "/api/games/" + page.game.id + "/bot", {}, "The bot is thinking…"));
  $("hint").addEventListener("click", askHint);
  $("review-back").addEventListener("click", leaveReview);
  $("review-play").addEventListener("click", () => {
    const k = page.review.ply;
    page.review = null;
    act("POST", "/api/games/" + page.game.id + "/undo", { ply: k }, "Going back to ply " + k + "…");
  });
  $("eval-by").addEventListener("change", updateEval);
  $("aid-eval").addEventListener("change", updateEval);
  $("record-form").addEventListener("submit", openRecord);
  $("first").addEventListener("click", () => gotoPly(0));
  $("prev").addEventListener("click", () => gotoPly(page.ply - 1));
  $("next").addEventListener("click", () => gotoPly(page.ply + 1));
  $("last").addEventListener("click", () => gotoPly(page.study ? page.study.plies : 0));
  $("ply").addEventListener("input", () => gotoPly(Number($("ply").value)));
  $("checkpoint").addEventListener("change", () => page.study && analyse());
  for (const id of ["aid-names", "aid-territory", "aid-red", "aid-white", "aid-heat", "aid-preview"]) $(id).addEventListener("change", redraw);
  document.addEventListener("keydown", (e) => {
    if (page.mode !== "study" || e.target.tagName === "INPUT" || e.target.tagName === "TEXTAREA") return;
    if (e.key === "ArrowRight") gotoPly(page.ply + 1);
    if (e.key === "ArrowLeft") gotoPly(page.ply - 1);
  });
  setMode("play");
  newGame();
}

start();
