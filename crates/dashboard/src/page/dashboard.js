// The arbiter dashboard: plain JS, no build step. State comes from /api/state and then
// lives on the /api/stream event stream (hello = everything, alert, claim, boards).
// Everything the daemon sends is put into the page as text, never as HTML.
// Words: the daemon's catalogue (/api/messages, the same Fluent files as the rulings) in
// the language asked for (?lang=, else the one picked in the selector, else the
// browser's, else the event's); alerts come already said in it (?lang= on each route).
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
  /** The page's language and its words (id -> text with {$name} to fill). */
  const i18n = { lang: "en", messages: {} };
  /** The cards on the page by alert id, with what they were made from. */
  const cards = new Map();

  const $ = (id) => document.getElementById(id);

  /** A message of the catalogue with its {$name}s filled (the id itself if missing). */
  function t(id, args) {
    const text = i18n.messages[id];
    if (text === undefined) return id;
    return text.replace(/\{\$([A-Za-z0-9_-]+)\}/g, (whole, name) =>
      (args && args[name] !== undefined && args[name] !== null ? String(args[name]) : whole));
  }

  /** A move (or a line) in SAN with the language's piece letters (`Ng8` is `Кg8` in
   * Russian); squares, castling and move numbers stay. */
  function sanIn(san) {
    const letters = t("dash-san-letters").split(" ");
    if (i18n.lang === "en" || letters.length !== 5) return san;
    return String(san).replace(/[KQRBN]/g, (p) => letters["KQRBN".indexOf(p)]);
  }

  /** `?lang=xx` for the routes with words (& joins it to a query already there). */
  const langQuery = (join) => `${join || "?"}lang=${encodeURIComponent(i18n.lang)}`;

  /** The language asked for: the page's ?lang=, else the one picked here before. */
  function askedLanguage() {
    const fromUrl = new URLSearchParams(location.search).get("lang");
    return fromUrl || localStorage.getItem("arbiterLanguage") || "";
  }

  /** Loads the catalogue; an unknown code (400) falls back to the browser's or event's. */
  async function loadLanguage() {
    const asked = askedLanguage();
    let r = await fetch(`/api/messages${asked ? `?lang=${encodeURIComponent(asked)}` : ""}`).catch(() => null);
    if (r && r.status === 400) {
      // A code the daemon does not speak (kept from an older version?): forgotten.
      localStorage.removeItem("arbiterLanguage");
      r = await fetch("/api/messages").catch(() => null);
    }
    const c = r && r.ok ? await r.json().catch(() => null) : null;
    if (!c || !c.messages) return false;
    i18n.lang = c.language;
    i18n.messages = c.messages;
    document.documentElement.lang = c.language;
    for (const e of document.querySelectorAll("[data-msg]")) e.textContent = t(e.dataset.msg);
    for (const e of document.querySelectorAll("[data-msg-title]")) e.title = t(e.dataset.msgTitle);
    for (const e of document.querySelectorAll("[data-msg-aria]")) e.setAttribute("aria-label", t(e.dataset.msgAria));
    const picker = $("language");
    picker.replaceChildren(...(c.languages || []).map((l) =>
      el("option", { value: l.code, selected: l.code === c.language }, l.name)));
    picker.hidden = false;
    cards.clear();
    return true;
  }

  // "GM Lasker, Emanuel (2600)" when the pairing program's TRF gives title and rating.
  function tilePlayer(b, side) {
    const name = b[side] || sideName(side);
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
  const sideName = (c) => (c === "white" ? t("dash-white") : c === "black" ? t("dash-black") : "?");
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
    const board = el("div", { class: "board", role: "img", "aria-label": t("dash-position", { fen }) });
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
      el("tr", null, el("th", null, ""), el("th", null, t("dash-before")), el("th", null, after ? t("dash-after") : "")),
      row("white"), row("black"));
  }

  function illegalFacts(a) {
    const ev = a.event;
    const d = a.details;
    const facts = [
      [t("dash-offender"), player(a.board, ev.color)],
      [t("dash-what"), [d.category, d.attempt ? `: ${d.attempt}` : ""].join("")],
      [t("dash-count"), d.count],
    ];
    if (d.penalty) facts.push([t("dash-penalty"), d.penalty]);
    if (ev.result) facts.push([t("dash-result"), ev.result_undetermined ? t("dash-result-undetermined", { result: ev.result }) : ev.result]);
    const dl = el("dl", null, facts.map(([k, v]) => [el("dt", null, k), el("dd", null, v)]));
    if (a.details.steps.length) {
      dl.append(el("dt", null, ev.category === "unpromoted_pawn" ? t("dash-correct") : t("dash-put-back")),
        el("dd", null, el("ol", { class: "steps" }, a.details.steps.map((s) => el("li", null, s)))));
    }
    if (ev.must_move) {
      dl.append(el("dt", null, t("dash-must-move")),
        el("dd", { class: "must-move" }, t("dash-must-move-piece", { square: ev.must_move })));
    }
    if (ev.clock_before || ev.clock_after) {
      dl.append(el("dt", null, t("dash-clocks")), el("dd", null, clockTable(ev.clock_before, ev.clock_after)));
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
        el("div", { class: "diagram-legend" }, `${t("dash-to-reinstate")} `,
          el("span", { class: "legend-remove" }, t("dash-take-off")), " / ",
          el("span", { class: "legend-put" }, t("dash-put-on")), " / ",
          el("span", { class: "legend-must" }, t("dash-must-move").toLowerCase()))));
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
      actions.append(el("button", { type: "button", class: "primary act-ack", onclick: () => act(a.id, "ack") }, t("dash-acknowledge")));
    }
    if (a.state !== "resolved" && a.kind !== "result_disputed") {
      actions.append(el("button", { type: "button", class: "act-resolve", onclick: () => act(a.id, "resolve") }, t("dash-resolve")));
    }
    if (a.kind === "board_status" && ev.status === "out_of_sync" && a.state !== "resolved") {
      actions.append(...acceptBoardButtons(a));
      actions.append(enterMovesControls(a, ev.candidates || []));
    }
    if (token() && Number.isInteger(ev.ply)) actions.append(evidenceButton(a, ev.ply));
    if (view.errors.has(a.id)) actions.append(el("span", { class: "card-error", role: "alert" }, view.errors.get(a.id)));
    return el("article", {
      class: `alert-card urgency-${a.urgency}`,
      dataset: { id: a.id, kind: a.kind, state: a.state, board: String(a.board) },
    },
    el("div", { class: "card-head" },
      el("span", { class: "card-title" }, a.title),
      el("span", { class: "card-meta" }, `${t("dash-card-board", { board: a.board })} \u00b7 ${localTime(a.at)} `,
        el("span", { class: `state ${a.state}` }, t(`dash-state-${a.state}`)))),
    body, actions);
  }

  /**
   * The evidence pack of the card's board and ply (issue 40), one `.tar` from
   * `GET /api/boards/B/evidence?ply=N`: a link cannot send the token's header, so it is
   * fetched, then saved through a temporary `<a download>`. What came of it is said
   * beside the button, in place (the card is not made again for it).
   */
  function evidenceButton(a, ply) {
    const said = el("span", { class: "evidence-status", role: "status" });
    /** `state`: "making", "saved" or "failed" (a card error). */
    const say = (state, text) => {
      said.className = `evidence-status ${state === "failed" ? "card-error" : `evidence-${state}`}`;
      said.textContent = text;
    };
    const button = el("button", {
      type: "button", class: "act-evidence", title: t("dash-evidence-title", { board: a.board, ply }),
      onclick: async () => {
        button.disabled = true;
        say("making", t("dash-evidence-making"));
        try {
          const r = await fetch(`/api/boards/${a.board}/evidence?ply=${ply}`, {
            headers: authHeaders(), credentials: "same-origin",
          });
          if (!r.ok) {
            const answer = await r.json().catch(() => ({}));
            say("failed", t("dash-refused", { status: r.status, why: answer.error || r.statusText }));
            if (r.status === 401 || r.status === 403) $("token-form").hidden = false;
            return;
          }
          const blob = await r.blob();
          const name = `board-${a.board}-ply-${ply}-evidence.tar`;
          const url = URL.createObjectURL(blob);
          const link = el("a", { href: url, download: name, hidden: true });
          document.body.append(link);
          link.click();
          link.remove();
          setTimeout(() => URL.revokeObjectURL(url), 60000);
          say("saved", t("dash-evidence-saved", { file: name, kb: Math.ceil(blob.size / 1024) }));
        } catch (e) {
          say("failed", t("dash-unreachable"));
        } finally {
          button.disabled = false;
        }
      },
    }, t("dash-evidence"));
    return el("span", { class: "evidence" }, button, said);
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
      class: "penalty-minutes", "aria-label": t("dash-minutes-label"),
    });
    const wrap = el("span", { class: "penalty-actions" },
      el("button", { type: "button", class: "act-warn", onclick: () => decideDisplacedPenalty(a, "warning") }, t("dash-warn")),
      minutes, ` ${t("dash-min")} `,
      el("button", {
        type: "button", class: "act-add-time",
        onclick: () => decideDisplacedPenalty(a, "time_added", Math.round(parseFloat(minutes.value) * 60000)),
      }, t(`dash-add-time-${ev.color === "white" ? "black" : "white"}`)));
    if (earlier > 0) {
      const lost = el("button", { type: "button", class: "act-game-lost" }, t(`dash-game-lost-${ev.color === "white" ? "white" : "black"}`));
      lost.addEventListener("click", () => {
        if (lost.dataset.armed === "yes") { decideDisplacedPenalty(a, "game_lost"); return; }
        lost.dataset.armed = "yes";
        lost.textContent = t("dash-click-again");
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
      }, t("dash-confirm-board", { result: ev.board_result })),
      el("button", {
        type: "button", class: "act-confirm-arbiter",
        onclick: () => postBoardDecision(a.board, { decision: "result_confirmed", result: ev.arbiter_result }, a.id),
      }, t("dash-confirm-arbiter", { result: ev.arbiter_result })));
  }

  const ARBITER_RESULTS = ["1-0", "0-1", "1/2-1/2", "+-", "-+", "--"];

  /** The board's result and the arbiter's, with the override (set / clear). */
  function boardResultPanel(h) {
    const r = h.results || {};
    const choice = el("select", { class: "result-choice", "aria-label": t("dash-arbiter-result-label") },
      ARBITER_RESULTS.map((x) => el("option", { value: x, selected: r.arbiter === x }, x)));
    return el("div", { class: "result-panel", dataset: { board: String(h.board) } },
      el("h2", null, t("dash-result")),
      el("p", { class: "result-facts" },
        t("dash-result-facts", { board: r.board || t("dash-none-yet"), arbiter: r.arbiter || t("dash-none") }) +
        (r.disputed ? ` ${t("dash-disputed")}` : "")),
      choice,
      el("button", {
        type: "button", class: "act-set-result",
        onclick: () => postBoardDecision(h.board, { decision: "result_set", result: choice.value }, `result-${h.board}`),
      }, t("dash-set-result")),
      r.arbiter ? el("button", {
        type: "button", class: "act-clear-result",
        onclick: () => postBoardDecision(h.board, { decision: "result_cleared" }, `result-${h.board}`),
      }, t("dash-clear-result")) : "",
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
      view.errors.set(errorKey, t("dash-unreachable"));
      renderAlerts();
      return;
    }
    const answer = await r.json().catch(() => ({}));
    if (!r.ok) {
      view.errors.set(errorKey, t("dash-refused", { status: r.status, why: answer.error || r.statusText }));
      if (r.status === 401 || r.status === 403) $("token-form").hidden = false;
    } else {
      view.errors.delete(errorKey);
    }
    renderAlerts();
    if (view.historyBoard !== null && $("history").open) refreshHistory();
  }

  // ----- the arbiter's desk (issue 40): take back, set the clocks -----

  /** The desk of each board by number: its panel (kept across the history's refreshes,
   * so what the arbiter typed stays) and the daemon's last answer. */
  const desks = new Map();

  /** `1:30:00` or `90:00` (or `4:05`) in ms; null for anything else. */
  function parseClock(text) {
    const parts = String(text || "").trim().split(":");
    if (parts.length < 2 || parts.length > 3 || !parts.every((x) => /^[0-9]{1,3}$/.test(x))) return null;
    const n = parts.map(Number);
    const [h, m, s] = parts.length === 3 ? n : [0, n[0], n[1]];
    if (s > 59 || (parts.length === 3 && m > 59)) return null;
    return ((h * 60 + m) * 60 + s) * 1000;
  }

  /** A board's desk, in its history, for the arbiter only (the page has his token):
   * **Take back to ply N** (art. 7.5.1, `POST /api/boards/B/takeback`) and **Set clocks**
   * (art. 6.10 / 12.9, `POST /api/boards/B/clock`), each with his reason; the daemon's
   * answer (done, or why not) under them. */
  function deskPanel(board) {
    if (!token()) return "";
    const key = `${board}|${i18n.lang}`;
    const kept = desks.get(board);
    if (kept && kept.key === key) return kept.node;
    const ply = el("input", {
      type: "number", min: "0", class: "desk-ply", "aria-label": t("dash-takeback-ply-label"),
      placeholder: t("dash-takeback-ply-placeholder"),
    });
    const takeReason = el("input", {
      type: "text", class: "desk-takeback-reason", maxlength: "300",
      "aria-label": t("dash-reason-label"), placeholder: t("dash-takeback-reason-placeholder"),
    });
    const takeLabel = () => t("dash-takeback", { ply: /^[0-9]+$/.test(ply.value) ? ply.value : "N" });
    const takeButton = el("button", { type: "button", class: "act-takeback" }, takeLabel());
    ply.addEventListener("input", () => { takeButton.textContent = takeLabel(); });
    const time = (side) => el("input", {
      type: "text", class: `desk-clock-${side}`, inputmode: "numeric", size: "8",
      "aria-label": t(`dash-clock-${side}-label`), title: t(`dash-clock-${side}-label`),
      placeholder: t("dash-clock-placeholder"),
    });
    const white = time("white");
    const black = time("black");
    const clockReason = el("input", {
      type: "text", class: "desk-clock-reason", maxlength: "300",
      "aria-label": t("dash-reason-label"), placeholder: t("dash-clock-reason-placeholder"),
    });
    const clockButton = el("button", { type: "button", class: "act-set-clocks" }, t("dash-set-clocks"));
    const answer = el("p", { class: "desk-answer", role: "status", hidden: true });
    const desk = { key, node: null, answer };
    takeButton.addEventListener("click", () => {
      if (!/^[0-9]{1,4}$/.test(ply.value)) { deskAnswer(desk, false, t("dash-bad-ply")); return; }
      postDesk(desk, board, "takeback", { to_ply: Number(ply.value), reason: takeReason.value.trim() },
        (r) => t("dash-taken-back", { ply: r.ply }));
    });
    clockButton.addEventListener("click", () => {
      const w = parseClock(white.value);
      const b = parseClock(black.value);
      if (w === null || b === null) {
        deskAnswer(desk, false, t("dash-bad-time", { value: (w === null ? white : black).value.trim() }));
        return;
      }
      postDesk(desk, board, "clock", { white_ms: w, black_ms: b, reason: clockReason.value.trim() },
        () => t("dash-clocks-set", { white: clock(w), black: clock(b) }));
    });
    desk.node = el("div", { class: "desk-panel", dataset: { board: String(board) } },
      el("h2", null, t("dash-desk")),
      el("div", { class: "desk-row desk-takeback" }, ply, takeReason, takeButton),
      el("div", { class: "desk-row desk-clocks" },
        el("label", null, `${sideName("white")} `, white), el("label", null, `${sideName("black")} `, black),
        clockReason, clockButton),
      answer);
    desks.set(board, desk);
    return desk.node;
  }

  /** The daemon's answer on the desk: done (`ok`) or the refusal, until the next one. */
  function deskAnswer(desk, ok, text) {
    desk.answer.textContent = text;
    desk.answer.className = `desk-answer ${ok ? "desk-ok" : "card-error"}`;
    desk.answer.dataset.ok = ok ? "yes" : "no";
    desk.answer.hidden = false;
  }

  /** POST /api/boards/B/{takeback,clock}; the answer on the desk (`done` says it). */
  async function postDesk(desk, board, route, body, done) {
    let r;
    try {
      r = await fetch(`/api/boards/${encodeURIComponent(board)}/${route}`, {
        method: "POST", credentials: "same-origin",
        headers: Object.assign({ "Content-Type": "application/json" }, authHeaders()),
        body: JSON.stringify(body),
      });
    } catch (e) {
      deskAnswer(desk, false, t("dash-unreachable"));
      return;
    }
    const answer = await r.json().catch(() => ({}));
    if (!r.ok) {
      deskAnswer(desk, false, t("dash-refused", { status: r.status, why: answer.error || r.statusText }));
      if (r.status === 401 || r.status === 403) $("token-form").hidden = false;
      return;
    }
    deskAnswer(desk, true, done(answer));
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
    const key = `${a.revision}|${a.state}|${i18n.lang}|${view.errors.get(a.id) || ""}`;
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
    $("alerts").replaceChildren(...(live.length ? live.map(cardOf) : [el("p", { class: "empty" }, t("dash-no-alerts"))]));
    $("alert-count").textContent = live.length ? t("dash-alert-count", { open, acknowledged: live.length - open }) : "";
    if (view.alertsMore) $("alert-count").textContent += ` \u00b7 ${t("dash-more", { count: view.alertsMore })}`;
    $("resolved-panel").hidden = done.length === 0;
    $("resolved-count").textContent = String(done.length);
    $("resolved").replaceChildren(...done.map(cardOf));
    document.title = open ? `(${open}) dgt-arbiter` : t("dash-title");
  }

  function renderClaims() {
    const claims = [...view.claims.values()].sort((x, y) => x.board - y.board);
    $("claims").replaceChildren(...(claims.length
      ? claims.map((c) => el("div", { class: "claim", dataset: { board: String(c.board) } },
        el("strong", null, `${t("dash-board", { board: c.board })}: `), c.text))
      : [el("p", { class: "empty" }, t("dash-none-now"))]));
  }

  // ----- boards -----

  function tile(b) {
    const toMove = b.state === "over" ? null : b.side_to_move;
    const c = b.clock_ms || {};
    const last = b.last_move
      ? `${Math.ceil(b.last_move.ply / 2)}.${b.last_move.color === "black" ? ".." : ""} ${sanIn(b.last_move.san)}`
      : t("dash-no-move-yet");
    const badges = [];
    if (!b.connected) badges.push(el("span", { class: "badge offline" }, t("dash-offline")));
    if (b.open_alerts) badges.push(el("span", { class: "badge alert" }, t("dash-open-badge", { count: b.open_alerts })));
    if (b.unattended) badges.push(el("span", { class: "badge unattended" }, t("dash-unattended")));
    return el("button", {
      type: "button",
      class: `board-tile status-${b.status}`,
      dataset: { board: String(b.number), status: b.status },
      onclick: () => openHistory(b.number),
    },
    el("div", { class: "tile-head" }, el("span", null, t("dash-board", { board: b.number })), el("span", null, badges)),
    el("div", { class: "tile-players" }, `${tilePlayer(b, "white")} \u2013 ${tilePlayer(b, "black")}`),
    el("div", { class: "tile-clocks" },
      el("span", { class: toMove === "white" ? "to-move" : null, title: sideName("white") }, clock(c.white)),
      el("span", { class: toMove === "black" ? "to-move" : null, title: sideName("black") }, clock(c.black))),
    el("div", { class: "tile-move" },
      b.result ? `${b.result} \u00b7 ${last}` : `${t(`dash-move-${b.side_to_move === "black" ? "black" : "white"}`, { move: b.move_number })} \u00b7 ${last}`),
    toControl(b));
  }

  // Classical controls with periods: each player's moves to the next control (art. 6).
  function toControl(b) {
    const tc = b.to_control;
    if (!tc || b.result) return null;
    const one = (n) => (n == null ? t("dash-no-control-left")
      : n === 1 ? t("dash-one-move-to-control") : t("dash-moves-to-control", { count: n }));
    return el("div", { class: "tile-control", title: b.time_control },
      `${sideName("white")}: ${one(tc.white)} \u00b7 ${sideName("black")}: ${one(tc.black)}`);
  }

  function renderBoards() {
    $("boards").replaceChildren(...view.boards.map(tile));
    const online = view.boards.filter((b) => b.connected).length;
    $("board-count").textContent = t("dash-connected-count", { online, total: view.boards.length });
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
    $("history-title").textContent = t("dash-board", { board: n });
    if (!dlg.open) {
      if (dlg.showModal) dlg.showModal(); else dlg.setAttribute("open", "");
    }
    await refreshHistory();
  }

  async function refreshHistory() {
    const n = view.historyBoard;
    if (n === null) return;
    const r = await fetch(`/api/boards/${n}/history${langQuery()}`, { headers: authHeaders(), credentials: "same-origin" });
    const h = await r.json().catch(() => ({}));
    if (!r.ok) {
      $("history-body").replaceChildren(el("p", { class: "card-error" }, h.error || t("dash-error-status", { status: r.status })));
      return;
    }
    view.historyPly = h.moves.length ? h.moves[h.moves.length - 1].ply : 0;
    $("history-title").textContent = t("dash-history-title",
      { board: n, players: `${tilePlayer(h, "white")} \u2013 ${tilePlayer(h, "black")}`, game: h.game });
    const rows = h.moves.map((m) => el("tr", { dataset: { ply: String(m.ply) } },
      el("td", null, `${Math.ceil(m.ply / 2)}${m.color === "black" ? "..." : "."}`),
      el("td", null, sanIn(m.san)),
      el("td", null, m.clock_ms ? clock(m.clock_ms[m.color]) : ""),
      el("td", null, m.pressed ? "" : t("dash-no-press")),
      el("td", { class: "touches" }, touchLog(m.touches))));
    $("history-body").replaceChildren(
      el("table", { class: "history-table" },
        el("thead", null, el("tr", null, ["#", t("dash-history-move"), t("dash-history-clock"), "", t("dash-history-touches")].map((x) => el("th", null, x)))),
        el("tbody", null, rows.length ? rows : el("tr", null, el("td", { colspan: 5 }, t("dash-no-moves"))))),
      boardResultPanel(h),
      deskPanel(h.board),
      h.alerts.length ? el("h2", null, t("dash-board-alerts")) : "",
      ...h.alerts.map(card));
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
    $("event").textContent = `${s.event} \u00b7 ${t("dash-round", { round: s.round })}`;
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
    e.textContent = t(p.ok ? "dash-push-ok" : "dash-push-failed", { time: p.at.slice(11, 19), games: p.games });
    e.title = t("dash-push-last", { at: p.at, answer });
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
    l.textContent = text || (on ? t("dash-live") : t("dash-reconnecting"));
  }

  function connect() {
    if (source) source.close();
    source = new EventSource(`/api/stream${langQuery()}`, { withCredentials: true });
    source.addEventListener("open", () => setLive(true));
    source.addEventListener("error", () => setLive(false, source.readyState === EventSource.CLOSED ? t("dash-offline") : t("dash-reconnecting")));
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
    const key = token();
    return key ? { "X-Arbiter-Token": key } : {};
  }

  function notice(text) {
    const n = $("notice");
    n.textContent = text || "";
    n.hidden = !text;
  }

  async function start() {
    // The words first: nothing is shown before it can be said in the page's language.
    // No words yet: the sign keeps the page's own ("connecting"), red.
    if (!(await loadLanguage())) { setLive(false, $("live").textContent); setTimeout(start, 3000); return; }
    const r = await fetch(`/api/state${langQuery()}`, { headers: authHeaders(), credentials: "same-origin" }).catch(() => null);
    if (!r) { setLive(false, t("dash-offline")); setTimeout(start, 3000); return; }
    if (r.status === 401 || r.status === 403) {
      const e = await r.json().catch(() => ({}));
      notice(t("dash-private", { why: e.error || r.status }));
      $("token-form").hidden = false;
      setLive(false, t("dash-locked"));
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
      r = await fetch(`/api/alerts/${encodeURIComponent(id)}/${action}${langQuery()}`, {
        method: "POST", headers: authHeaders(), credentials: "same-origin",
      });
    } catch (e) {
      view.errors.set(id, t("dash-unreachable"));
      renderAlerts();
      return;
    }
    const body = await r.json().catch(() => ({}));
    if (!r.ok) {
      view.errors.set(id, t("dash-refused", { status: r.status, why: body.error || r.statusText }));
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
      type: "number", min: "0", class: "act-accept-ply", "aria-label": t("dash-ply-label"),
      placeholder: t("dash-ply-placeholder"),
    });
    return [ply, ...["white", "black"].map((side) => el("button", {
      type: "button", class: `act-accept-${side}`, onclick: () => acceptBoard(a, side, ply.value),
    }, t(`dash-accept-${side}`)))];
  }

  /** An out-of-sync board's card: the moves of the gap, from the scoresheets (issue 40):
   * a button per line found, or typed (SAN or UCI, spaces between, move numbers allowed). */
  function enterMovesControls(a, candidates) {
    const box = el("div", { class: "enter-moves" });
    for (const c of candidates) {
      box.append(el("button", {
        type: "button", class: "act-enter-line",
        onclick: () => enterMoves(a, sanList(c.san), c.ply - 1),
      }, t("dash-record-line", { line: sanIn(c.san) })));
    }
    const typed = el("input", {
      type: "text", class: "act-moves-text", "aria-label": t("dash-moves-label"),
      placeholder: t("dash-moves-placeholder"),
    });
    box.append(typed, el("button", {
      type: "button", class: "act-enter-moves",
      onclick: () => enterMoves(a, sanList(typed.value), null),
    }, t("dash-enter-moves")));
    return box;
  }

  /** `8. Nd4 Qg5 9. Nf5` → ["Nd4", "Qg5", "Nf5"]. */
  function sanList(text) {
    return text.split(/\s+/).map((t) => t.replace(/^[0-9]+\.+/, "")).filter((t) => t.length > 0);
  }

  async function enterMoves(a, moves, fromPly) {
    if (!moves.length) {
      view.errors.set(a.id, t("dash-no-moves-given"));
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
      view.errors.set(a.id, t("dash-unreachable"));
      renderAlerts();
      return;
    }
    const body = await r.json().catch(() => ({}));
    if (!r.ok) {
      view.errors.set(a.id, t("dash-refused", { status: r.status, why: body.error || r.statusText }));
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
      view.errors.set(a.id, t("dash-unreachable"));
      renderAlerts();
      return;
    }
    const body = await r.json().catch(() => ({}));
    if (!r.ok) {
      view.errors.set(a.id, t("dash-refused", { status: r.status, why: body.error || r.statusText }));
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
    if (!r) { if (report) status.textContent = t("dash-unreachable"); return false; }
    if (r.ok) {
      if (report) status.textContent = t("dash-token-checked");
      return true;
    }
    const e = await r.json().catch(() => ({}));
    status.textContent = t("dash-refused-why", { why: e.error || r.status });
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
      const typed = $("token").value.trim();
      if (!typed) return;
      localStorage.setItem("arbiterToken", typed);
      $("token").value = "";
      if (await login(true)) {
        view.errors.clear();
        notice("");
        await start();
        // Said once the page shows what the token allows.
        $("token-status").textContent = t("dash-token-accepted");
      }
    });
    $("token-forget").addEventListener("click", () => {
      localStorage.removeItem("arbiterToken");
      $("token-status").textContent = t("dash-token-forgotten");
    });
    $("history-close").addEventListener("click", () => {
      view.historyBoard = null;
      $("history").close();
    });
    $("history").addEventListener("close", () => { view.historyBoard = null; });
    // A language picked here is kept, and the page is loaded again in it (a ?lang= in
    // the address would outrank the choice, so it is dropped).
    $("language").addEventListener("change", (e) => {
      localStorage.setItem("arbiterLanguage", e.target.value);
      location.replace(location.pathname);
    });
  }

  wire();
  start();
})();
