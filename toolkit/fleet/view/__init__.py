"""``toolkit view``: find every run, log, game and chat under some folders, score each with
its family's rubric, and hand the site view (:mod:`toolkit.views.site`) plain records.

This module only wires existing parts together (as :mod:`toolkit.cli.quality`,
``outcome --all``, ``discussion`` and ``persona`` do): the simulation loader and rubric
(with per-tick series), the iteration-log loader and outcome rubric, the discussion
loader and rubric, and the persona chat loader and rubric with a recorded judge. The
evidence rows of each dimension come from the frames those rubrics already return;
nothing is re-scored here.

Families are told by :mod:`toolkit.fleet.families` (the detector ``toolkit compare``
uses too):

* ``simulation``: a folder holding ``tick_summaries/`` (one run);
* ``outcome``: a folder holding ``iter-N.yaml`` files (one iteration log; one site row
  per iteration, as the outcome rubric scores iterations);
* ``persona``: ``*.jsonl`` / ``*.run_messages.json`` chat files, scored (one site row
  per agent and one for the environment) when a persona kit (propositions and a judge
  cassette) is beside them or given, else shown with their transcript, unscored;
* ``discussion``: any other ``*.json``, ``*.db`` or ``*.sqlite`` file that loads as games;

and a ``calibration.json`` beside them is the calibration page's result; experiment
results (``*.experiment.json``, or files in an ``experiments/`` folder) the experiments'
page (:mod:`.experiments`: tested as ``toolkit experiment`` tests them).

Each tick, message and iteration carries its raw record (the loader's row, bounded:
:mod:`toolkit.views.site.raw`); a simulation dimension's evidence rows are the ticks that
decided it (:func:`toolkit.rubrics.simulation.reasons.tick_reasons` and the ticks where
its window's status changed), its per-tick series its chart.

A file that looks like a family but does not load is left out with a note (shown above
the site's index and printed by the CLI), never silently. In object storage, the files
read whole from a path (games, chats, kits, a calibration) are copied into a temporary
folder to be loaded (:mod:`toolkit.io.staging`) and named by their URLs.

A fleet's runs are not all held: :func:`collect` hands each run to a sink as it is made
(``toolkit view`` gives :class:`toolkit.views.site.SiteWriter`, which writes its files at
once) and keeps only what a calibration's links read of it (:class:`.links.LinkTarget`);
a simulation fleet is scored a part of whole runs at a time
(:func:`.simulation.fleet_parts`).

One idea per module: :mod:`.collect` (finding and scoring everything, the notes),
:mod:`.simulation`, :mod:`.outcome`, :mod:`.discussion` and :mod:`.persona` (each
family's site records), :mod:`.staging` (copies out of object storage), :mod:`.results`
(the compare and calibrate results shown on their own pages), :mod:`.experiments` (the
experiments' page) and :mod:`.links` (where a calibration's disagreements are in the
site).
"""

from toolkit.fleet.find import session_of
from toolkit.fleet.view.collect import Collected, collect
from toolkit.fleet.view.links import calibration_links, names_items
from toolkit.fleet.view.persona import PERSONA_NOTE
from toolkit.fleet.view.results import load_calibration, load_compare
from toolkit.fleet.view.staging import STAGED_FAMILIES

__all__ = [
    "PERSONA_NOTE",
    "STAGED_FAMILIES",
    "Collected",
    "calibration_links",
    "collect",
    "load_calibration",
    "load_compare",
    "names_items",
    "session_of",
]
