"""A whole store as files and back: every part into a folder or one zip archive, and a
restore of them in one transaction."""

from __future__ import annotations

import hashlib
import io
import json
import os
import sqlite3
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from toolkit.errors import InputError
from toolkit.io.archive import check_rows, read_zip_members, refuse_special
from toolkit.io.atomic import atomic_path, write_text_atomic
from toolkit.io.edge import parse_json, read_bytes
from toolkit.ratings.store.exports import EXPORT_PARTS, Exports


class Backup(Exports):
    """Back up every part of the store, restore a backup."""

    def backup(self, folder: str | Path, *, fmt: str = "parquet") -> list[Path]:
        """Export every part of the store (:data:`EXPORT_PARTS`) into ``folder`` as
        ``ratings``, ``labels``, ``items``, ``drafts`` and ``skips`` files (each written
        atomically), with ``session.json``, the identity of the session (:meth:`session_identity`);
        :meth:`restore` reads them back. A ``folder`` ending in ``.zip`` is one archive of
        those files instead (:meth:`backup_archive`), written atomically.

        Args:
            folder: where the files go (created when missing), or a ``.zip`` file.
            fmt: ``parquet`` or ``csv``.

        Returns:
            The files written, in the order of :data:`EXPORT_PARTS`, then
            ``session.json`` (the archive alone for a ``.zip``).
        """
        if fmt not in ("parquet", "csv"):
            raise InputError(self._name, "a backup is parquet or csv", field="fmt", value=fmt)
        out = Path(folder)
        if out.suffix.lower() == ".zip":
            data = self.backup_archive(fmt=fmt)
            with atomic_path(out, private=True) as tmp:  # ratings and the session's identity
                tmp.write_bytes(data)
            return [out]
        out.mkdir(parents=True, exist_ok=True)
        files = [self.export(out / f"{part}.{fmt}", what=part) for part in EXPORT_PARTS]
        identity = {"session_id": self.session_identity(), "kind": "toolkit ratings backup"}
        write_text_atomic(out / IDENTITY_FILE, json.dumps(identity, indent=2) + "\n", private=True)
        return [*files, out / IDENTITY_FILE]

    def backup_archive(self, *, fmt: str = "parquet") -> bytes:
        """:meth:`backup` as the bytes of one ``.zip`` archive (what the organiser's page
        offers for download): every part, drafts included, read in one go."""
        if fmt not in ("parquet", "csv"):
            raise InputError(self._name, "a backup is parquet or csv", field="fmt", value=fmt)
        buffer = io.BytesIO()
        with tempfile.TemporaryDirectory(prefix="toolkit-backup-") as tmp:
            files = self.backup(tmp, fmt=fmt)
            with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
                for path in files:
                    archive.write(path, path.name)
        return buffer.getvalue()

    def session_identity(self) -> str | None:
        """The identity of the rating session this store holds, as its backups carry it:
        the one a restore into a store without a session adopted, else one derived from
        the session's organiser token (a one-way hash: it reveals no token); None when the
        store holds no session and adopted none."""
        with self._connect() as con:
            return _identity(con)

    def restore(self, folder: str | Path, *, other_session: bool = False) -> dict[str, int]:
        """Import a :meth:`backup`: each part's file that is in ``folder`` (Parquet, else
        CSV) or in a ``.zip`` archive of them, all parts in one transaction (all or
        nothing), merged by unique ids: what the store already holds stays, an event it
        lacks is added in the store's order of submission
        (:mod:`toolkit.ratings.store.merge`: an older rating never counts over a newer
        one), a draft replaces only an older one.

        A backup carries its session's identity (``session.json``): a backup of another
        session is refused, unless ``other_session``; then its ratings are kept as that
        session's data (exported, never counted here), its skips likewise (kept with their
        reasons, never shown here) and its drafts and labels are left out: nothing of this
        session is replaced. A store that holds no session yet
        adopts the backup's identity. A backup from before identities restores as this
        session's; one from before skips were backed up (no ``skips`` file) restores as
        it did.

        Returns:
            Part -> how many rows it added or brought up to date.

        Raises:
            InputError: a folder or archive without any part; a backup of another session
                (without ``other_session``); an archive that is not a zip or a member past
                the reading limits (:mod:`toolkit.io.archive`); a FIFO or a device; what
                :meth:`import_events` refuses. Errors name the user's own file.
        """
        parts, identity = _read_backup(folder)
        backup_id = identity.get("session_id") if identity else None
        prepared = [
            (part, self._blob_plan(blob, shown, fmt, part))
            for part, (blob, shown, fmt) in parts.items()
            if not (other_session and part in ("labels", "drafts"))
        ]
        added: dict[str, int] = {}
        with self._write() as con:
            held = _identity(con)
            origin = self._origin(str(folder), held, backup_id, other_session)
            if held is None and backup_id is not None and not other_session:
                con.execute(
                    "INSERT INTO store_meta (key, value) VALUES ('session_id', ?)", (backup_id,)
                )
            for part, plan in prepared:
                before = con.total_changes
                self._run_plan(con, plan, origin)
                added[part] = con.total_changes - before
        return added

    def _origin(
        self, name: str, held: str | None, backup_id: str | None, other_session: bool
    ) -> str:
        """The origin the backup's own events are recorded with ("" for this session's),
        or a refusal of a backup of another session."""
        if other_session:
            if backup_id is None:
                raise InputError(name, "carries no session identity (written by an older "
                                 "toolkit): it cannot be imported as another session's data",
                                 field="--import-other-session")  # fmt: skip
            if backup_id == held:
                raise InputError(name, "is a backup of this store's own session: restore it "
                                 "without --import-other-session", field="session_id",
                                 value=backup_id)  # fmt: skip
            return backup_id
        if held is not None and backup_id is not None and backup_id != held:
            raise InputError(
                name, f"a backup of another rating session (this store holds session "
                f"{held}): restore it into that session's store, or add "
                "--import-other-session to keep its ratings as that session's data (nothing "
                "of this session is replaced; they do not count here)",
                field="session_id", value=backup_id,
            )  # fmt: skip
        return ""


#: The member of a backup that says which session it is of.
IDENTITY_FILE = "session.json"


def _identity(con: sqlite3.Connection) -> str | None:
    row = con.execute("SELECT value FROM store_meta WHERE key = 'session_id'").fetchone()
    if row is not None:
        return str(row[0])
    row = con.execute("SELECT organiser_token FROM session WHERE id = 1").fetchone()
    if row is None:
        return None
    digest = hashlib.sha256(b"toolkit rating session\x00" + str(row[0]).encode()).hexdigest()
    return digest[:32]


def _read_backup(
    folder: str | Path,
) -> tuple[dict[str, tuple[bytes, str, str]], dict[str, Any] | None]:
    """(part -> (bytes, the name errors give it, format), the backup's identity or None)
    of a backup folder or ``.zip`` archive; a FIFO or a device is refused before it is
    opened, and every error names the user's own file (``backup.zip:ratings.csv``)."""
    name = str(folder)
    refuse_special(name)
    wanted = [(part, fmt) for part in EXPORT_PARTS for fmt in ("parquet", "csv")]
    found: dict[str, tuple[bytes, str, str]] = {}
    identity_blob: bytes | None = None
    if Path(name).is_dir():
        for part, fmt in wanted:
            path = Path(name) / f"{part}.{fmt}"
            if part not in found and os.path.lexists(path):
                refuse_special(path)
                blob = read_bytes(path)
                check_rows(blob, str(path))
                found[part] = (blob, str(path), fmt)
        if os.path.lexists(Path(name) / IDENTITY_FILE):
            refuse_special(Path(name) / IDENTITY_FILE)
            identity_blob = read_bytes(Path(name) / IDENTITY_FILE)
        identity_name = str(Path(name) / IDENTITY_FILE)
    else:
        members = read_zip_members(name, {f"{p}.{f}" for p, f in wanted} | {IDENTITY_FILE})
        for part, fmt in wanted:
            member = f"{part}.{fmt}"
            if part not in found and member in members:
                found[part] = (members[member], f"{name}:{member}", fmt)
        identity_blob = members.get(IDENTITY_FILE)
        identity_name = f"{name}:{IDENTITY_FILE}"
    if not found:
        raise InputError(
            name, "holds no backup of a ratings store", field="files",
            value=[f"{p}.parquet" for p in EXPORT_PARTS],
        )  # fmt: skip
    identity = None
    if identity_blob is not None:
        identity = parse_json(identity_blob, identity_name)
        sid = identity.get("session_id") if isinstance(identity, dict) else None
        if not isinstance(identity, dict) or not (sid is None or (isinstance(sid, str) and sid)):
            raise InputError(identity_name, "not a backup's session identity",
                             field="session_id", value=sid)  # fmt: skip
    return found, identity
