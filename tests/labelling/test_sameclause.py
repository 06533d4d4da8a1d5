"""The same-clause rule: normalised headings and texts, the text ratio, and the figures whose
change blocks a carry."""

from __future__ import annotations

from rapidfuzz import fuzz

from ragsweep.data import version_key
from ragsweep.labelling.sameclause import figure_changes, figures, normalise, text_ratio


def test_same_clause_rule() -> None:
    from ragsweep.data import Clause

    a = Clause("home", "2024", "2.2", "Standard  Excess", "You must pay £250.", "2", "limits")
    b = Clause("home", "2025", "2.3", "standard excess", "You  must pay £350.", "2", "limits")
    c = Clause("home", "2025", "2.2", "Excess", "You must pay £250.", "2", "limits")
    assert normalise(" You\n must  PAY ") == "you must pay"
    assert text_ratio(a, b) == fuzz.ratio("you must pay £250.", "you must pay £350.")
    assert text_ratio(a, c) is None  # heading changed
    assert sorted(["v10", "2025", "v9", "2024"], key=version_key) == ["2024", "2025", "v9", "v10"]


def test_figures_and_their_changes() -> None:
    text = "Up to £1,500 per item (10% of the sum insured), 20 per cent, within 3 months of 1 May."
    assert figures(text) == ["£1,500", "10%", "20 per cent", "3 months", "1", "May"]
    assert figure_changes("an excess of £50.", "an excess of £75.") == ["£50 -> £75"]
    assert figure_changes("from 1 March", "from 1 April") == ["March -> April"]
    assert figure_changes("£50 and £100", "£100") == ["£50 -> (gone)"]
    assert figure_changes("within 48 hours", "within 48 hours or 2 days") == ["(new) -> 2 days"]
    assert figure_changes("You must pay £250.", "You  must PAY £250.") == []
