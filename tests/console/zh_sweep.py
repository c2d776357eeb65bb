"""What the zh_CN sweep allows of Latin letters: ids, signal names, codes, units,
commands and options, names of things (mjtable, JSON) — never an English word."""

from __future__ import annotations

import re

# A run of Latin letters, with what may join it into one token (ids, options, paths).
TOKEN = re.compile(r"[A-Za-z0-9_./:+#@~$-]*[A-Za-z][A-Za-z0-9_./:+#@~$-]*")

# Words that are names, units, commands or values a person types, not English prose.
WORDS = """
mjtable mjtable's JSON json API TOML toml HAL UART TCP Unix SD CPU Python pip Textual rich
argon2id sha256 sqlite3 SQLite systemd Pi Raspberry GPIO MCR mcr jingji guangdong tianjin
Pico pico MicroPython RP2040 board flash Ctrl-C SIGTERM
fuzhou nominal under_mixed sim ioboard rpigpio text md html
s ms KB KiB MB MiB GB Hz mm V
console run simulate fuzz deal audit bench verify-deals faults info status log export-log
verify-log diagnose test test-mode jog clear estop walls config tui add-technician
remove-technician technicians on off all lid disc ring dice fwd up down plate head conveyor lift
check release json mqtt mqtts help force
agent score usage command replay health maintained symptoms venue staff integrator board flash
Pico pico MicroPython RP2040
wipe hole sensors felt channels oil tips rails
li zhang wang
E W I N c p Lines
fault key phase technician login logout subscribe testmode
"""
ALLOWED = frozenset(re.findall(r"\S+", WORDS))
# Codes: fault codes (E21, W52, I92, E2N), display codes (rF ES t- 3P 4F t3 c1a2b),
# tile codes (W1 B9 J3 H8), hex (commitments, nonces), metavars (PATH, HOST:PORT).
PATTERNS = [re.compile(p) for p in (
    r"[EWI]\d[\dN]",                # fault codes
    r"rF|ES|t-?|t\d+|\d+[PF]|c[0-9a-f]{4}",   # display codes
    r"[WBTFJH]\d",                  # tile codes
    r"[0-9a-f]{6,}",                # hex: commitments, nonces, hashes
    r"\d+:[0-9a-f]{64}",             # an event log's chain head
    r"[a-z]+(-[a-z0-9]+)+",         # hyphenated ids: table-1, four-mouth-two-set
    r"sha256:[0-9a-f]+",
    r"\$?[A-Z][A-Z0-9_:-]*",         # metavars and env names: PATH, NAME, $MJTABLE_TOKEN
    r"--?[a-z][a-z0-9-]*",          # options
    r"en|zh_CN",                    # language codes
    r"\$?[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z0-9_*{}-]+)+",    # ids and signals: head.jam
    r"[a-z0-9]+(_[a-z0-9]+)+",      # snake ids: build_s, tiles_missing
    r".*/.*",                       # paths
    r"\d+[a-z]*",                   # numbers with units: 5s, 2x
    r"x\d.*",                       # speed factors: x1645.1
)]


# What a person typed, echoed in quotes, and config keys ("[display] language").
# An event-log line's kind and its keys are the record's ids (`log --kind KIND`).
ECHOED = re.compile(r"“[^”]*”|'[^'\n]*'|\[[a-z_]+\]( [a-z_]+)?|[a-z_]+=|局 +[-\d]+ \S+")


def stray(text: str) -> list[str]:
    """The tokens of `text` that are neither allowed words nor codes, ids or paths."""
    found = []
    for token in TOKEN.findall(ECHOED.sub(" ", text)):
        word = token.rstrip(".:,;/").lstrip(".:/")
        if not word or not re.search("[A-Za-z]", word):
            continue
        if word in ALLOWED or any(p.fullmatch(word) for p in PATTERNS):
            continue
        found.append(word)
    return found


# The strict walk (tests/browser/test_phone.py, tests/console/test_zh_strict.py): what a
# Chinese technician reads may hold codes and the table's id, nothing else in Latin.
CODES = [re.compile(p) for p in (
    r"[EWI]\d[\dN]",                # fault codes
    r"rF|ES|t-?|t\d+|\d+[PF-]|c[0-9a-f]{4}|E-STOP",   # display codes, the e-stop tile
    r"[WBTFJH]\d",                  # tile codes
    r"[0-9a-f]{6,}",                # hex: commitments, nonces, hashes
    r"\d+(\.\d+)?[a-z]*",           # numbers
)]


def latin_words(text: str, allowed: tuple[str, ...] = ()) -> list[str]:
    """The Latin words of `text` that are not codes nor in `allowed` (the table's id,
    the technician's name)."""
    found = []
    for token in TOKEN.findall(text):
        word = token.strip(".:,;/-")
        if not word or not re.search("[A-Za-z]", word):
            continue
        if word in allowed or any(p.fullmatch(word) for p in CODES):
            continue
        found.append(word)
    return found
