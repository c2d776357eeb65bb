"""From what a technician says to a symptom of guided diagnosis, in English or Chinese.

A phrase matches a symptom when every one of its word groups is found in the text
(any one word of a group). The symptom whose matched words are longest wins; a tie
is ambiguous and the candidates are named, so the technician can say more. When no
phrase matches whole, only the part named (a phrase's first group) may stand alone:
"卡" or "不转" alone says nothing about the dice, and words saying the opposite
("升不起来" against "中心不降") rule a symptom out.
Words are the trade's own (docs/languages.md: 中心升降, 大盘, 升牌板, 骰子 …) and what
owners write ("一付牌始终在桌上", "一筒总是反不过").
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from firmware.i18n import _
from firmware.printable import printable

Group = tuple[str, ...]

SET = ("一套", "一副", "一付", "一幅", "one set", "a set", "set of tiles")
ON_TABLE = ("桌面", "桌上", "台面", "on the table", "stays on", "always on", "left on")
FACE = ("翻不过", "反不过", "翻不了", "正面朝上", "面朝上", "反牌", "翻牌", "牌面朝上",
        "face up", "faces up", "shows its face", "face showing", "shows a face",
        "牌反了", "upside down", "not flipped", "does not flip", "doesn't flip")
WALLS = ("牌墙", "牌城", "升牌", "牌升", "承牌板", "升牌板", "上牌", "walls", "wall",
         "plate", "plates")
NOT_RISING = ("升不上", "不升", "没上来", "上不来", "不上来", "没升", "not rise",
              "not rising", "don't rise", "do not rise", "does not rise", "doesn't rise",
              "won't rise", "not come up", "do not come up", "stay down", "stays down")
LID = ("中心", "升降", "中间", "盖", "舱门", "仓门", "升降台", "lid", "centre", "center",
       "hole")
NOT_LOWERING = ("不降", "降不", "关不上", "不下来", "下不来", "关不了", "not lower",
                "not lowering", "doesn't lower", "stuck up", "does not lower", "won't lower",
                "not go down", "not come down", "stays up", "stay up", "not close",
                "won't close", "doesn't close", "does not close")
BUILD = ("洗牌", "理牌", "作牌", "码牌", "洗", "大盘", "洗牌盘", "build", "building", "shuffle",
         "shuffling")
NEVER_DONE = ("不完", "没好", "洗不好", "不好", "不停", "半天", "太慢", "很慢", "慢",
              "卡住", "停了", "never finish", "not finish", "doesn't finish",
              "does not finish", "never ends", "never done", "takes forever", "slow",
              "stops", "stuck", "hangs")
COUNT = ("少牌", "多牌", "缺牌", "牌数", "少一", "多一", "少了", "多了", "少张", "多张",
         "不齐", "多出", "洗不上来", "too many", "too few", "missing", "extra", "wrong count",
         "wrong number", "short")
DICE = ("骰子", "色子", "筛子", "塞子", "骰", "dice", "die")
NOT_SPINNING = ("不转", "不动", "卡住", "卡", "没反应", "不跳", "not spin", "not spinning",
                "don't spin", "do not spin", "doesn't spin", "does not spin",
                "won't spin", "not turn", "not roll", "not tumble", "stuck", "dead")

PHRASES: dict[str, tuple[tuple[Group, ...], ...]] = {
    "set_stays_on_table": ((SET, ON_TABLE),),
    "tile_face_up": ((FACE,),),
    "walls_not_rising": ((WALLS, NOT_RISING),),
    "lid_not_lowering": ((LID, NOT_LOWERING),),
    "build_never_finishes": ((BUILD, NEVER_DONE),),
    "wrong_tile_count": ((COUNT,),),
    "dice_not_spinning": ((DICE, NOT_SPINNING),),
}

# Words that say the other way round: "中间升不起来" is not "the lid does not lower".
OPPOSITE: dict[str, Group] = {
    "lid_not_lowering": ("升不", "不升", "没升", "起不来", "not rise", "not rising",
                         "not go up", "not come up", "stays down", "stay down"),
}


class UnknownSymptom(ValueError):
    """The words match no symptom; the message lists them all."""


class AmbiguousSymptom(UnknownSymptom):
    """The words match more than one symptom equally well."""

    def __init__(self, message: str, candidates: list[str]) -> None:
        super().__init__(message)
        self.candidates = candidates


def normalize(text: str) -> str:
    """Lower case, "n't" spelt out, punctuation as spaces, one space between words."""
    text = text.lower().replace("’", "'")
    text = text.replace("won't", "will not").replace("can't", "cannot").replace("n't", " not")
    text = re.sub(r"[\s,.;:!?，。；：！？、\"'“”‘()（）]+", " ", text)
    return " " + text.strip() + " "


def _found(group: Group, text: str) -> float:
    """How much of `text` the longest word of `group` found there says (0: none)."""
    best = 0.0
    for word in group:
        if word.isascii():
            # Latin words stand as words ("die" is not in "diet"); a CJK character
            # says about as much as three Latin letters.
            hit = normalize(word) in text
            weight = len(word) / 3
        else:
            hit = word in text
            weight = len(word)
        if hit:
            best = max(best, weight)
    return best


def score(text: str, symptom: str) -> tuple[float, float, float]:
    """(full, named, hint): how well the text says `symptom`; `named` counts the part
    named without the rest, `hint` only the rest ("stuck" without saying what)."""
    full = named = hint = 0.0
    if _found(OPPOSITE.get(symptom, ()), text):
        return full, named, hint
    for phrase in PHRASES.get(symptom, ()):
        hits = [_found(group, text) for group in phrase]
        if all(hits):
            full = max(full, sum(hits))
        elif hits[0]:
            named = max(named, hits[0])
        else:
            hint = max(hint, sum(hits))
    return full, named, hint


def match(said: str, known: Mapping[str, str]) -> str:
    """The symptom id for what was said; `known` maps ids to their descriptions."""
    key = said.strip().lower().replace("-", "_").replace(" ", "_")
    if key in known:
        return key
    text = normalize(said)
    scores = {s: score(text, s) for s in known}
    full = sorted(((v[0], s) for s, v in scores.items() if v[0]), reverse=True)
    if full:
        best = [s for v, s in full if v == full[0][0]]
        if len(best) == 1:
            return best[0]
        raise AmbiguousSymptom(_ambiguous(said, best, known), best)
    named = sorted(((v[1], s) for s, v in scores.items() if v[1]), reverse=True)
    if len(named) == 1:
        return named[0][1]
    # Several parts named, or only a verb ("stuck", "卡"): never a verdict, a choice.
    names = [s for _v, s in named] or [s for s, v in scores.items() if v[2]]
    if len(names) > 1:
        raise AmbiguousSymptom(_ambiguous(said, names, known), names)
    raise UnknownSymptom(_("no symptom matches “{said}”; say what you see, or name one:")
                         .format(said=printable(said)) + _listing(list(known), known))


def _ambiguous(said: str, names: list[str], known: Mapping[str, str]) -> str:
    return (_("“{said}” could mean more than one symptom; say more, or name one:")
            .format(said=printable(said)) + _listing(names, known))


def _listing(names: list[str], known: Mapping[str, str]) -> str:
    return "".join(f"\n  {name:<22} {_(known[name])}" for name in names)
