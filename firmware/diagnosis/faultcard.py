"""`mjtable faults`: the fault-code card to tape inside the table.

One entry per display code: the code, a short name a technician says, what it
means, the likely causes and what to do, in the current language. Text fits 80
columns (CJK counted double); Markdown and HTML print from a browser or a wiki.
"""

from __future__ import annotations

import html
from typing import Any

from firmware.faults.kinds import CATALOGUE, FaultKind
from firmware.i18n import N_, _, join
from firmware.words import cells

FORMATS = ("text", "md", "html")
WIDTH = 80

HEADINGS = (N_("code"), N_("name"), N_("meaning"), N_("likely causes"), N_("what to do"))

# What else the 7-segment display shows, besides a fault's code.
DISPLAY = (
    ("rF", N_("refeed: empty belts, heads and tracks onto the disc, then hold both lift "
              "keys 2 s (the ready lamp lights while held; one key or a short press does "
              "not count): the set is built again from zero. A technician may clear it "
              "with --refed instead")),
    ("ES", N_("e-stop: every motor off until a technician releases it")),
    ("t-", N_("test mode; t3 while test 3 runs, then 3P (passed), 3F (failed) or 3- (not "
              "tested now)")),
    ("c1a2b", N_("c and four hex digits: the start of the next hand's commitment")),
    ("3-5", N_("the dice faces of the last throw")),
)


def short_name(fault_id: str) -> str:
    """The short name of a fault in the current language (its id when it has none)."""
    kind = CATALOGUE.get(fault_id)
    return _(kind.short) if kind is not None and kind.short else fault_id


def entries() -> list[dict[str, Any]]:
    """The card's rows in the current language, in code order."""
    rows = []
    for kind in sorted(CATALOGUE.values(), key=_order):
        rows.append({"code": kind.code, "id": kind.id, "name": short_name(kind.id),
                     "severity": kind.severity, **kind.texts("N")})
    return rows


def _order(kind: FaultKind) -> tuple[str, str]:
    return kind.code[1:], kind.id


def _title() -> str:
    return _("mjtable fault codes")


def _legend() -> list[str]:
    return [_("E = error: the table stops, motors off. W = warning: play goes on. "
              "I = information."),
            _("N in a code is the side: 0 bottom, 1 right, 2 top, 3 left, as the live "
              "view draws the table."),
            _("Clear a fault after the repair: mjtable console clear CODE."),
            *[_("Display {code}: {meaning}").format(code=code, meaning=_(meaning))
              for code, meaning in DISPLAY]]


def render(fmt: str = "text") -> str:
    """The card as text, Markdown or HTML."""
    if fmt == "text":
        return _text()
    if fmt == "md":
        return _markdown()
    if fmt == "html":
        return _html()
    raise ValueError(f"unknown format {fmt!r}; formats: " + ", ".join(FORMATS))


def _wrap(text: str, width: int, indent: str) -> list[str]:
    """Wrap by display cells (a CJK character is two), breaking at spaces if any."""
    lines: list[str] = []
    line = ""
    for word in _words(text):
        if line and cells(indent + line + word) > width:
            lines.append(indent + line.rstrip())
            line = word.lstrip()
        else:
            line += word
    if line.strip():
        lines.append(indent + line.rstrip())
    return lines


def _words(text: str) -> list[str]:
    # Latin words keep their trailing space; CJK characters break anywhere.
    words: list[str] = []
    current = ""
    for ch in text:
        current += ch
        if ch == " " or cells(ch) == 2:
            words.append(current)
            current = ""
    if current:
        words.append(current)
    return words


def _text() -> str:
    out = [_title(), "=" * min(WIDTH, cells(_title()) + 8)]
    for line in _legend():
        out += _wrap(line, WIDTH, "")
    for row in entries():
        out.append("")
        out.append(f"{row['code']}  {row['name']} — {row['summary']}")
        out += _wrap(_("likely: {causes}").format(causes=join(row["causes"])), WIDTH, "     ")
        out += _wrap(_("do: {remedy}").format(remedy=join(row["remedy"])), WIDTH, "     ")
    return "\n".join(out) + "\n"


def _markdown() -> str:
    out = [f"# {_title()}", ""]
    out += [f"- {line}" for line in _legend()]
    out += ["", "| " + " | ".join(_(h) for h in HEADINGS) + " |", "|---|---|---|---|---|"]
    for row in entries():
        cells = [f"**{row['code']}**", row["name"], row["summary"],
                 "<br>".join(row["causes"]), "<br>".join(row["remedy"])]
        out.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(out) + "\n"


def _html() -> str:
    e = html.escape
    lang = "zh-CN" if _("code") != "code" else "en"
    head = "".join(f"<th>{e(_(h))}</th>" for h in HEADINGS)
    rows = []
    for row in entries():
        cells = [f"<b>{e(row['code'])}</b>", e(row["name"]), e(row["summary"]),
                 "<br>".join(map(e, row["causes"])), "<br>".join(map(e, row["remedy"]))]
        rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    legend = "".join(f"<li>{e(line)}</li>" for line in _legend())
    return (f'<!doctype html>\n<html lang="{lang}"><head><meta charset="utf-8">'
            f"<title>{e(_title())}</title><style>body{{font:11pt sans-serif}}"
            "table{border-collapse:collapse}td,th{border:1px solid #444;padding:2px 4px;"
            "vertical-align:top}</style></head><body>\n"
            f"<h1>{e(_title())}</h1><ul>{legend}</ul>\n<table><tr>{head}</tr>\n"
            + "\n".join(rows) + "\n</table></body></html>\n")
