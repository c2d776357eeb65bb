"""Guided diagnosis from what a technician says, in English or Chinese."""

from __future__ import annotations

import pytest

from firmware.console.render import diagnosis_lines
from firmware.diagnosis.guided import SYMPTOMS, diagnose
from firmware.diagnosis.symptoms import AmbiguousSymptom, UnknownSymptom, match
from firmware.i18n import language
from tests.test_diagnosis import run_check, table_in_play


@pytest.mark.parametrize(("said", "symptom"), [
    ("一套牌总在桌面上", "set_stays_on_table"),
    ("按对角二复位键，一付牌始终在桌上", "set_stays_on_table"),
    ("one set of tiles always stays on the table", "set_stays_on_table"),
    ("中心不降", "lid_not_lowering"),
    ("升降台降不下去", "lid_not_lowering"),
    ("lid does not lower", "lid_not_lowering"),
    ("The lid won't go down!", "lid_not_lowering"),
    ("一筒总是翻不过来", "tile_face_up"),
    ("有一张一筒总是反不过", "tile_face_up"),
    ("a tile is face up in the wall", "tile_face_up"),
    ("牌升不上来", "walls_not_rising"),
    ("the walls do not rise", "walls_not_rising"),
    ("洗牌半天还没好", "build_never_finishes"),
    ("the build never finishes", "build_never_finishes"),
    ("某一方少牌", "wrong_tile_count"),
    ("too many tiles in a wall", "wrong_tile_count"),
    ("骰子不转", "dice_not_spinning"),
    ("按骰子键筛子没反应", "dice_not_spinning"),
    ("the dice do not spin", "dice_not_spinning"),
    ("dice_not_spinning", "dice_not_spinning"),
    ("dice-not-spinning", "dice_not_spinning"),
])
def test_what_is_said_finds_its_symptom(said: str, symptom: str) -> None:
    assert match(said, SYMPTOMS) == symptom


def test_ambiguous_words_name_the_candidates() -> None:
    with pytest.raises(AmbiguousSymptom) as raised:
        match("stuck", SYMPTOMS)
    assert set(raised.value.candidates) == {"build_never_finishes", "dice_not_spinning"}
    assert "dice_not_spinning" in str(raised.value) and "the dice do not spin" in str(
        raised.value)


@pytest.mark.parametrize(("said", "not_this"), [
    ("卡牌", "dice_not_spinning"),              # a head jam, not the dice
    ("机头卡牌", "dice_not_spinning"),
    ("输送带不动", "dice_not_spinning"),
    ("按什么都没反应", "dice_not_spinning"),     # the panel's link, not the dice
    ("中间升不起来", "lid_not_lowering"),       # the opposite of "does not lower"
    ("中心不升", "lid_not_lowering"),
    ("tiles stuck", "set_stays_on_table"),
])
def test_a_verb_alone_or_the_opposite_never_gives_a_wrong_verdict(said: str,
                                                                  not_this: str) -> None:
    # "不转", "卡" or "没反应" without the dice is no answer about the dice: the
    # technician gets the list (or the candidates), never "骰子不转：正常".
    try:
        found = match(said, SYMPTOMS)
    except UnknownSymptom:
        return
    assert found != not_this


@pytest.mark.parametrize(("said", "symptom"), [
    ("升牌板卡住", "walls_not_rising"),
    ("大盘卡住", "build_never_finishes"),
    ("后几颗牌洗不上来", "wrong_tile_count"),
    ("多出来几张", "wrong_tile_count"),
    ("一张牌反了", "tile_face_up"),
    ("lid stuck up", "lid_not_lowering"),
    ("中心升降卡死", "lid_not_lowering"),
])
def test_more_of_what_technicians_say(said: str, symptom: str) -> None:
    assert match(said, SYMPTOMS) == symptom


def test_words_that_say_nothing_known_are_refused_with_the_list() -> None:
    with pytest.raises(UnknownSymptom) as raised:
        match("the diet is bad", SYMPTOMS)    # "die" inside a word is not the dice
    assert not isinstance(raised.value, AmbiguousSymptom)
    assert all(name in str(raised.value) for name in SYMPTOMS)


def test_one_set_on_the_table_is_answered_in_chinese_as_normal_with_evidence() -> None:
    harness = table_in_play()
    with language("zh_CN"):
        result = run_check(harness, "一套牌总在桌面上")
        lines = diagnosis_lines(result)
    assert result["symptom"] == "set_stays_on_table" and result["normal"] is True
    text = "\n".join(lines)
    assert lines[0] == "一副牌总在桌面上：正常"
    assert "两副牌的麻将机，一副在桌面上打，另一副在机器里理" in text
    assert "依据：" in text and ("在打的那副：B" in text or "在打的那副：A" in text)
    assert "中心升降上下检查：合格" in text and "理牌：已理好" in text
    # Text, never a Python repr or JSON.
    assert "{" not in text and "None" not in text and "True" not in text


def test_diagnosis_of_a_lid_that_does_not_lower_in_english_words() -> None:
    harness = table_in_play()
    harness.table.block_lid(True)
    result = run_check(harness, "the lid does not lower")
    assert result["symptom"] == "lid_not_lowering" and result["normal"] is False
    lines = diagnosis_lines(result)
    assert lines[0] == "the centre lid does not lower: NOT NORMAL"
    assert any(line.strip() == "what to do:" for line in lines)


def test_diagnose_accepts_exact_names_still() -> None:
    harness = table_in_play()
    assert diagnose(harness.ctl, "walls_not_rising")["symptom"] == "walls_not_rising"


def test_a_check_that_ends_later_answers_in_the_language_it_was_asked_in() -> None:
    harness = table_in_play()
    results: list[dict] = []
    with language("zh_CN"):
        assert diagnose(harness.ctl, "中心不降", results.append) is None
    # The check's timers run outside the block, as the daemon's loop runs them.
    harness.clock.run_until(harness.clock.now() + 30.0, until=lambda: bool(results))
    result = results[0]
    assert result["verdict"] == "中心升降能开能关，上下限位信号都正常"
    assert result["checks"][0]["note"] == "中心升降上下都走到位"


def test_per_side_evidence_reads_one_side_a_line_in_chinese() -> None:
    from firmware.console.render import evidence_lines

    plates = {"plates": {"0": {"state": "home", "home": True, "learned_s": 2.517},
                         "1": {"state": "home", "home": False, "learned_s": 2.5}}}
    # It was one run of "0: state: home, home: yes, learned_s: 2.517, 1: state: …".
    with language("zh_CN"):
        lines = evidence_lines(plates)
    assert len(lines) == 3 and "state" not in "".join(lines)
    assert "learned_s" not in "".join(lines) and "0 号口" in lines[1]
