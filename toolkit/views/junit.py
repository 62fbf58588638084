"""Gate checks as JUnit XML, the test-report format every CI system reads.

One ``<testcase>`` per subject x dimension (``classname`` = the subject, ``name`` = the
dimension): a check that fails the gate is a ``<failure>`` whose message is the status
and whose text is the detail and the thresholds; a dimension not measured that the gate
accepts is ``<skipped>`` with the reason; the rest pass, with their detail in
``<system-out>`` (which says so when the finding does not decide the gate: informational
dimensions, and the metrics of a rubric whose verdict decides). The suite's
``<properties>`` name the rubric, its version, the gate mode and the results' epoch
(:mod:`toolkit.epoch`); a test case's own ``<properties>`` its subject's input digest. Built with
:mod:`xml.etree.ElementTree`, so every value is escaped.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterable, Mapping, Sequence

from toolkit.gate import INFO_KIND, NA_KIND, Check, fails
from toolkit.views.text import format_value


def _text(check: Check) -> str:
    lines = [f"{check.name}: {check.status}, value {format_value(check.value)}"]
    if check.detail:
        lines.append(check.detail)
    if check.green or check.red:
        lines.append(f"thresholds: OK {check.green or '-'}; FAIL {check.red or '-'}")
    return "\n".join(lines)


def render_junit(
    checks: Sequence[Check],
    *,
    suite: str,
    rubric: str,
    rubric_version: str,
    mode: str,
    allow_na: Iterable[str] = (),
    decide_mode: str | None = None,
    epochs: Sequence[str] = (),
    input_digests: Mapping[str, str] | None = None,
    properties: Sequence[tuple[str, str]] = (),
) -> str:
    """The checks as a JUnit XML document (one ``<testsuite>`` named ``suite``).

    Args:
        checks: every subject x dimension check of the command's output.
        suite: the suite's name, e.g. ``toolkit quality``.
        rubric, rubric_version: stamped into the suite's properties.
        mode: the gate mode deciding which checks are failures (``none``: none are),
            stamped as the ``gate`` property.
        allow_na: dimension keys whose N/A the gate accepts.
        decide_mode: the mode deciding, when ``mode`` is a command's own gate words
            (calibrate's ``min-alpha 0.667`` decides as ``fail-only``).
        epochs: the measurement epochs of the results (:mod:`toolkit.epoch`), stamped as
            the suite's ``epoch`` property (comma-separated when several).
        input_digests: subject -> its input digest, a ``input_digest`` property of each
            of the subject's test cases.
        properties: more (name, value) suite properties (calibrate's
            alternative-annotator test).
    """
    allowed = tuple(allow_na)
    deciding = decide_mode or mode
    root = ET.Element("testsuites", name="toolkit")
    node = ET.SubElement(root, "testsuite", name=suite)
    props = ET.SubElement(node, "properties")
    for name, value in (("rubric", rubric), ("rubric_version", rubric_version), ("gate", mode)):
        ET.SubElement(props, "property", name=name, value=value)
    if epochs:
        ET.SubElement(props, "property", name="epoch", value=",".join(dict.fromkeys(epochs)))
    for name, value in properties:
        ET.SubElement(props, "property", name=name, value=value)
    digests = input_digests or {}
    failures = skipped = 0
    for check in checks:
        case = ET.SubElement(node, "testcase", classname=check.subject, name=check.name)
        if check.subject in digests:
            own = ET.SubElement(case, "properties")
            ET.SubElement(own, "property", name="input_digest", value=digests[check.subject])
        if fails(check, deciding, allowed):
            failures += 1
            word = "not measured" if check.kind == NA_KIND else check.status
            failure = ET.SubElement(
                case, "failure", message=f"{check.name}: {word}", type=check.kind
            )
            failure.text = _text(check)
        elif check.kind == NA_KIND:
            skipped += 1
            ET.SubElement(case, "skipped", message=f"not measured: {check.detail or check.status}")
        else:
            note = (
                "" if check.counted and check.kind != INFO_KIND else "\n(does not decide the gate)"
            )
            ET.SubElement(case, "system-out").text = _text(check) + note
    for element in (root, node):
        element.set("tests", str(len(checks)))
        element.set("failures", str(failures))
        element.set("errors", "0")
        element.set("skipped", str(skipped))
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
