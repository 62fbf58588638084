"""What a watcher compares to see that a file changed, without reading it.

A file's stamp is its size, modification and change times (nanoseconds) and inode. The
modification time alone misses a rewrite in place with as many bytes within the clock's
resolution (1 s on some file systems, 2 s on FAT, a jiffy on ext4), or one whose time
was put back (``touch -r``, an archive unpacked, ``rsync --times``): the change time
moves with any write and cannot be set back, and a file renamed in over the old one (an
atomic write) is a new inode. Used by ``toolkit quality --watch`` and by the memo of
``toolkit view --watch``.
"""

from __future__ import annotations

import os

#: A file's stamp: (size, mtime_ns, ctime_ns, inode).
FileStamp = tuple[int, int, int, int]


def file_stamp(st: os.stat_result) -> FileStamp:
    """The stamp of a file from its ``stat`` (see the module's docstring)."""
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
