"""Commands the zh_CN sweep does not run: their help and messages in Chinese too."""

from __future__ import annotations

from tests.console.test_zh_everywhere import chinese, said  # noqa: F401 (a fixture)
from tests.console.zh_sweep import stray


def test_bench_help_is_in_chinese(chinese: None) -> None:  # noqa: F811
    text = said(["bench", "--help"])
    assert "--quick" in text and stray(text) == [], text
