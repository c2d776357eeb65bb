"""`mjtable deal` and `mjtable audit` through deal_main / audit_main."""

import io
import json
import random

import pytest

from rules import deal
from rules.cli import audit_main, deal_main

from .layouts import random_walls


def good_input() -> dict:
    return {"variant": "mcr", "dealer_position": 2,
            "walls": random_walls("mcr", random.Random(11)), "throws": [[3, 5], [4, 2]]}


def run_deal(tmp_path, capsys, obj=None, text=None, args=()):
    path = tmp_path / "deal.json"
    path.write_text(text if text is not None else json.dumps(obj), encoding="utf-8")
    code = deal_main([str(path), *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_output(tmp_path, capsys):
    code, out, err = run_deal(tmp_path, capsys, good_input(), args=["--json"])
    assert code == 0 and err == ""
    record = json.loads(out)
    assert record["schema"] == "mjtable.dealt-walls/1"
    assert record["break"]["wall_position"] == 1  # 3 + 5 = 8 from dealer 2 -> 上家 = 1


def test_picture_output(tmp_path, capsys):
    code, out, _ = run_deal(tmp_path, capsys, good_input())
    assert code == 0
    assert "wall 0 (position 0)" in out and "wall 2 (position 2)" in out
    assert "break on wall 1 count 14" in out
    for seat in "ESWN":
        assert f"\n{seat} (" in out


def test_stdin(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(good_input())))
    assert deal_main(["-", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["variant"] == "mcr"


def _broken(change):
    obj = good_input()
    change(obj)
    return obj


BAD = {
    "unparseable": (None, "not JSON"),
    "three walls": (lambda o: o["walls"].pop(), "walls: expected 4 walls, got 3"),
    "short wall": (lambda o: o["walls"][1].pop(), "walls[1]: expected 18 stacks"),
    "three-tile stack": (lambda o: o["walls"][0][4].append("W1"),
                         "walls[0][4]: expected a stack [top, bottom]"),
    "unknown code": (lambda o: o["walls"][2][5].__setitem__(0, "X9"),
                     "walls[2][5][0]: unknown tile code 'X9'"),
    "too often": (lambda o: o["walls"][3].__setitem__(0, ["J1", "J1"]) or
                  o["walls"][3].__setitem__(1, ["J1", "J1"]) or
                  o["walls"][3].__setitem__(2, ["J1", "W1"]), "appears 5 times, the set holds 4"),
    "missing throw": (lambda o: o["throws"].pop(), "throws: 1 given, mcr needs 2"),
    "extra throw": (lambda o: o["throws"].append([1, 1]), "throws: 3 given, mcr needs 2"),
    "face 7": (lambda o: o["throws"][1].__setitem__(0, 7), "throws[1][0]: face 7 outside 1–6"),
    "dealer 4": (lambda o: o.__setitem__("dealer_position", 4), "dealer_position: 4 outside 0–3"),
    "dealer -1": (lambda o: o.__setitem__("dealer_position", -1), "dealer_position: -1 outside"),
    "unknown variant": (lambda o: o.__setitem__("variant", "hk"), "variant: unknown 'hk'"),
    "bad override": (lambda o: o.__setitem__("overrides", {"dice": 9}),
                     "overrides.dice: got 9, allowed: from 1 to 3"),
    "not an object": (lambda o: o.clear(), "input: missing key 'variant'"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_input_exits_2_with_one_line(tmp_path, capsys, case):
    change, message = BAD[case]
    if change is None:
        code, out, err = run_deal(tmp_path, capsys, text='{"variant": "mcr",')
    else:
        code, out, err = run_deal(tmp_path, capsys, _broken(change))
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.endswith("\n")
    assert err.startswith("mjtable deal: ")
    assert message in err


def test_missing_file(tmp_path, capsys):
    assert deal_main([str(tmp_path / "nope.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot read" in err


def _history(n: int, seed: int) -> list[dict]:
    rng = random.Random(seed)
    return [deal(random_walls("mcr", rng), [[rng.randint(1, 6), rng.randint(1, 6)]
                                            for _ in range(2)], "mcr", rng.randrange(4),
                 nonce="n") for _ in range(n)]


def test_audit_cli(tmp_path, capsys):
    path = tmp_path / "h.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in _history(30, 1)) + "\n")
    assert audit_main([str(path)]) == 0
    out = capsys.readouterr().out
    assert "verdict: no evidence of bias" in out
    assert audit_main([str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["records"] == 30


def test_audit_cli_bad_line(tmp_path, capsys):
    path = tmp_path / "h.jsonl"
    records = [json.dumps(r) for r in _history(3, 2)]
    records.insert(1, "")
    records[3] = records[3].replace('"W1"', '"W0"', 1)
    path.write_text("\n".join(records) + "\n{oops\n")
    assert audit_main([str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and ":5: not JSON" in err
    path.write_text("\n".join(records) + "\n")
    assert audit_main([str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and ":4: walls[" in err and "unknown tile code 'W0'" in err


@pytest.mark.parametrize("variant", ["mcr", "jingji", "guangdong", "tianjin", "fuzhou"])
def test_picture_of_every_variant_with_unknown_tiles(variant, tmp_path, capsys):
    from .layouts import random_throws

    rng = random.Random(12)
    obj = {"variant": variant, "dealer_position": 1,
           "walls": random_walls(variant, rng, null_rate=0.3),
           "throws": random_throws(variant, rng)}
    code, out, err = run_deal(tmp_path, capsys, obj)
    assert code == 0 and err == ""
    assert "--" in out and "commitment sha256:" in out
    if variant in ("tianjin", "fuzhou"):
        assert "wild (" in out


def test_audit_cli_bad_alpha(tmp_path, capsys):
    path = tmp_path / "h.jsonl"
    path.write_text(json.dumps(_history(1, 3)[0]) + "\n")
    assert audit_main([str(path), "--alpha", "2"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
