"""Where a command writes, checked before any work: every command that writes a file (or fills a
folder) asks here first, so that a missing or unwritable place is one line and exit 2 at once,
not a traceback after the whole video was tracked. No cv2 here (``kaisa score`` and ``kaisa
journal`` import it)."""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterable
from pathlib import Path

from referee.errors import InputError


def _folder_of(path: Path) -> Path:
    return path.parent if str(path.parent) else Path(".")


def _probe(folder: Path, what: str, shown: Path) -> None:
    """Write (and remove) a file in ``folder``: the only test that holds for every case
    (permissions, a read-only file system, root, ACLs)."""
    probe = folder / f".kaisa-write-check-{os.getpid()}"
    try:
        fd = os.open(probe, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except FileExistsError:  # (left by a run of this process id that was killed: fine)
        return
    except OSError as err:
        why = err.strerror or type(err).__name__
        raise InputError(f"cannot write {what} here: the folder {folder} is not writable "
                         f"({why})", str(shown)) from None
    os.close(fd)
    with contextlib.suppress(OSError):
        probe.unlink()


def check_output_file(path: Path | None, what: str) -> None:
    """``path`` can be written (atomically: a file beside it, then renamed): its folder exists
    and is writable, and the path is not a folder. None: nothing asked, nothing checked."""
    if path is None:
        return
    folder = _folder_of(path)
    if path.is_dir():
        raise InputError(f"is a folder; expected a file name for {what}", str(path))
    if not folder.is_dir():
        missing = "does not exist" if not folder.exists() else "is not a folder"
        raise InputError(f"cannot write {what} here: the folder {folder} {missing}", str(path))
    _probe(folder, what, path)


def check_output_folder(path: Path, what: str, *, create: bool = True) -> None:
    """``path`` is a folder files can be written in; ``create``: a missing one is made, when
    its parent folder exists (a typo several levels deep is refused, not made)."""
    if path.exists() and not path.is_dir():
        raise InputError(f"is a file; expected a folder for {what}", str(path))
    if not path.exists():
        parent = _folder_of(path)
        if not create or not parent.is_dir():
            where = path if not create else parent
            raise InputError(f"cannot write {what} here: the folder {where} does not exist",
                             str(path))
        try:
            path.mkdir()
        except FileExistsError:
            pass
        except OSError as err:
            code = errno.errorcode.get(err.errno or 0, "")
            raise InputError(f"cannot make the folder for {what} ({err.strerror or code})",
                             str(path)) from None
    _probe(path, what, path)


def check_outputs(paths: Iterable[tuple[Path | None, str]]) -> None:
    """Each (path, what) of a command's output files, in order (the first bad one is said)."""
    for path, what in paths:
        check_output_file(path, what)


def write_text_atomically(path: Path, text: str) -> None:
    """The whole file or none: written beside ``path`` and renamed over it, so a crash mid-write
    leaves the previous file, never half a file; a failure (a full disk, a folder gone
    read-only) removes what was begun and is one InputError (no ``.tmp`` left behind)."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as err:
        with contextlib.suppress(OSError):
            tmp.unlink()
        why = err.strerror or type(err).__name__
        raise InputError(f"cannot write here ({why})", str(path)) from None
