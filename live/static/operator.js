// The operator page: the call for the next shot (a ball, then a pocket on the table), the balls
// to put back (green once the camera sees each in place), flagged shots to confirm, undo,
// score correction, a new match, the players' names. Every action is a command the engine
// applies; the page shows what the engine says it holds.
"use strict";

(() => {
  const {el, chip, command} = Live;
  const $ = id => document.getElementById(id);
  const POCKET_KEYS = {"4": "HL", "5": "ML", "6": "FL", "7": "HR", "8": "MR", "9": "FR"};
  const BALL_KEYS = {"1": "W", "2": "R", "3": "Y"};
  const choice = {ball: null, pocket: null};
  let lastVerdictSeq = null;
  let toastTimer = null;
  const armed = {};

  function toast(text, error = false) {
    const t = $("toast");
    t.textContent = text;
    t.className = "toast show" + (error ? " error" : "");
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { t.className = "toast"; }, error ? 5000 : 2500);
  }

  async function send(kind, payload, done) {
    try {
      const sent = await command(kind, payload);
      if (done) toast(done);
      return sent;
    } catch (err) {
      toast(err.message, true);
      return null;
    }
  }

  // A destructive action needs a second press within 3 s (a tap, Backspace, a clicker).
  function twice(key, button, label, action) {
    if (armed[key]) {
      clearTimeout(armed[key]);
      delete armed[key];
      if (button) { button.classList.remove("armed"); button.textContent = label; }
      action();
      return;
    }
    if (button) { button.classList.add("armed"); button.textContent = "Press again to confirm"; }
    else toast(`Press again to ${label.toLowerCase()}`);
    armed[key] = setTimeout(() => {
      delete armed[key];
      if (button) { button.classList.remove("armed"); button.textContent = label; }
    }, 3000);
  }

  function heldCall() {
    const c = Live.state.status && Live.state.status.next_call;
    return c && c.ball && c.pocket ? c : null;
  }

  async function choose(ball, pocket) {
    if (ball) choice.ball = ball;
    if (pocket) choice.pocket = pocket;
    render(Live.state);
    if (choice.ball && choice.pocket) {
      const call = {ball: choice.ball, pocket: choice.pocket};
      await send("call", call, `Call sent: ${call.ball} in ${call.pocket}`);
    }
  }

  async function clearCall() {
    choice.ball = choice.pocket = null;
    render(Live.state);
    await send("call", {}, "No call for the next shot");
  }

  function renderCall(state) {
    const held = heldCall();
    const ball = choice.ball || (held && held.ball[0]);
    const pocket = choice.pocket || (held && held.pocket);
    for (const b of document.querySelectorAll(".balls button")) {
      b.classList.toggle("selected", b.dataset.ball === ball);
    }
    if (state.table) {
      const status = state.status;
      Live.drawTable($("table"), state.table, {
        positions: status ? status.positions_mm : {}, placement: status ? status.placement : [],
        selectedPocket: pocket, pocketRadiusMm: 250, padMm: 70, pocketTap: p => choose(null, p)});
    }
    const line = $("callstate");
    line.replaceChildren();
    if (choice.ball && choice.pocket) {
      const same = held && held.ball === choice.ball && held.pocket === choice.pocket;
      line.append(el("span", {class: same ? "held" : "sent"},
        same ? `Called: ${held.ball} in ${held.pocket} \u2713 (for the next shot)`
             : `Sent: ${choice.ball} in ${choice.pocket} \u2026 waiting for the referee`));
    } else if (choice.ball || choice.pocket) {
      line.textContent = choice.ball ? `${choice.ball} in \u2026 tap a pocket` : `\u2026 in ${choice.pocket}: tap a ball`;
    } else if (held) {
      line.append(el("span", {class: "held"}, `Called: ${held.ball} in ${held.pocket} \u2713 (for the next shot)`));
    } else {
      line.textContent = "No call: tap a ball, then a pocket";
    }
  }

  function renderPlacement(state) {
    const marks = (state.status && state.status.placement) || [];
    const last = Live.standing().at(-1);
    const words = {};
    for (const r of (last && last.respots) || []) words[r.ball] = r.text;
    $("placebox").hidden = !marks.length;
    const list = $("place");
    list.replaceChildren();
    for (const m of marks) {
      const li = el("li", {class: m.ok ? "ok" : "bad", "data-ball": m.ball});
      li.append(chip(m.ball));
      li.append(el("span", {}, words[m.ball] ||
        `to ${Math.round(m.target_mm[0])}, ${Math.round(m.target_mm[1])} mm`));
      const off = m.off_mm === null || m.off_mm === undefined ? "" : ` ${Math.round(m.off_mm)} mm off`;
      li.append(el("span", {class: "state"}, m.ok ? "placed \u2713" : (m.seen_mm ? off.trim() : "not seen")));
      list.append(li);
    }
  }

  function renderFlags(state) {
    const list = $("flags");
    list.replaceChildren();
    $("flagbox").hidden = !state.flagged.length;
    for (const f of state.flagged) {
      const li = el("li", {"data-shot": f.shot_key});
      li.append(el("div", {}, `${f.shot[0].toUpperCase()}${f.shot.slice(1)}: ${f.short}`));
      if (f.reasons.length) li.append(el("div", {class: "reasons"}, f.reasons.join("; ")));
      const row = el("div", {class: "row"});
      const b = el("button", {class: "primary"},
        f.waiting ? (f.confirm_sent ? "Confirm again" : "Confirm") : "Confirmed \u2713");
      b.disabled = !f.waiting;
      b.addEventListener("click", () => confirmShot(f.shot_key));
      row.append(b);
      li.append(row);
      list.append(li);
    }
  }

  async function confirmShot(shot) {
    if (!shot) { toast("No flagged shot to confirm"); return; }
    await send("confirm", {shot}, `Confirmed: ${shot.replace(/^shot(\d+)$/, (_, n) => "shot " + (+n + 1))}`);
  }

  function renderLast(state) {
    const last = Live.standing().at(-1);
    const p = $("last");
    p.replaceChildren();
    if (!last) { p.textContent = "None yet"; return; }
    p.append(el("b", {}, `${last.shot[0].toUpperCase()}${last.shot.slice(1)}, ${last.shooter_name}: `));
    p.append(el("span", {class: last.fouls.length ? "foul" : ""}, last.line));
  }

  function fillIfIdle(input, value) {
    if (document.activeElement !== input && !input.dataset.edited) input.value = value;
  }

  function render(state) {
    const status = state.status;
    const names = Live.names(status);
    const score = status ? status.score : [0, 0];
    $("score").textContent = `${names[0]} ${score[0]} : ${score[1]} ${names[1]}`;
    $("toplay").textContent = !status ? "" : status.winner ? `${names[status.winner - 1]} wins`
      : `\u25b6 ${names[status.shooter - 1]} to play`;
    const cam = Live.cameraLine(status, state.serverUnix);
    $("camera").className = "pill " + cam.cls;
    $("camera").textContent = cam.text;
    const last = Live.standing().at(-1);
    const seq = last ? last.seq : null;
    if (lastVerdictSeq !== null && seq !== lastVerdictSeq) { choice.ball = choice.pocket = null; }
    lastVerdictSeq = seq;
    renderCall(state);
    renderPlacement(state);
    renderFlags(state);
    renderLast(state);
    fillIfIdle($("name1"), names[0]);
    fillIfIdle($("name2"), names[1]);
    fillIfIdle($("score1"), score[0]);
    fillIfIdle($("score2"), score[1]);
  }

  for (const b of document.querySelectorAll(".balls button")) {
    b.addEventListener("click", () => choose(b.dataset.ball, null));
  }
  for (const id of ["name1", "name2", "score1", "score2"]) {
    $(id).addEventListener("input", () => { $(id).dataset.edited = "1"; });
  }
  $("clearcall").addEventListener("click", clearCall);
  const undo = $("undo");
  undo.addEventListener("click", () => twice("undo", undo, "Undo last verdict",
    () => send("undo", {note: "undone on the operator page"}, "Undo sent")));
  const fresh = $("newmatch");
  fresh.addEventListener("click", () => twice("new", fresh, "New match", () => {
    const players = [$("name1").value.trim(), $("name2").value.trim()];
    send("new_match", players.every(Boolean) ? {players} : {}, "New match sent");
  }));
  $("savenames").addEventListener("click", async () => {
    const names = [$("name1").value.trim(), $("name2").value.trim()];
    if (await send("players", {names}, "Names sent")) {
      delete $("name1").dataset.edited; delete $("name2").dataset.edited;
    }
  });
  $("setscore").addEventListener("click", async () => {
    const score = [Number($("score1").value), Number($("score2").value)];
    if (!score.every(n => Number.isInteger(n) && n >= 0)) { toast("Expected two whole numbers", true); return; }
    if (await send("correct", {score, note: "corrected on the operator page"}, `Score set to ${score[0]}:${score[1]}`)) {
      delete $("score1").dataset.edited; delete $("score2").dataset.edited;
    }
  });

  document.addEventListener("keydown", ev => {
    const t = ev.target;
    if (t instanceof HTMLInputElement || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const k = ev.key;
    if (k === " " || k === "PageDown") {
      const f = Live.state.flagged.find(x => x.waiting);
      confirmShot(f ? f.shot_key : null);
    } else if (k === "Backspace") {
      twice("undo", null, "Undo the last verdict",
            () => send("undo", {note: "undone on the operator page"}, "Undo sent"));
    } else if (k in BALL_KEYS) {
      choose(BALL_KEYS[k], null);
    } else if (k in POCKET_KEYS) {
      choose(null, POCKET_KEYS[k]);
    } else if (k === "0" || k === "Escape") {
      clearCall();
    } else {
      return;
    }
    ev.preventDefault();
  });

  // a tapped button lets go of the focus, so that Space (a clicker) is not also its click
  document.addEventListener("click", ev => {
    if (ev.target instanceof HTMLElement && ev.target.closest("button")) ev.target.closest("button").blur();
  });
  Live.connect(render, up => document.body.classList.toggle("disconnected", !up));
})();
