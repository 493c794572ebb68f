// The live pages' shared part: the state pushed by the server (server-sent events), kept by
// journal seq so that a reconnect or a reload shows each verdict once, and the table drawn from
// above (head cushion at the left, as in the HTML report).
"use strict";

const Live = (() => {
  const BALL_FILL = {W: "#f4f1e6", W1: "#f4f1e6", W2: "#f4f1e6", R: "#c8102e", R1: "#c8102e",
                     R2: "#c8102e", Y: "#f2c500"};
  const BALL_INK = {W: "#000", W1: "#000", W2: "#000", Y: "#000", R: "#fff", R1: "#fff", R2: "#fff"};
  const RAIL_MM = 190;
  const SVG_NS = "http://www.w3.org/2000/svg";

  const state = {matchId: null, lastSeq: -1, entries: new Map(), undone: {}, status: null,
                 table: null, flagged: [], still: false, connected: false, serverUnix: 0};

  // Verdicts that stand (not undone, not void), oldest first.
  function standing() {
    return [...state.entries.values()]
      .filter(e => e.kind === "verdict" && !(String(e.seq) in state.undone))
      .sort((a, b) => a.seq - b.seq);
  }

  function connect(onState, onConnection) {
    let source = null;
    function open() {
      const query = `?match=${state.matchId === null ? "none" : state.matchId}&since=${state.lastSeq}`;
      source = new EventSource("/api/events" + query);
      source.addEventListener("state", ev => {
        const s = JSON.parse(ev.data);
        if (s.reset) state.entries.clear();
        for (const e of s.entries) state.entries.set(e.seq, e);  // by seq: never twice
        Object.assign(state, {undone: s.undone, matchId: s.match_id, lastSeq: s.last_seq,
                              status: s.status, table: s.table, flagged: s.flagged,
                              still: s.still, serverUnix: s.server_unix, connected: true});
        onConnection(true);
        onState(state, s);
      });
      source.addEventListener("tick", ev => {
        state.serverUnix = JSON.parse(ev.data).server_unix;
        onConnection(true);
      });
      source.onerror = () => {
        state.connected = false;
        onConnection(false);
        if (source.readyState === EventSource.CLOSED) {  // refused: try again from where we are
          setTimeout(open, 2000);
        }
      };
    }
    open();
  }

  async function command(kind, payload) {
    const r = await fetch("/api/command", {method: "POST", credentials: "same-origin",
      headers: {"Content-Type": "application/json"}, body: JSON.stringify({kind, payload})});
    const body = await r.json().catch(() => ({error: `HTTP ${r.status}`}));
    if (!r.ok) throw new Error(body.error || `HTTP ${r.status}`);
    return body;
  }

  function el(tag, attrs = {}, text = null) {
    const node = tag.startsWith("svg:") ? document.createElementNS(SVG_NS, tag.slice(4))
                                        : document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    if (text !== null) node.textContent = text;
    return node;
  }

  function chip(ball) {
    const c = el("span", {class: "chip"}, ball);
    c.style.background = BALL_FILL[ball] || "#888";
    c.style.color = BALL_INK[ball] || "#000";
    return c;
  }

  // Table mm -> picture units: x to the right, y (toward the left cushion) upward.
  function tableXY(table, p) {
    return [p[0] + RAIL_MM, table.width_mm - p[1] + RAIL_MM];
  }

  // The table from above. opts: positions {ball: [x, y]}, placement [mark], pocketTap(pocket),
  // selectedPocket, pocketRadiusMm (the tap target).
  function drawTable(svg, table, opts = {}) {
    const key = JSON.stringify([table, opts]);  // (pocketTap, a function, is left out)
    if (svg.dataset.key === key) return;  // unchanged: a tap in progress keeps its target
    svg.dataset.key = key;
    const L = table.length_mm, W = table.width_mm, ball = table.ball_mm;
    const pad = opts.padMm || 0;  // room around the rail (for the pockets' tap targets)
    svg.setAttribute("viewBox",
                     `${-pad} ${-pad} ${L + 2 * RAIL_MM + 2 * pad} ${W + 2 * RAIL_MM + 2 * pad}`);
    svg.replaceChildren();
    svg.append(el("svg:rect", {width: L + 2 * RAIL_MM, height: W + 2 * RAIL_MM, rx: 60,
                               fill: "#4a2f1a"}));
    svg.append(el("svg:rect", {x: RAIL_MM, y: RAIL_MM, width: L, height: W, fill: "#2e7d4f"}));
    const hx = table.house_x_mm + RAIL_MM;
    svg.append(el("svg:line", {x1: hx, y1: RAIL_MM, x2: hx, y2: W + RAIL_MM, stroke: "#fff",
                               "stroke-opacity": ".35", "stroke-width": 8}));
    for (const name of ["point1", "point2", "point3"]) {
      const [x, y] = tableXY(table, table.spots[name]);
      svg.append(el("svg:circle", {cx: x, cy: y, r: 14, fill: "#fff", "fill-opacity": ".6"}));
    }
    const tapR = opts.pocketRadiusMm || 0;
    for (const [name, p] of Object.entries(table.pockets)) {
      const [x, y] = tableXY(table, p);
      const g = el("svg:g", {class: "pocket", "data-pocket": name});
      const selected = opts.selectedPocket === name;
      if (tapR) {
        g.append(el("svg:circle", {cx: x, cy: y, r: tapR, class: "pocket-tap",
          fill: selected ? "#ffc400" : "#111", stroke: selected ? "#fff" : "#ffc400",
          "stroke-width": 18}));
        g.append(el("svg:text", {x, y: y + tapR * 0.32, "text-anchor": "middle",
          "font-size": tapR * 0.9, "font-weight": "700", fill: selected ? "#000" : "#fff",
          "pointer-events": "none"}, name));
        g.addEventListener("click", () => opts.pocketTap(name));
      } else {
        g.append(el("svg:circle", {cx: x, cy: y, r: 75, fill: "#0b0b0b"}));
      }
      svg.append(g);
    }
    const r = ball / 2 * (opts.ballScale || 1.3);  // larger than life: seen from afar
    for (const [b, p] of Object.entries(opts.positions || {})) {
      const [x, y] = tableXY(table, p);
      svg.append(el("svg:circle", {cx: x, cy: y, r, fill: BALL_FILL[b] || "#888",
                                   stroke: "#000", "stroke-width": 6, class: "ball"}));
    }
    for (const m of opts.placement || []) {
      const [tx, ty] = tableXY(table, m.target_mm);
      const colour = m.ok ? "#19c37d" : "#ff3b3b";
      const g = el("svg:g", {class: "mark " + (m.ok ? "ok" : "bad"), "data-ball": m.ball});
      if (m.seen_mm) {
        const [sx, sy] = tableXY(table, m.seen_mm);
        g.append(el("svg:line", {x1: sx, y1: sy, x2: tx, y2: ty, stroke: colour,
                                 "stroke-width": 10}));
        g.append(el("svg:circle", {cx: sx, cy: sy, r, fill: BALL_FILL[m.ball] || "#888",
                                   stroke: "#000", "stroke-width": 6}));
      }
      g.append(el("svg:circle", {cx: tx, cy: ty, r: r * 2.2, fill: "none", stroke: colour,
                                 "stroke-width": 22}));
      g.append(el("svg:text", {x: tx, y: ty - r * 2.8, "text-anchor": "middle",
        "font-size": 150, "font-weight": "700", fill: colour, stroke: "#000",
        "stroke-width": 6, "paint-order": "stroke"}, m.ball + (m.ok ? " \u2713" : "")));
      svg.append(g);
    }
  }

  // A projective map (3x3, row-major or nested) from table mm to the still's pixels.
  function project(h, p) {
    const m = h.flat();
    const w = m[6] * p[0] + m[7] * p[1] + m[8];
    return [(m[0] * p[0] + m[1] * p[1] + m[2]) / w, (m[3] * p[0] + m[4] * p[1] + m[5]) / w];
  }

  const CAMERA_WORDS = {starting: "starting", calibrating: "calibrating", ok: "ok",
    stalled: "stalled", reconnecting: "reconnecting", lost: "lost", ended: "ended"};

  // The camera's state in a few words and a class for its colour.
  function cameraLine(status, serverUnix) {
    if (!status) return {text: "Waiting for the referee to start", cls: "warn"};
    const age = serverUnix && status.updated_unix ? serverUnix - status.updated_unix : 0;
    if (status.camera !== "ended" && age > 5) {
      return {text: `No word from the referee for ${Math.round(age)} s`, cls: "bad"};
    }
    let text = "Camera " + (CAMERA_WORDS[status.camera] || status.camera);
    if (status.camera === "ok" && status.fps) text += ` \u00b7 ${status.fps.toFixed(0)} fps`;
    if (status.camera_message) text += ` \u00b7 ${status.camera_message}`;
    if (status.reconnects) text += ` \u00b7 ${status.reconnects} reconnect${status.reconnects > 1 ? "s" : ""}`;
    const gaps = status.gaps || [];
    if (gaps.length) {
      const lost = gaps.reduce((s, g) => s + (g.gap_s || 0), 0);
      text += ` \u00b7 ${gaps.length} gap${gaps.length > 1 ? "s" : ""} (${lost.toFixed(1)} s lost)`;
    }
    const cls = {ok: "ok", ended: "idle", starting: "info", calibrating: "info",
                 stalled: "warn", reconnecting: "warn", lost: "bad"}[status.camera] || "warn";
    return {text, cls};
  }

  function names(status) {
    return status ? status.players : ["Player 1", "Player 2"];
  }

  return {state, standing, connect, command, drawTable, project, cameraLine, chip, el, names,
          BALL_FILL};
})();
