"""A whole store as files and back: every part into a folder or one zip archive, and a
restore of them in one transaction."""

from __future__ import annotations

import io
import tempfile
import zipfile
from pathlib import Path

from toolkit.errors import InputError
from toolkit.io.atomic import atomic_path
from toolkit.io.edge import limits
from toolkit.ratings.store.exports import EXPORT_PARTS, Exports


class Backup(Exports):
    """Back up every part of the store, restore a backup."""

    def backup(self, folder: str | Path, *, fmt: str = "parquet") -> list[Path]:
        """Export every part of the store (:data:`EXPORT_PARTS`) into ``folder`` as
        ``ratings``, ``labels``, ``items`` and ``drafts`` files (each written atomically);
        :meth:`restore` reads them back. A ``folder`` ending in ``.zip`` is one archive of
        those files instead (:meth:`backup_archive`), written atomically.

        Args:
            folder: where the files go (created when missing), or a ``.zip`` file.
            fmt: ``parquet`` or ``csv``.

        Returns:
            The files written, in the order of :data:`EXPORT_PARTS` (the archive alone
            for a ``.zip``).
        """
        if fmt not in ("parquet", "csv"):
            raise InputError(self._name, "a backup is parquet or csv", field="fmt", value=fmt)
        out = Path(folder)
        if out.suffix.lower() == ".zip":
            data = self.backup_archive(fmt=fmt)
            with atomic_path(out) as tmp:
                tmp.write_bytes(data)
            return [out]
        out.mkdir(parents=True, exist_ok=True)
        return [self.export(out / f"{part}.{fmt}", what=part) for part in EXPORT_PARTS]

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

    def restore(self, folder: str | Path) -> dict[str, int]:
        """Import a :meth:`backup`: each part's file that is in ``folder`` (Parquet, else
        CSV) or in a ``.zip`` archive of them, all parts in one transaction (all or
        nothing), what the store already holds left as it is (see :meth:`import_events`).

        Returns:
            Part -> how many rows it added or brought up to date.

        Raises:
            InputError: a folder or archive without any part, an archive that is not a
                zip or holds a part larger than the reading limit, or what
                :meth:`import_events` refuses.
        """
        if Path(folder).suffix.lower() == ".zip" and not Path(folder).is_dir():
            with tempfile.TemporaryDirectory(prefix="toolkit-restore-") as tmp:
                self._unpack_backup(Path(folder), Path(tmp))
                return self.restore(tmp)
        base = Path(folder)
        found = []
        for part in EXPORT_PARTS:
            for fmt in ("parquet", "csv"):
                if (base / f"{part}.{fmt}").is_file():
                    found.append((part, base / f"{part}.{fmt}"))
                    break
        if not found:
            raise InputError(
                str(folder), "holds no backup of a ratings store", field="files",
                value=[f"{p}.parquet" for p in EXPORT_PARTS],
            )  # fmt: skip
        prepared = [(part, self._import_plan(path, part)) for part, path in found]
        added: dict[str, int] = {}
        with self._write() as con:
            for part, plan in prepared:
                before = con.total_changes
                for sql, rows in plan:
                    con.executemany(sql, rows)
                added[part] = con.total_changes - before
        return added

    @staticmethod
    def _unpack_backup(archive: Path, into: Path) -> None:
        """The parts' files of a backup archive, written into ``into``; any other member
        is ignored (never extracted by its own name), and a part larger than the reading
        limit is refused before it is inflated."""
        wanted = {f"{part}.{fmt}" for part in EXPORT_PARTS for fmt in ("parquet", "csv")}
        limit = limits().max_file_bytes
        try:
            with zipfile.ZipFile(archive) as zipped:
                for info in zipped.infolist():
                    if info.filename not in wanted:
                        continue
                    if info.file_size > limit:
                        raise InputError(
                            str(archive), f"a backup part larger than the limit ({limit} bytes)",
                            field=info.filename, value=info.file_size,
                        )  # fmt: skip
                    (into / info.filename).write_bytes(zipped.read(info))
        except (zipfile.BadZipFile, OSError, EOFError) as exc:
            raise InputError(str(archive), f"not a readable zip backup ({exc})") from exc
