// The phone console's script: no framework, no build step, nothing from elsewhere.
// Jog is hold-to-run: while a jog button is down the page says "still held" every
// HOLD_EVERY_MS; releasing it, leaving the page or losing the connection stops the
// motor (and if this page dies, the daemon stops it by itself within its own cap).
"use strict";
(function () {
  const HOLD_EVERY_MS = 100;
  const VIEW_EVERY_MS = 700;
  const boot = JSON.parse(document.getElementById("boot").textContent);
  const W = boot.words;
  let csrf = boot.csrf;
  let technician = boot.technician;
  // Bumped at each login and logout: a view asked for before it cannot say who is logged
  // in (on a slow link it arrives after the login and would log the page out again).
  let sessionEpoch = 0;
  let hold = null;          // the jog being held: {button, number, timer, down}
  const $ = (id) => document.getElementById(id);

  function say(text) { $("message").textContent = text || ""; }

  async function post(path, body, keepalive) {
    const response = await fetch(path, {
      method: "POST", credentials: "same-origin", keepalive: !!keepalive,
      headers: {"Content-Type": "application/json", "X-CSRF-Token": csrf},
      body: JSON.stringify(body || {}),
    });
    let data = {};
    try { data = await response.json(); } catch (e) { data = {}; }
    if (response.status === 401 && data.error !== "login") { showLoggedOut(); }
    if (!response.ok) {
      const error = new Error(data.message || response.statusText);
      error.status = response.status;
      throw error;
    }
    return data;
  }

  window.mjtPost = post;     // the score form's posts carry the same CSRF token

  // -- what the table shows -----------------------------------------------------------
  function fill(select, items) {
    select.replaceChildren(...items.map((item) => {
      const option = document.createElement("option");
      option.value = item.name; option.textContent = item.label;
      return option;
    }));
  }
  fill($("symptom"), boot.symptoms);
  fill($("mechanism"), boot.tests);
  fill($("motor"), boot.motors.map((m) => ({name: m.motor, label: m.label || m.motor})));

  function list(items) {
    const ul = document.createElement("ul");
    for (const text of items || []) {
      const li = document.createElement("li"); li.textContent = text; ul.append(li);
    }
    return ul;
  }

  function show(view, current) {
    $("offline").hidden = !!view.online;
    if (!view.online) return;
    $("display").textContent = view.display || "--";
    const state = [];
    if (view.estopped) state.push(W.estopped);
    if (view.test_mode) state.push(W.test_mode);
    if (view.held_by) state.push(view.held_by);
    if (view.running) state.push(view.running);
    $("state").textContent = state.join(" · ");
    $("lamps").replaceChildren(...view.lamps.map((lamp) => {
      const li = document.createElement("li");
      li.textContent = lamp.label;
      li.className = lamp.on ? "on" : "";
      li.dataset.lamp = lamp.name;
      return li;
    }));
    $("nofaults").hidden = view.faults.length > 0;
    $("faults").replaceChildren(...view.faults.map((fault) => {
      const div = document.createElement("div");
      div.className = "fault";
      const h = document.createElement("h3");
      h.textContent = fault.code + " " + (fault.summary || fault.id);
      div.append(h, label(W.cause), list(fault.cause), label(W.remedy), list(fault.remedy));
      return div;
    }));
    if (current && !view.technician && technician) showLoggedOut();
  }
  function label(text) { const b = document.createElement("strong"); b.textContent = text; return b; }

  async function refresh() {
    const asked = sessionEpoch;
    try {
      const response = await fetch("/api/view", {credentials: "same-origin"});
      show(await response.json(), asked === sessionEpoch);
    } catch (e) {
      $("offline").hidden = false;
    }
  }

  // -- languages ----------------------------------------------------------------------
  for (const button of document.querySelectorAll("[data-lang]")) {
    button.addEventListener("click", async () => {
      await post("/api/lang", {lang: button.dataset.lang});
      location.reload();
    });
  }

  // -- guided diagnosis ---------------------------------------------------------------
  $("diagnose").addEventListener("click", async () => {
    $("verdict").textContent = W.working;
    try {
      const result = await post("/api/diagnose", {symptom: $("symptom").value});
      const box = $("verdict");
      box.replaceChildren();
      const p = document.createElement("p");
      p.textContent = (result.normal ? W.normal : W.not_normal) + ": " + (result.verdict || "");
      box.append(p, list(result.remedy));
    } catch (e) { $("verdict").textContent = e.message; }
  });

  // -- technician ---------------------------------------------------------------------
  function showLoggedIn(name) {
    technician = name; sessionEpoch += 1;
    $("login").hidden = true; $("tools").hidden = false;
    $("who").textContent = W.logged_in.replace("{name}", name);
  }
  function showLoggedOut() {
    stopHold(null);
    technician = null; sessionEpoch += 1;
    $("login").hidden = false; $("tools").hidden = true;
  }
  if (technician) showLoggedIn(technician); else showLoggedOut();

  $("login").addEventListener("submit", async (event) => {
    event.preventDefault();
    say(W.working);
    try {
      const result = await post("/api/login", {name: $("name").value, token: $("token").value});
      csrf = result.csrf;
      $("token").value = "";
      showLoggedIn(result.technician);
      say("");
    } catch (e) { say(e.message); }
  });
  $("logout").addEventListener("click", async () => {
    try { const result = await post("/api/logout", {}); csrf = result.csrf; } catch (e) { /* gone */ }
    showLoggedOut(); say("");
  });

  async function testmode(on, force) {
    say(W.working);
    try {
      await post("/api/testmode", {on: on, force: !!force});
      $("tm-force").hidden = true; say("");
    } catch (e) {
      say(e.message);
      $("tm-force").hidden = !(on && !force && e.status === 409);
    }
    refresh();
  }
  $("tm-on").addEventListener("click", () => testmode(true, false));
  $("tm-force").addEventListener("click", () => testmode(true, true));
  $("tm-off").addEventListener("click", () => testmode(false, false));
  $("run-test").addEventListener("click", async () => {
    say(W.working);
    try {
      const result = await post("/api/test", {mechanism: $("mechanism").value});
      say(result.results.map((r) => r.number + r.result + " " + r.detail).join("; "));
    } catch (e) { say(e.message); }
  });

  // -- hold-to-run jog ----------------------------------------------------------------
  function jogButtons() {
    const motor = boot.motors.find((m) => m.motor === $("motor").value);
    $("jog-buttons").replaceChildren(...motor.directions.map((direction) => {
      const button = document.createElement("button");
      button.type = "button"; button.textContent = W[direction];
      button.dataset.direction = direction;
      button.addEventListener("pointerdown", (event) => startHold(event, button));
      for (const kind of ["pointerup", "pointercancel", "lostpointercapture"]) {
        button.addEventListener(kind, () => stopHold(W.stopped));
      }
      button.addEventListener("contextmenu", (event) => event.preventDefault());
      return button;
    }));
  }
  $("motor").addEventListener("change", jogButtons);
  jogButtons();

  async function startHold(event, button) {
    event.preventDefault();
    if (hold) return;
    try { button.setPointerCapture(event.pointerId); } catch (e) { /* a synthetic press */ }
    hold = {button: button, number: null, timer: null, down: true};
    const mine = hold;
    button.classList.add("held");
    $("jog-state").textContent = W.working;
    try {
      const started = await post("/api/jog/start",
                                 {motor: $("motor").value, direction: button.dataset.direction});
      mine.number = started.hold;
      if (!mine.down) { sendStop(mine.number); return; }     // released before it started
      $("jog-state").textContent = W.running;
      mine.timer = setInterval(() => keep(mine), HOLD_EVERY_MS);
    } catch (e) {
      if (hold === mine) { hold = null; button.classList.remove("held"); }
      $("jog-state").textContent = e.message;
    }
  }

  async function keep(mine) {
    if (hold !== mine) return;
    try {
      await post("/api/jog/keep", {hold: mine.number});
    } catch (e) {
      if (hold === mine) stopHold(e.status === 409 ? W.hold_lost : e.message);
    }
  }

  function beacon(number) {
    // The page is going away: a beacon still reaches the table.
    const form = new URLSearchParams({csrf: csrf});
    if (number !== null) form.set("hold", String(number));
    navigator.sendBeacon("/api/jog/stop", form);
  }
  function sendStop(number, leaving) {
    if (leaving) { beacon(number); return; }
    post("/api/jog/stop", number === null ? {} : {hold: number}, true)
      .catch(() => beacon(number));
  }

  function stopHold(why, leaving) {
    const mine = hold;
    if (!mine) return;
    hold = null;
    mine.down = false;
    clearInterval(mine.timer);
    mine.button.classList.remove("held");
    if (mine.number !== null) sendStop(mine.number, leaving);
    if (why) $("jog-state").textContent = why;
  }
  // Losing the page stops the motion: hidden, closed, or sent to the background.
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState !== "visible") stopHold(W.stopped);
  });
  window.addEventListener("pagehide", () => stopHold(W.stopped, true));
  window.addEventListener("blur", () => stopHold(W.stopped));
  window.addEventListener("offline", () => stopHold(W.hold_lost));

  refresh();
  setInterval(refresh, VIEW_EVERY_MS);
})();
