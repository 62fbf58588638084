"""Persona-drift inputs: chat runs, proposition files, golden baselines, correction logs.

Two chat-run forms are read (:func:`load_chat` tells them apart by their content):

* the toolkit's own JSONL chat format (one JSON object per line, ``type`` is ``run``,
  ``persona`` or ``message``; see ``docs/rubrics/persona.md``), and
* an export of ``run_messages`` rows as an agent platform stores them (a JSON array,
  ``{"run_messages": [...]}`` or JSONL), where a chat message is a row whose
  ``tool_name`` is ``send_message`` and whose ``tool_input`` holds ``text`` and
  ``channel``. Snake-case and camel-case keys are both accepted.

Proposition files follow section 4 of the persona format (``dimension``, ``agent_id``,
``include_personas``, ``hard``, ``target_type``, ``first_n``, ``last_n``,
``propositions[{id, claim, weight, inverted, recommendations_for_improvement}]``) plus
an optional per-proposition ``precondition`` naming a registered Python predicate.

Where each part lives: the chat run and personas files in :mod:`.run`, the JSONL form in
:mod:`.jsonl`, the run_messages export in :mod:`.export`, :func:`load_chat` in
:mod:`.chat`, proposition files in :mod:`.propositions`, baselines in :mod:`.baselines`
correction logs in :mod:`.corrections` and intervention logs in :mod:`.interventions`.
"""

from toolkit.load.persona.baselines import Baseline, load_baseline, load_baselines, write_baselines
from toolkit.load.persona.chat import load_chat
from toolkit.load.persona.corrections import correction_log_from_rows, load_correction_log
from toolkit.load.persona.interventions import intervention_log_from_rows, load_intervention_log
from toolkit.load.persona.propositions import (
    PERSONA_DIMENSIONS,
    TEMPLATE_VARIABLES,
    PropositionFile,
    PropositionFileModel,
    PropositionModel,
    PropositionSet,
    load_proposition_file,
    load_propositions,
    proposition_ids,
    render_claim,
)
from toolkit.load.persona.run import ChatRun, load_personas

__all__ = [
    "PERSONA_DIMENSIONS",
    "TEMPLATE_VARIABLES",
    "Baseline",
    "ChatRun",
    "PropositionFile",
    "PropositionFileModel",
    "PropositionModel",
    "PropositionSet",
    "correction_log_from_rows",
    "intervention_log_from_rows",
    "load_baseline",
    "load_baselines",
    "load_chat",
    "load_correction_log",
    "load_intervention_log",
    "load_personas",
    "load_proposition_file",
    "load_propositions",
    "proposition_ids",
    "render_claim",
    "write_baselines",
]
