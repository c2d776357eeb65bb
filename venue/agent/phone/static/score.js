// The score form: the hand just ended, tapped in tile by tile. A tap on the keyboard
// adds the tile to the part in blue (concealed tiles, a meld, the winning tile); a tap
// on a chosen tile removes it. The agent turns it into the daemon's `score`.
"use strict";
(function () {
  const boot = JSON.parse(document.getElementById("boot").textContent);
  const S = boot.score, FACES = boot.tiles;
  const root = document.getElementById("score");
  if (!S || !root) return;
  const make = (tag, props, ...kids) => {
    const el = document.createElement(tag);
    for (const [key, value] of Object.entries(props || {})) {
      if (key.includes("-")) el.setAttribute(key, value); else el[key] = value;
    }
    el.append(...kids);
    return el;
  };
  const options = (pairs) => pairs.map(([value, text]) => make("option", {value, textContent: text}));
  const SIZES = {chow: 3, pung: 3, kong: 4};

  let target = null;
  const concealed = part("concealed", S.concealed, 16);   // 16: Fuzhou's hand
  const winTile = part("win_tile", S.win_tile, 1);
  const melds = [];

  function part(id, title, max) {
    const box = make("div", {className: "tiles", id: "sc-" + id});
    const head = make("button", {type: "button", className: "quiet part", textContent: title});
    head.dataset.part = id;
    const it = {tiles: [], max, box, head, wrap: make("div", {className: "part-wrap"}, head, box)};
    head.addEventListener("click", () => aim(it));
    return it;
  }
  function aim(it) {
    if (target) target.head.classList.remove("target");
    target = it;
    if (it) it.head.classList.add("target");
  }
  function draw(it) {
    it.box.replaceChildren(...it.tiles.map((code, i) => {
      const b = make("button", {type: "button", className: "tile chosen", textContent: FACES[code]});
      b.dataset.tile = code;
      b.addEventListener("click", () => { it.tiles.splice(i, 1); draw(it); });
      return b;
    }));
    if (it.claimed) {
      const keep = it.claimed.value;
      it.claimed.replaceChildren(...options(it.tiles.map((c) => [c, FACES[c]])));
      if (it.tiles.includes(keep)) it.claimed.value = keep;
    }
  }

  const keyboard = make("div", {className: "keyboard", id: "sc-keys"},
    ...Object.entries(FACES).map(([code, face]) => {
      const b = make("button", {type: "button", className: "tile", textContent: face});
      b.dataset.tile = code;
      b.addEventListener("click", () => {
        if (target && target.tiles.length < target.max) { target.tiles.push(code); draw(target); }
      });
      return b;
    }));

  const meldList = make("div", {id: "sc-melds"});
  function addMeld() {
    if (melds.length >= 4) return;
    const it = part("meld", S.melds + " " + (melds.length + 1), 4);
    it.type = make("select", {}, ...options([["chow", S.chow], ["pung", S.pung], ["kong", S.kong_meld]]));
    it.from = make("select", {}, ...options([["left", S.left], ["across", S.across],
                                             ["right", S.right], ["", S.concealed_kong]]));
    it.claimed = make("select", {"aria-label": S.claimed});
    const claimedLabel = make("label", {textContent: S.claimed}, it.claimed);
    const remove = make("button", {type: "button", className: "quiet", textContent: S.remove});
    const shape = () => {
      it.max = SIZES[it.type.value];
      it.tiles.splice(it.max);
      claimedLabel.hidden = it.type.value !== "chow";
      draw(it);
    };
    it.type.addEventListener("change", shape);
    remove.addEventListener("click", () => {
      melds.splice(melds.indexOf(it), 1); it.wrap.remove();
      if (target === it) aim(concealed);
    });
    it.wrap.prepend(it.type, it.from);
    it.wrap.append(claimedLabel, remove);
    it.wrap.classList.add("meld");
    melds.push(it); meldList.append(it.wrap); shape(); aim(it);
  }

  const seat = make("select", {id: "sc-seat"}, ...options([0, 1, 2, 3].map((n) => [n, n])));
  const flag = (name, text) => {
    const box = make("input", {type: "checkbox", id: "sc-" + name});
    return make("label", {className: "flag"}, box, text);
  };
  const drawn = flag("draw", S.draw);
  const discarder = make("select", {id: "sc-discarder"},
    ...options([["", "—"], ["left", S.left], ["across", S.across], ["right", S.right]]));
  const flowers = make("select", {id: "sc-flowers"},
    ...options([0, 1, 2, 3, 4, 5, 6, 7, 8].map((n) => [n, n])));
  const flags = ["self_drawn", "fourth_tile", "kong", "last_tile", "zuozhuang"].map((n) => flag(n, S[n]));
  const add = make("button", {type: "button", className: "quiet", id: "sc-add", textContent: S.add_meld});
  add.addEventListener("click", addMeld);
  const send = make("button", {type: "button", id: "sc-send", textContent: S.send});
  const answer = make("div", {id: "sc-answer", "aria-live": "polite"});
  const hand = make("div", {id: "sc-hand"},
    concealed.wrap, make("h3", {textContent: S.melds}), meldList, add, winTile.wrap,
    make("p", {className: "hint", textContent: S.taps}), keyboard,
    make("label", {textContent: S.discarder}, discarder),
    make("label", {textContent: S.flowers}, flowers), ...flags);
  drawn.firstChild.addEventListener("change", () => { hand.hidden = drawn.firstChild.checked; });
  root.append(make("h2", {id: "score-title", textContent: S.title}),
              make("label", {textContent: S.seat}, seat), drawn, hand, send, answer);
  aim(concealed);

  send.addEventListener("click", async () => {
    const checked = (n) => document.getElementById("sc-" + n).checked;
    const body = {seat: Number(seat.value)};
    if (checked("draw")) {
      body.draw = true;
    } else {
      Object.assign(body, {
        concealed: concealed.tiles, win_tile: winTile.tiles,
        melds: melds.map((m) => ({type: m.type.value, tiles: m.tiles, from: m.from.value || null,
                                  claimed: m.claimed.value || null})),
        discarder: discarder.value || null, flowers: Number(flowers.value)});
      for (const n of ["self_drawn", "fourth_tile", "kong", "last_tile", "zuozhuang"]) body[n] = checked(n);
    }
    send.disabled = true;
    try {
      const data = await window.mjtPost("/api/score", body);
      answer.className = "said";
      answer.replaceChildren(...data.lines.map((line) => make("p", {textContent: line})));
    } catch (error) {
      answer.className = "warn";
      answer.replaceChildren(make("p", {textContent: error.message}));
    } finally {
      send.disabled = false;
    }
  });
})();
