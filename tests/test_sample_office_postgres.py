"""The-office sample database: reproducible from its generator, and in the tables' shape."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from conftest import SAMPLE_RUNS

SQL = SAMPLE_RUNS / "persona" / "the-office-postgres.sql"

#: The tables of FORMATS.md section 5 (the-office on PostgreSQL).
TABLES = {
    "agents", "channels", "messages", "runs", "run_steps", "run_messages", "evaluation_runs",
    "evaluation_scores", "correction_logs", "intervention_logs", "experiments",
    "experiment_environments",
}  # fmt: skip


def test_generator_reproduces_the_committed_sql(tmp_path: Path) -> None:
    out = tmp_path / "office.sql"
    subprocess.run(
        [sys.executable, str(SAMPLE_RUNS / "make_office_postgres.py"), str(out)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    assert out.read_bytes() == SQL.read_bytes()


def test_every_table_created_and_filled() -> None:
    text = SQL.read_text(encoding="utf-8")
    created = set(re.findall(r"^CREATE TABLE (\w+) ", text, flags=re.MULTILINE))
    filled = set(re.findall(r"^INSERT INTO (\w+) ", text, flags=re.MULTILINE))
    assert created == TABLES
    assert filled == TABLES
    # run_messages has no agent column, as upstream
    columns = re.search(r"CREATE TABLE run_messages \((.*?)\);", text)
    assert columns is not None and "agent_id" not in columns.group(1)
