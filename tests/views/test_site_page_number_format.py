"""The site's calibration, comparison and experiment pages print each number as the
Python view of that page does: calibrate's format specs (``.3f`` alphas, ``+.2f`` bias,
``g`` scores, ``.0%`` agreement), compare's ``num`` (three significant digits in a width)
and ``p_text``, and the experiment table's ``format_number`` (the shortest decimal form
rounded half away from zero, as papers print). JavaScript's ``toFixed`` and
``toPrecision`` take an exact tie away from zero where Python's ``format`` goes to the
even digit, and the site used to print numbers of 1 and more to two decimals. Each
formatter of app.js is run with node over cases worked by hand, then over many floats
against the Python functions the views call."""

from __future__ import annotations

import random

from conftest import run_app_js

from toolkit.rubrics.experiment.rounding import format_number
from toolkit.views.compare import num, p_text


def _run(calls: list[list[object]]) -> list[str]:
    """Each ``[name, *args]`` called in node on app.js's own Python-format functions."""
    program = (
        "const fns = {pyFixed, pyG, pyNum, pyP, paperFixed};\n"
        "const calls = JSON.parse(require('fs').readFileSync(0, 'utf8'));\n"
        "process.stdout.write(JSON.stringify(calls.map(c => fns[c[0]](...c.slice(1)))));\n"
    )
    pattern = r"\n  function exactDecimal\(a\) \{\n.*?\n(?=  function bytes\()"
    return list(run_app_js(pattern, program, calls))


#: (call, what Python prints), worked by hand. 0.0625 = 1/16 is an exact tie at three
#: decimals (to the even 0.062), 0.125 = 1/8 at two (+0.12), 2.5 at none (2); alpha 1.0
#: prints 1.000 under .3f (fmtValue's bare 1 is the scorecards'); 0.7333... is 73% under
#: .0%; 125 is an exact tie at two significant digits (1.2e+02); 0.000123 keeps its
#: digits under g (exponent -4), 0.0000123 does not; 6.745 is 6.74499999999999957... in
#: binary but the paper rounding reads its shortest form 6.745 (6.75), -0.125 -> -0.13.
CASES: list[tuple[list[object], str]] = [
    (["pyFixed", 0.0625, 3], "0.062"),
    (["pyFixed", -0.0625, 3], "-0.062"),
    (["pyFixed", 1.0, 3], "1.000"),
    (["pyFixed", 0.851, 3], "0.851"),
    (["pyFixed", 1.625, 3], "1.625"),
    (["pyFixed", 0.125, 2, True], "+0.12"),
    (["pyFixed", 0.375, 2, True], "+0.38"),
    (["pyFixed", -0.001, 2, True], "-0.00"),
    (["pyFixed", 0.0, 2, True], "+0.00"),
    (["pyFixed", 2.5, 0], "2"),
    (["pyFixed", 73.33333333333333, 0], "73"),
    (["pyFixed", 1234.5678, 3], "1234.568"),
    (["pyG", 7.0], "7"),
    (["pyG", 2.5], "2.5"),
    (["pyG", 125.0, 2], "1.2e+02"),
    (["pyG", 0.000123, 3], "0.000123"),
    (["pyG", 0.0000123, 3], "1.23e-05"),
    (["pyG", 123456789.0], "1.23457e+08"),
    (["pyNum", 0.125, 6], "0.125"),
    (["pyNum", 1.0625, 6], "1.06"),
    (["pyNum", -0.0625, 7, True], "-0.0625"),
    (["pyNum", 12345.6, 6], "1e+04"),
    (["pyNum", 2e-17, 7, True], "0"),
    (["pyP", 0.0004], "<0.001"),
    (["pyP", 0.0625], "0.062"),
    (["pyP", 1.0], "1.000"),
    (["paperFixed", 6.745, 2], "6.75"),
    (["paperFixed", -0.125, 2], "-0.13"),
    (["paperFixed", -0.001, 2], "0.00"),
    (["paperFixed", 9.995, 2], "10.00"),
    (["paperFixed", 1e-7, 2], "0.00"),
    (["paperFixed", -0.47499999999999964, 2], "-0.47"),
]


def test_the_pages_formatters_print_the_hand_worked_cases_as_python_does() -> None:
    assert _run([call for call, _ in CASES]) == [said for _, said in CASES]


def test_the_pages_formatters_agree_with_python_on_many_floats() -> None:
    rng = random.Random(41)
    values: list[float] = []
    for _ in range(1500):
        values += [
            rng.uniform(-2, 2),
            rng.randint(-4000, 4000) / 16,  # ties at three decimals
            rng.randint(-400, 400) / 8,  # ties at two
            round(rng.uniform(-10, 10), 3),  # a 5 at the end of the shortest form
            rng.uniform(0, 1e6),
            rng.uniform(-1e-5, 1e-5),
            float(rng.randint(-2000, 2000)),  # ties at significant digits (125, 1250)
        ]
    calls: list[list[object]] = []
    want: list[str] = []
    for v in values:
        calls += [
            ["pyFixed", v, 3], ["pyFixed", v, 2, True], ["pyFixed", 100 * v, 0], ["pyG", v],
            ["pyNum", v, 6], ["pyNum", v, 7, True], ["pyP", abs(v)], ["paperFixed", v, 2],
        ]  # fmt: skip
        want += [
            f"{v:.3f}", f"{v:+.2f}", f"{v:.0%}".removesuffix("%"), f"{v:g}", num(v, 6),
            num(v, 7, sign=True), p_text(abs(v)), format_number(v, 2),
        ]  # fmt: skip
    got = _run(calls)
    differ = [(c, g, w) for c, g, w in zip(calls, got, want, strict=True) if g != w]
    assert differ[:10] == []
