// The arbiter dashboard: plain JS, no build step. State comes from /api/state and then
// lives on the /api/stream event stream (hello = everything, alert, claim, boards).
// Everything the daemon sends is put into the page as text, never as HTML.
"use strict";

(() => {
  const URGENCY = { game_end: 0, illegal: 1, suspicion: 2, connection: 3 };
  const STATE = { open: 0, acknowledged: 1, resolved: 2 };
  const GLYPH = {
    K: "\u265A", Q: "\u265B", R: "\u265C", B: "\u265D", N: "\u265E", P: "\u265F",
  };
  const view = {
    event: "", round: 0, boards: [], alerts: new Map(), claims: new Map(),
    errors: new Map(), historyBoard: null, historyPly: null,
  };
  let source = null;
  let audio = null;
  /** The cards on the page by alert id, with what they were made from. */
  const cards = new Map();

  const $ = (id) => document.getElementById(id);

  // "GM Lasker, Emanuel (2600)" when the pairing program's TRF gives title and rating.
  function tilePlayer(b, side) {
    const name = b[side] || (side === "white" ? "White" : "Black");
    const p = b.players && b.players[side];
    if (!p) return name;
    return `${p.title ? p.title + " " : ""}${name}${p.rating ? ` (${p.rating})` : ""}`;
  }

  /** An element with attributes and children (strings become text nodes). */
  function el(tag, props, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(props || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") e.className = v;
      else if (k === "dataset") Object.assign(e.dataset, v);
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? "" : String(v));
    }
    for (const c of children.flat(Infinity)) {
      if (c === null || c === undefined || c === false) continue;
      e.append(c instanceof Node ? c : String(c));
    }
    return e;
  }

  const pad = (n) => String(n).padStart(2, "0");
  function clock(ms) {
    if (ms === null || ms === undefined) return "-:--";
    const s = Math.floor(ms / 1000);
    const h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, x = s % 60;
    return h ? `${h}:${pad(m)}:${pad(x)}` : `${m}:${pad(x)}`;
  }
  const sideName = (c) => (c === "white" ? "White" : c === "black" ? "Black" : "?");
  function localTime(iso) {
    const d = new Date(iso);
    return isNaN(d) ? "" : `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  }
  const boardInfo = (n) => view.boards.find((b) => b.number === n);
  function player(board, color) {
    const b = boardInfo(board);
    const name = b && (color === "white" ? b.white : b.black);
    return name ? `${sideName(color)} (${name})` : sideName(color);
  }
  const token = () => localStorage.getItem("arbiterToken") || "";
  const ordinal = (n) => `${n}${n === 1 ? "st" : n === 2 ? "nd" : n === 3 ? "rd" : "th"}`;

  // ----- the board diagram -----

  /** Squares of a FEN's placement: {"e4": "P", ...}. */
  function placement(fen) {
    const out = {};
    const rows = String(fen || "").split(" ")[0].split("/");
    if (rows.length !== 8) return out;
    rows.forEach((row, i) => {
      let file = 0;
      for (const ch of row) {
        if (/[1-8]/.test(ch)) file += Number(ch);
        else if (/[KQRBNPkqrbnp]/.test(ch) && file < 8) {
          out["abcdefgh"[file] + String(8 - i)] = ch;
          file += 1;
        }
      }
    });
    return out;
  }

  /** An 8x8 grid, White at the bottom; `marks` maps squares to extra classes. */
  function diagram(fen, marks) {
    const pieces = placement(fen);
    const board = el("div", { class: "board", role: "img", "aria-label": `position ${fen}` });
    for (let rank = 8; rank >= 1; rank--) {
      for (let f = 0; f < 8; f++) {
        const sq = "abcdefgh"[f] + rank;
        const dark = (f + rank) % 2 === 1; // a1 is dark
        const p = pieces[sq];
        const cell = el("div", {
          class: `square ${dark ? "dark" : "light"} ${(marks[sq] || []).join(" ")}`.trim(),
          dataset: { square: sq },
        });
        if (p) {
          const white = p === p.toUpperCase();
          cell.append(el("span", { class: white ? "piece-w" : "piece-b" }, GLYPH[p.toUpperCase()]));
        }
        if (rank === 1) cell.append(el("span", { class: "coord file" }, "abcdefgh"[f]));
        if (f === 0) cell.append(el("span", { class: "coord rank" }, String(rank)));
        board.append(cell);
      }
    }
    return board;
  }

  /** The squares a ruling asks to change, by kind of change. */
  function restoreMarks(ev) {
    const marks = {};
    const add = (sq, cls) => { if (sq) (marks[sq] = marks[sq] || []).push(cls); };
    for (const step of ev.restore || []) {
      add(step.square, "hl");
      add(step.square, step.put ? "hl-put" : "hl-remove");
    }
    add(ev.must_move, "hl-must");
    return marks;
  }

  // ----- alert cards -----

  function clockTable(before, after) {
    const row = (color) => {
      const b = before ? before[color] : null;
      const a = after ? after[color] : null;
      return el("tr", null,
        el("th", null, sideName(color)),
        el("td", null, clock(b)),
        el("td", { class: after && a !== b ? "changed" : null }, after ? clock(a) : ""));
    };
    return el("table", { class: "clock-table" },
      el("tr", null, el("th", null, ""), el("th", null, "before"), el("th", null, after ? "after" : "")),
      row("white"), row("black"));
  }

  function illegalFacts(a) {
    const ev = a.event;
    const facts = [
      ["Offender", player(a.board, ev.color)],
      ["What", [a.details.category, ev.attempt ? `: ${ev.attempt.piece.toUpperCase() === "P" ? "" : ev.attempt.piece.toUpperCase()}${ev.attempt.from}-${ev.attempt.to}` : ""].join("")],
      ["Count", `${ordinal(ev.count)} illegal move of ${sideName(ev.color)}`],
    ];
    if (ev.penalty) facts.push(["Penalty", `add ${clock(ev.penalty.add_ms)} to ${sideName(ev.penalty.to)}`]);
    if (ev.result) facts.push(["Result", `${ev.result}${ev.result_undetermined ? " (undetermined: look at the position)" : ""}`]);
    const dl = el("dl", null, facts.map(([k, v]) => [el("dt", null, k), el("dd", null, v)]));
    if (a.details.steps.length) {
      dl.append(el("dt", null, ev.category === "unpromoted_pawn" ? "Correct" : "Put back"),
        el("dd", null, el("ol", { class: "steps" }, a.details.steps.map((s) => el("li", null, s)))));
    }
    if (ev.must_move) {
      dl.append(el("dt", null, "Must move"),
        el("dd", { class: "must-move" }, `the piece on ${ev.must_move} (touch-move)`));
    }
    if (ev.clock_before || ev.clock_after) {
      dl.append(el("dt", null, "Clocks"), el("dd", null, clockTable(ev.clock_before, ev.clock_after)));
    }
    return dl;
  }

  function card(a) {
    const ev = a.event || {};
    const body = el("div", { class: "card-body" });
    const facts = el("div", { class: "card-facts" });
    if (a.kind === "illegal_move") {
      facts.append(illegalFacts(a));
      body.append(facts, el("div", { class: "diagram" },
        diagram(ev.restore_fen, restoreMarks(ev)),
        el("div", { class: "diagram-legend" }, "to reinstate: ",
          el("span", { class: "legend-remove" }, "take off"), " / ",
          el("span", { class: "legend-put" }, "put on"), " / ",
          el("span", { class: "legend-must" }, "must move"))));
    } else if (a.kind === "illegal_move_stands") {
      facts.append(el("p", { class: "card-text" }, a.text));
      body.append(facts, el("div", { class: "diagram" }, diagram(ev.fen, {})));
    } else {
      facts.append(el("p", { class: "card-text" }, a.text || a.title));
      body.append(facts);
    }
    if (a.notes.length) {
      facts.append(el("ul", { class: "notes" }, a.notes.map((n) => el("li", null, `${n.text} (${localTime(n.at)})`))));
    }
    const actions = el("div", { class: "card-actions" });
    if (a.kind === "displaced" && a.state !== "resolved") actions.append(displacedPenaltyControls(a));
    if (a.kind === "result_disputed") {
      if (a.state !== "resolved") actions.append(resultDisputeButtons(a));
    } else if (a.state === "open") {
      actions.append(el("button", { type: "button", class: "primary act-ack", onclick: () => act(a.id, "ack") }, "Acknowledge"));
    }
    if (a.state !== "resolved" && a.kind !== "result_disputed") {
      actions.append(el("button", { type: "button", class: "act-resolve", onclick: () => act(a.id, "resolve") }, "Resolve"));
    }
    if (a.kind === "board_status" && ev.status === "out_of_sync" && a.state !== "resolved") {
      actions.append(...acceptBoardButtons(a));
      actions.append(enterMovesControls(a, ev.candidates || []));
    }
    if (view.errors.has(a.id)) actions.append(el("span", { class: "card-error", role: "alert" }, view.errors.get(a.id)));
    return el("article", {
      class: `alert-card urgency-${a.urgency}`,
      dataset: { id: a.id, kind: a.kind, state: a.state, board: String(a.board) },
    },
    el("div", { class: "card-head" },
      el("span", { class: "card-title" }, a.title),
      el("span", { class: "card-meta" }, `board ${a.board} \u00b7 ${localTime(a.at)} `,
        el("span", { class: `state ${a.state}` }, a.state))),
    body, actions);
  }

  // ----- the arbiter's decisions (art. 7.4 / 12.9 penalties, results) -----

  /**
   * Art. 7.4 / 12.9: the arbiter *may* penalise displaced pieces; nothing is applied
   * until he clicks. Declaring the game lost is offered for a second displacement by the
   * same player only, and takes a second click to confirm.
   */
  function displacedPenaltyControls(a) {
    const ev = a.event || {};
    const earlier = [...view.alerts.values()].filter((x) => x.kind === "displaced" &&
      x.board === a.board && x.event && x.event.color === ev.color && x.event.ply < ev.ply).length;
    const minutes = el("input", {
      type: "number", min: "0.5", max: "60", step: "0.5", value: "2",
      class: "penalty-minutes", "aria-label": "minutes to add to the opponent",
    });
    const wrap = el("span", { class: "penalty-actions" },
      el("button", { type: "button", class: "act-warn", onclick: () => decideDisplacedPenalty(a, "warning") }, "Warn"),
      minutes, " min ",
      el("button", {
        type: "button", class: "act-add-time",
        onclick: () => decideDisplacedPenalty(a, "time_added", Math.round(parseFloat(minutes.value) * 60000)),
      }, `Add time to ${sideName(ev.color === "white" ? "black" : "white")}`));
    if (earlier > 0) {
      const lost = el("button", { type: "button", class: "act-game-lost" }, `Declare the game lost by ${sideName(ev.color)}`);
      lost.addEventListener("click", () => {
        if (lost.dataset.armed === "yes") { decideDisplacedPenalty(a, "game_lost"); return; }
        lost.dataset.armed = "yes";
        lost.textContent = "Click again to declare it lost";
      });
      wrap.append(lost);
    }
    return wrap;
  }

  function decideDisplacedPenalty(a, decision, addMs) {
    const ev = a.event || {};
    const body = { decision, color: ev.color, ply: ev.ply };
    if (decision === "time_added") body.add_ms = addMs;
    return postBoardDecision(a.board, body, a.id);
  }

  /** The board and the arbiter disagree on the result: confirm one of them. */
  function resultDisputeButtons(a) {
    const ev = a.event || {};
    return el("span", { class: "dispute-actions" },
      el("button", {
        type: "button", class: "primary act-confirm-board",
        onclick: () => postBoardDecision(a.board, { decision: "result_confirmed", result: ev.board_result }, a.id),
      }, `Confirm the board's ${ev.board_result}`),
      el("button", {
        type: "button", class: "act-confirm-arbiter",
        onclick: () => postBoardDecision(a.board, { decision: "result_confirmed", result: ev.arbiter_result }, a.id),
      }, `Confirm the arbiter's ${ev.arbiter_result}`));
  }

  const ARBITER_RESULTS = ["1-0", "0-1", "1/2-1/2", "+-", "-+", "--"];

  /** The board's result and the arbiter's, with the override (set / clear). */
  function boardResultPanel(h) {
    const r = h.results || {};
    const choice = el("select", { class: "result-choice", "aria-label": "the arbiter's result" },
      ARBITER_RESULTS.map((x) => el("option", { value: x, selected: r.arbiter === x }, x)));
    return el("div", { class: "result-panel", dataset: { board: String(h.board) } },
      el("h2", null, "Result"),
      el("p", { class: "result-facts" },
        `the board: ${r.board || "none yet"} · the arbiter: ${r.arbiter || "none"}` +
        (r.disputed ? " · disputed: confirm one" : "")),
      choice,
      el("button", {
        type: "button", class: "act-set-result",
        onclick: () => postBoardDecision(h.board, { decision: "result_set", result: choice.value }, `result-${h.board}`),
      }, "Set the result"),
      r.arbiter ? el("button", {
        type: "button", class: "act-clear-result",
        onclick: () => postBoardDecision(h.board, { decision: "result_cleared" }, `result-${h.board}`),
      }, "Clear it") : "",
      view.errors.has(`result-${h.board}`)
        ? el("span", { class: "card-error", role: "alert" }, view.errors.get(`result-${h.board}`)) : "");
  }

  /** POST /api/boards/B/decision; an error is shown on the card (or panel) `errorKey`. */
  async function postBoardDecision(board, body, errorKey) {
    let r;
    try {
      r = await fetch(`/api/boards/${encodeURIComponent(board)}/decision`, {
        method: "POST", credentials: "same-origin",
        headers: Object.assign({ "Content-Type": "application/json" }, authHeaders()),
        body: JSON.stringify(body),
      });
    } catch (e) {
      view.errors.set(errorKey, "the daemon cannot be reached");
      renderAlerts();
      return;
    }
    const answer = await r.json().catch(() => ({}));
    if (!r.ok) {
      view.errors.set(errorKey, `refused (${r.status}): ${answer.error || r.statusText}`);
      if (r.status === 401 || r.status === 403) $("token-form").hidden = false;
    } else {
      view.errors.delete(errorKey);
    }
    renderAlerts();
    if (view.historyBoard !== null && $("history").open) refreshHistory();
  }

  function sortedAlerts() {
    return [...view.alerts.values()].sort((x, y) =>
      STATE[x.state] - STATE[y.state] || URGENCY[x.urgency] - URGENCY[y.urgency] ||
      y.wall_ms - x.wall_ms || x.board - y.board || x.seq - y.seq);
  }

  /**
   * The card of an alert, made again only when the alert (or its error) changed: a new
   * state from the stream must not swap the buttons under an arbiter's finger.
   */
  function cardOf(a) {
    const key = `${a.revision}|${a.state}|${view.errors.get(a.id) || ""}`;
    const kept = cards.get(a.id);
    if (kept && kept.key === key) return kept.node;
    const node = card(a);
    cards.set(a.id, { key, node });
    return node;
  }

  function renderAlerts() {
    const all = sortedAlerts();
    for (const id of [...cards.keys()]) if (!view.alerts.has(id)) cards.delete(id);
    const live = all.filter((a) => a.state !== "resolved");
    const done = all.filter((a) => a.state === "resolved");
    const open = live.filter((a) => a.state === "open").length;
    $("alerts").replaceChildren(...(live.length ? live.map(cardOf) : [el("p", { class: "empty" }, "No alerts.")]));
    $("alert-count").textContent = live.length ? `${open} open, ${live.length - open} acknowledged` : "";
    if (view.alertsMore) $("alert-count").textContent += ` \u00b7 ${view.alertsMore} more`;
    $("resolved-panel").hidden = done.length === 0;
    $("resolved-count").textContent = String(done.length);
    $("resolved").replaceChildren(...done.map(cardOf));
    document.title = open ? `(${open}) dgt-arbiter` : "dgt-arbiter dashboard";
  }

  function renderClaims() {
    const claims = [...view.claims.values()].sort((x, y) => x.board - y.board);
    $("claims").replaceChildren(...(claims.length
      ? claims.map((c) => el("div", { class: "claim", dataset: { board: String(c.board) } },
        el("strong", null, `Board ${c.board}: `), c.text))
      : [el("p", { class: "empty" }, "None now.")]));
  }

  // ----- boards -----

  function tile(b) {
    const toMove = b.state === "over" ? null : b.side_to_move;
    const c = b.clock_ms || {};
    const last = b.last_move
      ? `${Math.ceil(b.last_move.ply / 2)}.${b.last_move.color === "black" ? ".." : ""} ${b.last_move.san}`
      : "no move yet";
    const badges = [];
    if (!b.connected) badges.push(el("span", { class: "badge offline" }, "offline"));
    if (b.open_alerts) badges.push(el("span", { class: "badge alert" }, `${b.open_alerts} open`));
    if (b.unattended) badges.push(el("span", { class: "badge unattended" }, "unattended"));
    return el("button", {
      type: "button",
      class: `board-tile status-${b.status}`,
      dataset: { board: String(b.number), status: b.status },
      onclick: () => openHistory(b.number),
    },
    el("div", { class: "tile-head" }, el("span", null, `Board ${b.number}`), el("span", null, badges)),
    el("div", { class: "tile-players" }, `${tilePlayer(b, "white")} \u2013 ${tilePlayer(b, "black")}`),
    el("div", { class: "tile-clocks" },
      el("span", { class: toMove === "white" ? "to-move" : null, title: "White" }, clock(c.white)),
      el("span", { class: toMove === "black" ? "to-move" : null, title: "Black" }, clock(c.black))),
    el("div", { class: "tile-move" },
      b.result ? `${b.result} \u00b7 ${last}` : `move ${b.move_number}, ${sideName(b.side_to_move)} to move \u00b7 ${last}`),
    toControl(b));
  }

  // Classical controls with periods: each player's moves to the next control (art. 6).
  function toControl(b) {
    const t = b.to_control;
    if (!t || b.result) return null;
    const one = (n) => (n == null ? "no control left" : `${n} move${n === 1 ? "" : "s"} to the time control`);
    return el("div", { class: "tile-control", title: b.time_control },
      `White: ${one(t.white)} \u00b7 Black: ${one(t.black)}`);
  }

  function renderBoards() {
    $("boards").replaceChildren(...view.boards.map(tile));
    const online = view.boards.filter((b) => b.connected).length;
    $("board-count").textContent = `${online}/${view.boards.length} connected`;
  }

  // ----- history -----

  function touchLog(touches) {
    if (!touches || !touches.length) return "";
    const t0 = touches[0].t_ms;
    return touches.map((t) =>
      `${t.action === "lift" ? "\u2191" : "\u2193"}${t.piece}${t.square} +${((t.t_ms - t0) / 1000).toFixed(1)}s`).join("  ");
  }

  async function openHistory(n) {
    view.historyBoard = n;
    const dlg = $("history");
    $("history-title").textContent = `Board ${n}`;
    if (!dlg.open) {
      if (dlg.showModal) dlg.showModal(); else dlg.setAttribute("open", "");
    }
    await refreshHistory();
  }

  async function refreshHistory() {
    const n = view.historyBoard;
    if (n === null) return;
    const r = await fetch(`/api/boards/${n}/history`, { headers: authHeaders(), credentials: "same-origin" });
    const h = await r.json().catch(() => ({}));
    if (!r.ok) {
      $("history-body").replaceChildren(el("p", { class: "card-error" }, h.error || `error ${r.status}`));
      return;
    }
    view.historyPly = h.moves.length ? h.moves[h.moves.length - 1].ply : 0;
    $("history-title").textContent = `Board ${n}: ${tilePlayer(h, "white")} \u2013 ${tilePlayer(h, "black")}, game ${h.game}`;
    const rows = h.moves.map((m) => el("tr", { dataset: { ply: String(m.ply) } },
      el("td", null, `${Math.ceil(m.ply / 2)}${m.color === "black" ? "..." : "."}`),
      el("td", null, m.san),
      el("td", null, m.clock_ms ? clock(m.clock_ms[m.color]) : ""),
      el("td", null, m.pressed ? "" : "no press"),
      el("td", { class: "touches" }, touchLog(m.touches))));
    $("history-body").replaceChildren(
      el("table", { class: "history-table" },
        el("thead", null, el("tr", null, ["#", "move", "clock", "", "touch log (\u2191 lift, \u2193 place)"].map((t) => el("th", null, t)))),
        el("tbody", null, rows.length ? rows : el("tr", null, el("td", { colspan: 5 }, "No moves yet.")))),
      boardResultPanel(h),
      h.alerts.length ? el("h2", null, "Alerts on this board") : "",
      h.alerts.map(card));
  }

  // ----- state and stream -----

  function upsertAlert(a, live) {
    const old = view.alerts.get(a.id);
    if (old && old.revision >= a.revision && old.state === a.state) return;
    view.alerts.set(a.id, a);
    if (live && !old && a.state === "open" && URGENCY[a.urgency] <= URGENCY.illegal) beep();
  }

  function applyState(s) {
    view.event = s.event;
    view.round = s.round;
    view.boards = s.boards;
    view.alerts = new Map(s.alerts.map((a) => [a.id, a]));
    view.alertsMore = s.alerts_more || 0;
    view.claims = new Map(s.claims.map((c) => [c.board, c]));
    $("event").textContent = `${s.event} \u00b7 round ${s.round}`;
    renderWarnings(s.warnings || []);
    renderBoards();
    renderAlerts();
    renderClaims();
    renderPush(s.push);
  }

  // The last push of the delayed round PGN to the broadcast server, and its answer.
  function renderPush(p) {
    const e = $("push");
    if (!p) { e.hidden = true; return; }
    e.hidden = false;
    e.className = `push ${p.ok ? "on" : "off"}`;
    const answer = p.status === null ? p.answer : `${p.status} ${p.answer}`;
    e.textContent = `push ${p.ok ? "ok" : "failed"} ${p.at.slice(11, 19)}: ${p.games} games`;
    e.title = `last push to the broadcast server at ${p.at}: ${answer}`;
  }

  /** The daemon's own problems (a full disk, a deleted output folder), above the boards. */
  function renderWarnings(list) {
    const w = $("warnings");
    if (!w) return;
    w.replaceChildren(...list.map((x) => el("div", { class: "warning", role: "alert" }, x.text)));
    w.hidden = list.length === 0;
  }

  function setLive(on, text) {
    const l = $("live");
    l.className = `live ${on ? "on" : "off"}`;
    l.textContent = text || (on ? "live" : "reconnecting");
  }

  function connect() {
    if (source) source.close();
    source = new EventSource("/api/stream", { withCredentials: true });
    source.addEventListener("open", () => setLive(true));
    source.addEventListener("error", () => setLive(false, source.readyState === EventSource.CLOSED ? "offline" : "reconnecting"));
    source.addEventListener("hello", (m) => { applyState(JSON.parse(m.data)); setLive(true); });
    source.addEventListener("alert", (m) => {
      upsertAlert(JSON.parse(m.data), true);
      renderAlerts();
      if (view.historyBoard !== null) refreshHistory();
    });
    source.addEventListener("claim", (m) => {
      const c = JSON.parse(m.data);
      if (c.claim) view.claims.set(c.board, c.claim); else view.claims.delete(c.board);
      renderClaims();
    });
    source.addEventListener("warnings", (m) => renderWarnings(JSON.parse(m.data)));
    source.addEventListener("push", (m) => renderPush(JSON.parse(m.data)));
    source.addEventListener("boards", (m) => {
      view.boards = JSON.parse(m.data);
      renderBoards();
      const b = view.historyBoard !== null && boardInfo(view.historyBoard);
      if (b && b.ply !== view.historyPly && $("history").open) refreshHistory();
    });
  }

  function authHeaders() {
    const t = token();
    return t ? { "X-Arbiter-Token": t } : {};
  }

  function notice(text) {
    const n = $("notice");
    n.textContent = text || "";
    n.hidden = !text;
  }

  async function start() {
    const r = await fetch("/api/state", { headers: authHeaders(), credentials: "same-origin" }).catch(() => null);
    if (!r) { setLive(false, "offline"); setTimeout(start, 3000); return; }
    if (r.status === 401 || r.status === 403) {
      const e = await r.json().catch(() => ({}));
      notice(`This dashboard is private: enter the arbiter token ([http] token in the daemon's config, or else the file arbiter-token in its output folder). (${e.error || r.status})`);
      $("token-form").hidden = false;
      setLive(false, "locked");
      return;
    }
    applyState(await r.json());
    if (token()) await login(false);
    connect();
  }

  // ----- actions -----

  async function act(id, action) {
    let r;
    try {
      r = await fetch(`/api/alerts/${encodeURIComponent(id)}/${action}`, {
        method: "POST", headers: authHeaders(), credentials: "same-origin",
      });
    } catch (e) {
      view.errors.set(id, "the daemon cannot be reached");
      renderAlerts();
      return;
    }
    const body = await r.json().catch(() => ({}));
    if (!r.ok) {
      view.errors.set(id, `refused (${r.status}): ${body.error || r.statusText}`);
      if (r.status === 401 || r.status === 403) $("token-form").hidden = false;
    } else {
      view.errors.delete(id);
      upsertAlert(body, false);
    }
    renderAlerts();
    if (view.historyBoard !== null && $("history").open) refreshHistory();
  }

  /** An out-of-sync board's card: accept what the board shows, White or Black to move, at
   * the ply the scoresheets give (left empty: the clock's count, or "not known"). */
  function acceptBoardButtons(a) {
    const ply = el("input", {
      type: "number", min: "0", class: "act-accept-ply", "aria-label": "ply from the scoresheets",
      placeholder: "ply (scoresheet)",
    });
    return [ply, ...["white", "black"].map((side) => el("button", {
      type: "button", class: `act-accept-${side}`, onclick: () => acceptBoard(a, side, ply.value),
    }, `Accept board, ${side === "white" ? "White" : "Black"} to move`))];
  }

  /** An out-of-sync board's card: the moves of the gap, from the scoresheets (issue 40):
   * a button per line found, or typed (SAN or UCI, spaces between, move numbers allowed). */
  function enterMovesControls(a, candidates) {
    const box = el("div", { class: "enter-moves" });
    for (const c of candidates) {
      box.append(el("button", {
        type: "button", class: "act-enter-line",
        onclick: () => enterMoves(a, sanList(c.san), c.ply - 1),
      }, `Record ${c.san}`));
    }
    const typed = el("input", {
      type: "text", class: "act-moves-text", "aria-label": "the moves of the gap",
      placeholder: "moves of the gap, e.g. 8. Nd4 Qg5",
    });
    box.append(typed, el("button", {
      type: "button", class: "act-enter-moves",
      onclick: () => enterMoves(a, sanList(typed.value), null),
    }, "Enter moves"));
    return box;
  }

  /** `8. Nd4 Qg5 9. Nf5` → ["Nd4", "Qg5", "Nf5"]. */
  function sanList(text) {
    return text.split(/\s+/).map((t) => t.replace(/^[0-9]+\.+/, "")).filter((t) => t.length > 0);
  }

  async function enterMoves(a, moves, fromPly) {
    if (!moves.length) {
      view.errors.set(a.id, "no moves given");
      renderAlerts();
      return;
    }
    const payload = { moves };
    if (fromPly !== null && fromPly >= 0) payload.from_ply = fromPly;
    let r;
    try {
      r = await fetch(`/api/boards/${encodeURIComponent(a.board)}/moves`, {
        method: "POST", credentials: "same-origin",
        headers: Object.assign({ "Content-Type": "application/json" }, authHeaders()),
        body: JSON.stringify(payload),
      });
    } catch (e) {
      view.errors.set(a.id, "the daemon cannot be reached");
      renderAlerts();
      return;
    }
    const body = await r.json().catch(() => ({}));
    if (!r.ok) {
      view.errors.set(a.id, `refused (${r.status}): ${body.error || r.statusText}`);
      if (r.status === 401 || r.status === 403) $("token-form").hidden = false;
    } else {
      view.errors.delete(a.id);
    }
    renderAlerts();
  }

  async function acceptBoard(a, side, ply) {
    const query = /^[0-9]{1,6}$/.test(ply || "") ? `?ply=${ply}` : "";
    let r;
    try {
      r = await fetch(`/api/boards/${encodeURIComponent(a.board)}/accept/${side}${query}`, {
        method: "POST", headers: authHeaders(), credentials: "same-origin",
      });
    } catch (e) {
      view.errors.set(a.id, "the daemon cannot be reached");
      renderAlerts();
      return;
    }
    const body = await r.json().catch(() => ({}));
    if (!r.ok) {
      view.errors.set(a.id, `refused (${r.status}): ${body.error || r.statusText}`);
      if (r.status === 401 || r.status === 403) $("token-form").hidden = false;
    } else {
      // The card resolves from the stream ("back in sync").
      view.errors.delete(a.id);
    }
    renderAlerts();
  }

  /** Checks the token and opens a read session (for private dashboards). */
  async function login(report) {
    const status = $("token-status");
    const r = await fetch("/api/login", { method: "POST", headers: authHeaders(), credentials: "same-origin" }).catch(() => null);
    if (!r) { if (report) status.textContent = "the daemon cannot be reached"; return false; }
    if (r.ok) {
      if (report) status.textContent = "token checked";
      return true;
    }
    const e = await r.json().catch(() => ({}));
    status.textContent = `refused: ${e.error || r.status}`;
    return false;
  }

  function beep() {
    if (!$("sound").checked) return;
    try {
      audio = audio || new AudioContext();
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = 880;
      gain.gain.value = 0.15;
      osc.connect(gain).connect(audio.destination);
      osc.start();
      osc.stop(audio.currentTime + 0.3);
    } catch (e) {
      // No audio on this device: the page still works.
    }
  }

  function wire() {
    const sound = $("sound");
    sound.checked = localStorage.getItem("arbiterSound") === "on";
    sound.addEventListener("change", () => {
      localStorage.setItem("arbiterSound", sound.checked ? "on" : "off");
      if (sound.checked) { audio = audio || new AudioContext(); audio.resume(); beep(); }
    });
    $("token-button").addEventListener("click", () => {
      const f = $("token-form");
      f.hidden = !f.hidden;
      if (!f.hidden) $("token").focus();
    });
    $("token-form").addEventListener("submit", async (e) => {
      e.preventDefault();
      const t = $("token").value.trim();
      if (!t) return;
      localStorage.setItem("arbiterToken", t);
      $("token").value = "";
      if (await login(true)) {
        view.errors.clear();
        notice("");
        await start();
        // Said once the page shows what the token allows.
        $("token-status").textContent = "token accepted";
      }
    });
    $("token-forget").addEventListener("click", () => {
      localStorage.removeItem("arbiterToken");
      $("token-status").textContent = "token forgotten";
    });
    $("history-close").addEventListener("click", () => {
      view.historyBoard = null;
      $("history").close();
    });
    $("history").addEventListener("close", () => { view.historyBoard = null; });
  }

  wire();
  start();
})();
