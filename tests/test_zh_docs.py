"""docs/zh_CN says what the program says: the code card is the generated one, quoted
messages are the catalogue's, and the phrases in the table find their symptoms."""

from __future__ import annotations

import re
from pathlib import Path

from babel.messages.pofile import read_po

from firmware import i18n
from firmware.diagnosis import faultcard
from firmware.diagnosis.guided import SYMPTOMS
from firmware.diagnosis.symptoms import match
from firmware.i18n import _, language

DOCS = Path(__file__).resolve().parent.parent / "docs" / "zh_CN"


def test_fault_card_in_the_docs_is_the_generated_one() -> None:
    with language("zh_CN"):
        card = faultcard.render("md")
    assert (DOCS / "faults.md").read_text(encoding="utf-8") == card, (
        "stale: run `make docs` and commit docs/zh_CN/faults.md")


def test_make_docs_regenerates_the_fault_card() -> None:
    """A new fault kind is its family module, its zh_CN strings and its test; `make docs`
    regenerates every document that follows the kinds, the Chinese card among them."""
    makefile = (DOCS.parent.parent / "Makefile").read_text(encoding="utf-8")
    recipe = makefile.split("\ndocs:", 1)[1].split("\n\n", 1)[0]
    assert "mjtable faults --lang zh_CN --format md > docs/zh_CN/faults.md" in recipe


def test_quoted_messages_are_the_catalogues() -> None:
    with i18n.po_path("zh_CN").open("rb") as fh:
        said = [m.string for m in read_po(fh) if m.id and m.string]
    guide = (DOCS / "README.md").read_text(encoding="utf-8")
    quotes = re.findall(r"「([^」]+)」", guide)
    assert len(quotes) >= 5
    # A quote with a placeholder's value filled in is compared up to the placeholder.
    unknown = [q for q in quotes if not any(q in s or (s.split("{")[0] and
                                            q.startswith(s.split("{")[0])) for s in said)]
    assert not unknown, f"not what the program says: {unknown}"


def test_phrases_in_the_guide_find_the_symptom_it_names() -> None:
    guide = (DOCS / "README.md").read_text(encoding="utf-8")
    table = guide.split("| 说法 | 诊断的症状 |")[1].split("\n\n")[0]
    rows = [line.strip("|").split("|") for line in table.strip().splitlines()[1:]]
    assert len(rows) >= 7
    with language("zh_CN"):
        described = {name: _(text) for name, text in SYMPTOMS.items()}
    for phrases, symptom in rows:
        for phrase in phrases.split("/"):
            assert described[match(phrase.strip(), SYMPTOMS)] == symptom.strip(), phrase
