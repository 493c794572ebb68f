// The table display: the score, who plays, the last verdicts in words, where to put balls back
// (on the table drawn from above and on the latest camera picture), the camera's state.
"use strict";

(() => {
  const {el, chip} = Live;
  const $ = id => document.getElementById(id);
  let stillKey = null;

  function verdictLine(e) {
    const line = el("span");
    line.append(el("span", {class: "n"}, cap(e.shot) + " \u00b7 "));
    line.append(document.createTextNode(`${e.shooter_name}: `));
    line.append(el("span", {class: e.fouls.length ? "foul" : ""}, e.short));
    return line;
  }

  function cap(s) { return s ? s[0].toUpperCase() + s.slice(1) : ""; }

  function renderScore(status, last) {
    const names = Live.names(status);
    const score = status ? status.score : (last && last.score) || [0, 0];
    for (const i of [0, 1]) {
      const p = $(`p${i + 1}`);
      p.querySelector(".name").textContent = names[i];
      p.querySelector(".pts").textContent = score[i];
      p.classList.toggle("to-play", !!status && !status.winner && status.shooter === i + 1);
    }
    const toplay = $("toplay");
    toplay.className = "toplay";
    if (status && status.winner) {
      toplay.className = "winner";
      toplay.textContent = `${names[status.winner - 1]} wins`;
    } else {
      toplay.textContent = status ? `\u25b6 ${names[status.shooter - 1]} to play` : "";
    }
  }

  function renderVerdicts(state) {
    // the verdicts and corrections that stand, newest first
    const items = [...state.entries.values()]
      .filter(e => (e.kind === "verdict" || e.kind === "correction") && !(String(e.seq) in state.undone))
      .sort((a, b) => b.seq - a.seq);
    const latest = $("latest"), why = $("why"), history = $("history");
    latest.replaceChildren(); why.textContent = "";
    history.replaceChildren();
    if (!items.length) {
      latest.textContent = state.status ? "Waiting for the first shot" : "";
      return null;
    }
    const [first, ...rest] = items;
    if (first.kind === "verdict") {
      latest.append(verdictLine(first));
      latest.dataset.seq = first.seq;
      why.textContent = first.why;
    } else {
      latest.textContent = `Score corrected to ${first.score[0]}:${first.score[1]}`;
      why.textContent = first.note || "";
    }
    for (const e of rest.slice(0, 4)) {
      const li = el("li", {"data-seq": e.seq});
      if (e.kind === "verdict") li.append(verdictLine(e));
      else li.textContent = `Score corrected to ${e.score[0]}:${e.score[1]}`;
      history.append(li);
    }
    return items.find(e => e.kind === "verdict") || null;
  }

  function renderPutBack(status, last) {
    // where each ball goes, in the verdict's words ("R1 on point 1 (front spot)")
    const where = {};
    for (const r of (last && last.respots) || []) {
      where[r.ball] = r.text.split(":")[0].replace(new RegExp("^" + r.ball + " "), "");
    }
    const box = $("putback");
    box.replaceChildren();
    for (const m of (status && status.placement) || []) {
      const item = el("span", {class: m.ok ? "ok" : "bad", "data-ball": m.ball});
      item.append(chip(m.ball));
      item.append(document.createTextNode(
        (where[m.ball] || "put back") + (m.ok ? " \u2713 placed" : "")));
      box.append(item);
    }
  }

  function renderStill(state) {
    const img = $("still"), marks = $("stillmarks"), status = state.status;
    if (!state.still) { img.hidden = true; marks.hidden = true; return; }
    const key = status ? `${status.still_t_s}` : "0";
    if (key !== stillKey) {
      stillKey = key;
      img.src = `/still.jpg?t=${encodeURIComponent(key)}`;
    }
    img.hidden = false;
    const h = status && status.still_homography;  // table mm -> still px, when the engine gives it
    const placement = (status && status.placement) || [];
    if (!h || !placement.length || !img.naturalWidth) { marks.hidden = true; return; }
    marks.hidden = false;
    marks.setAttribute("viewBox", `0 0 ${img.naturalWidth} ${img.naturalHeight}`);
    marks.style.width = img.clientWidth + "px";
    marks.style.height = img.clientHeight + "px";
    marks.style.left = img.offsetLeft + "px";
    marks.style.top = img.offsetTop + "px";
    marks.replaceChildren();
    const r = img.naturalWidth / 60;
    for (const m of placement) {
      const [x, y] = Live.project(h, m.target_mm);
      const colour = m.ok ? "#19c37d" : "#ff3b3b";
      marks.append(el("svg:circle", {cx: x, cy: y, r, fill: "none", stroke: colour,
                                     "stroke-width": r / 3}));
      marks.append(el("svg:text", {x, y: y - r * 1.4, "text-anchor": "middle", "font-size": r * 1.6,
        "font-weight": "700", fill: colour, stroke: "#000", "stroke-width": r / 8,
        "paint-order": "stroke"}, m.ball));
    }
  }

  function render(state) {
    const status = state.status;
    const cam = Live.cameraLine(status, state.serverUnix);
    const pill = $("camera");
    pill.className = "pill " + cam.cls;
    pill.textContent = cam.text;
    const last = renderVerdicts(state);
    renderScore(status, last);
    if (state.table) {
      Live.drawTable($("table"), state.table, {positions: status ? status.positions_mm : {},
                                               placement: status ? status.placement : [],
                                               ballScale: 1.8});
    }
    renderPutBack(status, last);
    renderStill(state);
  }

  $("still").addEventListener("load", () => render(Live.state));
  Live.connect(render, up => {
    document.body.classList.toggle("disconnected", !up);
    if (up) {
      const cam = Live.cameraLine(Live.state.status, Live.state.serverUnix);
      $("camera").className = "pill " + cam.cls;
      $("camera").textContent = cam.text;
    }
  });
})();
