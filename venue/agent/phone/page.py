"""The phone page's markup: one column, its words in the reader's language.

Everything the script needs (the CSRF token, the words it says, the symptoms, tests
and motors) goes in a JSON block it reads; the page loads nothing from elsewhere.
"""

from __future__ import annotations

import html
import json
from typing import Any

from firmware.i18n import _, language
from venue.agent.phone.words import page_words

# Each language by its own name: a reader who cannot read this page finds theirs.
LANGUAGE_NAMES = {"en": "English", "zh_CN": "中文"}

TEMPLATE = """<!doctype html>
<html lang="{html_lang}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title><link rel="stylesheet" href="/static/phone.css"></head>
<body><main>
<header><h1>{title}</h1><nav class="langs" aria-label="{language}">{langs}</nav></header>
<p id="offline" class="warn" hidden>{offline}</p>
<section><h2>{display}</h2><div id="display" class="display" aria-live="polite">--</div>
<p id="state" class="state"></p></section>
<section><h2>{lamps}</h2><ul id="lamps" class="lamps"></ul></section>
<section><h2>{faults}</h2><p id="nofaults">{no_faults}</p><div id="faults"></div></section>
<section><h2>{diagnosis}</h2><label for="symptom">{symptom}</label>
<select id="symptom"></select><button id="diagnose" type="button">{diagnose}</button>
<div id="verdict" aria-live="polite"></div></section>
<section id="score" aria-labelledby="score-title"></section>
<section id="tech"><h2>{technician}</h2>
<form id="login"><label for="name">{name}</label><input id="name" autocomplete="username"
 autocapitalize="off"><label for="token">{token}</label><input id="token" type="password"
 autocomplete="current-password"><button type="submit">{login}</button></form>
<div id="tools" hidden><p id="who"></p>
<button id="tm-on" type="button">{testmode_on}</button>
<button id="tm-force" type="button" hidden>{testmode_force}</button>
<button id="tm-off" type="button">{testmode_off}</button>
<h3>{selftest}</h3><select id="mechanism" aria-label="{selftest}"></select>
<button id="run-test" type="button">{run_test}</button>
<h3>{jog}</h3><label for="motor">{motor}</label><select id="motor"></select>
<div id="jog-buttons" class="jog"></div><p id="jog-state" aria-live="polite"></p>
<button id="logout" type="button" class="quiet">{logout}</button></div>
<p id="message" role="status"></p></section>
</main>
<script type="application/json" id="boot">{boot}</script>
<script src="/static/phone.js"></script>
<script src="/static/score.js"></script>
</body></html>
"""


def render(lang: str, table: str, boot: dict[str, Any]) -> str:
    said = page_words(lang)
    with language(lang):
        said["title"] = _("table {table}: phone console").format(table=table)
    escaped = {k: html.escape(v) for k, v in said.items()}
    langs = "".join(
        '<button type="button" data-lang="{code}" lang="{tag}" aria-pressed="{on}">'
        '{name}</button>'.format(code=code, tag=code.replace("_", "-"), name=name,
                                 on="true" if code == lang else "false")
        for code, name in LANGUAGE_NAMES.items())
    # JSON inside <script>: no "</script>" can close it early.
    text = json.dumps(boot, ensure_ascii=False).replace("<", "\\u003c")
    return TEMPLATE.format(html_lang=lang.replace("_", "-"), langs=langs, boot=text,
                           **escaped)
