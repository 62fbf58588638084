"""``toolkit compare`` and ``toolkit rescore`` load and score runs of each family with the
same options (simulation ``--window`` and ``--cache``, discussion ``--ratings``, persona
``--propositions`` and ``--personas``), added by one helper: each option means the same in
both commands, and both parse it alike."""

from __future__ import annotations

import argparse

from toolkit.cli import compare, rescore
from toolkit.cli._run_args import add_run_arguments

SHARED = ("--window", "--cache", "--ratings", "--propositions", "--personas")


def _options(register: object) -> dict[str, argparse.Action]:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    register(sub)  # type: ignore[operator]
    [command] = sub.choices.values()
    return {s: a for a in command._actions for s in a.option_strings}


def _said(action: argparse.Action) -> tuple[object, ...]:
    return (action.dest, action.help, action.nargs, action.const, action.default,
            action.metavar, action.type)  # fmt: skip


def test_the_helper_adds_exactly_the_shared_options() -> None:
    parser = argparse.ArgumentParser()
    add_run_arguments(parser)
    added = {s for a in parser._actions for s in a.option_strings} - {"-h", "--help"}
    assert added == set(SHARED)


def test_compare_and_rescore_give_each_shared_option_one_meaning() -> None:
    parser = argparse.ArgumentParser()
    add_run_arguments(parser)
    helper = {s: a for a in parser._actions for s in a.option_strings}
    for register in (compare.register, rescore.register):
        options = _options(register)
        for flag in SHARED:
            assert _said(options[flag]) == _said(helper[flag]), (register, flag)


def test_the_shared_options_parse_alike() -> None:
    argv = ["--window", "5", "--cache", "--ratings", "r.csv", "--propositions", "props",
            "--personas", "p.yaml"]  # fmt: skip
    parsed = []
    for register, head in ((compare.register, ["compare", "a", "b"]),
                           (rescore.register, ["rescore", "run"])):  # fmt: skip
        parser = argparse.ArgumentParser()
        register(parser.add_subparsers())
        ns = parser.parse_args([*head, *argv])
        parsed.append((ns.window, ns.cache, ns.ratings, ns.propositions, ns.personas))
    assert parsed == [(5, True, "r.csv", "props", "p.yaml")] * 2
