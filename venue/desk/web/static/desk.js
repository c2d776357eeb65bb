// The venue's grid of tables: painted from the page's snapshot at once, then kept
// live from /events (Server-Sent Events). No framework, no build step.
"use strict";
(() => {
  const PING_MS = 15000;
  const words = JSON.parse(document.getElementById("words").textContent);
  const grid = document.getElementById("grid");
  const live = document.getElementById("live");
  const tiles = new Map();            // table id -> {el, parts, state, since}
  const counts = {};
  let offset = 0;                     // the server's wall clock minus ours, in seconds
  let source = null;
  let heard = Date.now();

  const say = (text, values) => text.replace(/\{(\w+)\}/g, (_, key) => values[key] ?? "");
  const natural = new Intl.Collator(undefined, {numeric: true}).compare;
  const countCells = {};
  for (const cell of document.querySelectorAll("[data-count]")) countCells[cell.dataset.count] = cell;

  function age(since) {
    const s = Math.max(0, Math.round(Date.now() / 1000 + offset - since));
    if (s < 60) return say(words.age_s, {n: s});
    if (s < 3600) return say(words.age_min, {n: Math.floor(s / 60)});
    return say(words.age_h, {n: Math.floor(s / 3600), m: Math.floor((s % 3600) / 60)});
  }

  function build(id) {
    const el = document.createElement("a");
    el.className = "tile";
    el.dataset.table = id;
    const parts = {};
    for (const name of ["name", "state", "fault", "summary", "today"]) {
      parts[name] = el.appendChild(document.createElement("span"));
      parts[name].className = name;
    }
    parts.name.textContent = id;
    const entry = {el, parts, state: null, since: null};
    // In table order: a table heard for the first time finds its place (the
    // snapshot comes in order, so mostly at the end).
    let before = null;
    const last = grid.lastElementChild;
    if (last && natural(id, last.dataset.table) < 0) {
      for (const other of grid.children) {
        if (natural(id, other.dataset.table) < 0) { before = other; break; }
      }
    }
    grid.insertBefore(el, before);
    tiles.set(id, entry);
    offer(id);
    return entry;
  }

  // The counter: open a table for a booking, or close it (the booking API).
  const counter = document.getElementById("counter");
  function offer(id) {
    const select = counter && counter.elements.table;
    if (!select || [...select.options].some((o) => o.value === id)) return;
    const option = new Option(id, id);
    const after = [...select.options].find((o) => natural(id, o.value) < 0);
    select.add(option, after || null);
  }
  if (counter) {
    const said = counter.querySelector(".said");
    const buttons = [...counter.querySelectorAll("button")];
    counter.addEventListener("submit", async (e) => {
      e.preventDefault();
      // One command at a time: a double click opens a table once, not twice.
      if (buttons.some((b) => b.disabled)) return;
      const command = e.submitter ? e.submitter.value : "enable";
      const table = counter.elements.table.value;
      const booking = counter.elements.booking_id.value.trim().replace(/\s+/g, "_");
      if (command === "enable" && !booking) { said.textContent = words.need_booking; return; }
      // The booking API's rule (venue/desk/web/booking.py BOOKING), said in the counter's words.
      if (command === "enable" && !/^[\p{L}\p{N}_.:-]{1,64}$/u.test(booking)) {
        said.textContent = words.bad_booking; return;
      }
      const body = command === "enable"
        ? {for_s: Number(counter.elements.for_s.value), booking_id: booking}
        : {reason: "counter"};
      said.textContent = "…";
      buttons.forEach((b) => { b.disabled = true; });
      try {
        const answer = await fetch(`/api/tables/${encodeURIComponent(table)}/${command}`, {
          method: "POST", headers: {"Content-Type": "application/json",
                                    "X-CSRF-Token": counter.dataset.csrf},
          body: JSON.stringify(body)});
        const reply = await answer.json();
        if (answer.status === 200) {
          said.textContent = say(command === "enable" ? words.opened : words.closed,
                                 {table, booking});
        } else if (answer.status === 202) {
          said.textContent = say(words.no_answer, {table});
        } else if (reply.ack) {
          said.textContent = say(words.refused, {table, why: reply.ack.why || ""});
        } else {
          said.textContent = say(words.failed, {why: reply.error || answer.status});
        }
      } catch (err) {
        said.textContent = say(words.failed, {why: String(err)});
      } finally {
        buttons.forEach((b) => { b.disabled = false; });
      }
    });
  }

  function count(state, step) {
    if (!state) return;
    counts[state] = (counts[state] || 0) + step;
    const cell = countCells[state];
    if (cell) cell.textContent = counts[state];
  }

  function set(node, text) {
    if (node.textContent !== text) node.textContent = text;
  }

  function paint(t) {
    const entry = tiles.get(t.id) || build(t.id);
    const {el, parts} = entry;
    if (entry.state !== t.state) {
      count(entry.state, -1);
      count(t.state, +1);
      el.className = "tile s-" + t.state;
      el.dataset.state = t.state;
      entry.state = t.state;
    }
    let state = words.states[t.state] || t.state;
    if (t.booking) state += " · " + t.booking;
    set(parts.state, state);
    entry.since = t.fault ? t.fault_since : null;
    let fault = t.fault || "";
    if (t.fault && t.faults > 1) fault += " " + say(words.more_faults, {n: t.faults - 1});
    if (entry.since) fault += " · " + age(entry.since);
    set(parts.fault, fault);
    // What is wrong, in the page's language: from the catalogue by the fault's id, else
    // the table's own words; on the tile itself (a phone shows no tooltips).
    const summary = t.fault === "E-STOP" ? words.estop
      : t.fault ? (words.summaries[t.fault_id] || t.fault_summary || "") : "";
    set(parts.summary, summary);
    set(parts.today, say(words.hands, {n: t.hands_today}) + " · "
        + say(words.hours, {h: (t.play_s_today / 3600).toFixed(1)}));
    if (t.console) {
      if (el.getAttribute("href") !== t.console) el.href = t.console;
      el.target = "_blank";
      el.rel = "noopener";
      el.setAttribute("aria-label", say(words.open_console, {table: t.id}));
    } else {
      el.removeAttribute("href");
      el.title = say(words.no_console, {table: t.id});
    }
  }

  function all(snapshot) {
    offset = snapshot.now - Date.now() / 1000;
    const seen = new Set();
    for (const t of snapshot.tiles) { paint(t); seen.add(t.id); }
    for (const [id, entry] of tiles) {
      if (!seen.has(id)) { count(entry.state, -1); entry.el.remove(); tiles.delete(id); }
    }
  }

  function status(on) {
    live.textContent = on ? words.live : words.reconnecting;
    live.className = on ? "live on" : "live off";
  }

  function connect() {
    if (source) source.close();
    source = new EventSource("/events");
    heard = Date.now();
    source.addEventListener("tiles", (e) => { heard = Date.now(); all(JSON.parse(e.data)); status(true); });
    source.addEventListener("tile", (e) => {
      heard = Date.now();
      const t = JSON.parse(e.data);
      offset = t.now - Date.now() / 1000;
      paint(t);
    });
    source.addEventListener("ping", () => { heard = Date.now(); });
    source.onerror = () => {
      status(false);
      // The browser retries by itself unless the server refused: then we do.
      if (source.readyState !== EventSource.CLOSED) return;
      // Refused: a staff session that expired goes back to the login page.
      fetch("/api/session").then((answer) => {
        if (answer.status === 401) {
          location.href = "/login?next=" + encodeURIComponent(location.pathname);
        } else {
          setTimeout(connect, 2000);
        }
      }, () => setTimeout(connect, 2000));
    };
  }

  all(JSON.parse(document.getElementById("snapshot").textContent));
  connect();
  setInterval(() => {
    for (const entry of tiles.values()) {
      if (entry.since) {
        const text = entry.parts.fault.textContent;
        set(entry.parts.fault, text.replace(/ · [^·]*$/, " · " + age(entry.since)));
      }
    }
    // A stream silent past two pings is dead even if the socket does not say so.
    if (Date.now() - heard > 2.5 * PING_MS) { status(false); connect(); }
  }, 1000);
})();
