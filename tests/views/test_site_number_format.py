"""The site prints a score as the text views do (:func:`toolkit.scorecard.format_value`:
integers bare, others to three decimals, rounded as Python's ``format`` rounds the float's
exact binary value, a tie to the even digit). JavaScript's ``toFixed`` takes a tie away
from zero (0.0625 -> "0.063" where Python prints "0.062"), and the site used to print
numbers of 1 and more to two decimals (1.625 -> "1.63" where ``toolkit quality`` prints
"1.625"). The site's own function is run with node over cases worked by hand, then over
many floats against Python's ``format``, the reference the text views use."""

from __future__ import annotations

import random

from conftest import run_app_js

#: (value, what `toolkit quality` prints), worked by hand: 1/16 = 0.0625 is an exact tie
#: at three decimals (62.5 thousandths: to the even 62); 0.1875 = 3/16 is 187.5 (to 188);
#: 0.625 and 1.625 are exact with three decimals; 2/3 is 0.6666...; 123.4567 is
#: 123.456699999999997885... (to 123.457); 0.0005 is 0.000500000000000000010408... (above
#: the half: 0.001); 0.0015 is 0.00150000000000000003122... (0.002); 2.675 is
#: 2.67499999999999982236431605997495353221893310546875 (2.675 with three decimals).
CASES: list[tuple[float | None, str]] = [
    (0.0625, "0.062"),
    (-0.0625, "-0.062"),
    (0.1875, "0.188"),
    (1.0625, "1.062"),
    (2.3125, "2.312"),
    (0.625, "0.625"),
    (1.625, "1.625"),
    (2 / 3, "0.667"),
    (123.4567, "123.457"),
    (0.0005, "0.001"),
    (0.0015, "0.002"),
    (2.675, "2.675"),
    (-0.0001, "-0.000"),
    (2.0, "2"),
    (-0.0, "0"),
    (250.0, "250"),
    (1e21, "1000000000000000000000"),
    (None, "–"),
]


def _format_with_node(values: list[float | None]) -> list[str]:
    """The site's fmtValue over ``values``, run by node from app.js's own text."""
    program = (
        "const values = JSON.parse(require('fs').readFileSync(0, 'utf8'));\n"
        "process.stdout.write(JSON.stringify(values.map(fmtValue)));\n"
    )
    return list(run_app_js(r"\n  function fmtValue\(v\) \{\n.*?\n  \}\n", program, values, 60))


def test_the_site_prints_the_hand_worked_cases_as_the_text_views_do() -> None:
    from toolkit.scorecard import format_value

    values = [v for v, _ in CASES]
    assert _format_with_node(values) == [said for _, said in CASES]
    # and the text views print the same (their missing value is "-", the site's "–")
    assert [format_value(v) for v in values[:-1]] == [said for _, said in CASES[:-1]]


def test_the_site_agrees_with_python_on_many_floats() -> None:
    from toolkit.scorecard import format_value

    rng = random.Random(20261127)
    values: list[float | None] = []
    for _ in range(4000):
        values.append(rng.uniform(-2, 2))
        values.append(rng.randint(-4000, 4000) / 16)  # every tie at three decimals
        values.append(round(rng.uniform(-10, 10), 4))  # four decimals: a 5 at the end
        values.append(rng.uniform(0, 1e6))
        values.append(rng.randint(-(2**40), 2**40) + rng.randint(0, 15) / 16)  # large ties
    shown = _format_with_node(values)
    differ = [(v, s, format_value(v)) for v, s in zip(values, shown, strict=True)
              if s != format_value(v)]  # fmt: skip
    assert differ == []
