"""Resumable runs: the merged statistics and the next block, saved every few seconds.

A run merges its blocks strictly in block order, so its whole state is the
merged statistics of blocks ``0 .. k-1`` and ``k``. :class:`Checkpoint` saves
that pair atomically (a temporary file in the same folder, then
``os.replace``), so a run killed at any moment, even mid-write, leaves the
last complete checkpoint behind. Resuming deals block ``k`` from the same
seeds and merges onto the saved statistics: the final numbers are
bit-identical to those of an uninterrupted run.

The file is a magic line, the SHA-256 of everything after its own line, a
JSON header naming the run (kind, variant and options, players, seed,
strategies, block size, deals, situation, pvsim version), a JSON line with
the progress (next block, deals, finished) and the payload: the statistics,
pickled. The checksum covers every byte that decides what a resume does, so
an edited, truncated or damaged file is an error naming it; then the header
is compared with the run's, and a difference is an error naming it. Like any
pickle, load only checkpoints you wrote.

A checkpoint is a regular file of at most :data:`MAX_BYTES`; its size is read
before its contents, so a device, a folder or a pipe given as a checkpoint is
an error, never read. A run that saves claims its file with a lock beside it
(``FILE.pvsim-lock``, an ``flock`` that the system drops when the process ends,
even by ``kill -9``), so a second run on the same file is refused at once.
"""
from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import pickle
import secrets
import stat
import time
import weakref

from .checks import chart_format, same_file

MAGIC = b"PVSIM-CHECKPOINT 2\n"
OLD_MAGICS = (b"PVSIM-CHECKPOINT 1\n",)  # formats this pvsim refuses by name
DEFAULT_EVERY = 5.0  # seconds between saves
# Statistics pickle to a few kilobytes (2.5 KB for 9-player Tapiola); anything
# this large is not a checkpoint of ours and is never read into memory.
MAX_BYTES = 256 * 1024 * 1024

# Header fields in the order differences are reported, with their names in messages.
FIELD_NAMES = {
    "kind": "run kind", "variant": "variant", "options": "rule options", "players": "players",
    "seed": "seed", "strategies": "strategies", "block_size": "block size", "deals": "deals",
    "pvsim": "pvsim version", "hero_seat": "hero seat", "known": "known cards", "forced": "forced actions",
    "decision": "decision", "round": "round", "precision": "precision", "match": "match chances",
    "min_deals": "min deals", "stop_early": "stopping early",
}


class CheckpointError(ValueError):
    """A checkpoint that cannot be used: another run's, truncated, corrupted, in use or in the way."""


def _jsonable(x):
    if isinstance(x, dict):
        return [[_jsonable(k), _jsonable(v)] for k, v in sorted(x.items(), key=lambda kv: repr(kv[0]))]
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if hasattr(x, "tolist"):
        return x.tolist()
    if x is None or isinstance(x, (bool, int, float, str)):
        return x
    return repr(x)


def run_header(kind: str, job, n_deals: int, **extra) -> dict:
    """What identifies a run: everything that changes its numbers.

    ``job`` is the run's :class:`~simcore.engine.runner.Job`; ``extra`` adds
    the run kind's own settings (hero seat, precision, decision...).
    """
    from simcore import __version__

    v = job.variant
    strategies = [[",".join(f"{d}={label}" for d, (label, _) in seat.items()) for seat in lineup]
                  for lineup in job.lineups]
    header = {
        "kind": kind, "variant": v.name, "options": _jsonable(dict(v.opts)), "players": job.n_players,
        "seed": int(job.seed), "strategies": strategies, "block_size": int(job.block_size),
        "deals": int(n_deals), "pvsim": __version__, "known": _jsonable(job.known),
        "forced": _jsonable(job.forced),
    }
    header.update({k: _jsonable(v) for k, v in extra.items()})
    return header


# -- messages -------------------------------------------------------------------


def _show(x) -> str:
    text = json.dumps(x)
    return text if len(text) <= 80 else text[:77] + "..."


def _first_difference(a, b) -> tuple[list[int], object, object]:
    """Where two JSON values first differ: (index path, a's part, b's part).

    Lists of the same length are followed into their first differing item;
    anything else (scalars, lists of other lengths) differs as a whole.

    >>> _first_difference([[1, 2], [3, 4]], [[1, 2], [3, 5]])
    ([1, 1], 4, 5)
    """
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                where, xa, yb = _first_difference(x, y)
                return [i, *where], xa, yb
    return [], a, b


def _card_text(cards, at: int = 0, width: int = 20) -> str:
    """Known slots as cards ("As Ks ?? ??"; ?? is a random slot), at most ``width`` of them
    around slot ``at``; what is not a list of cards as JSON."""
    from simcore.cards import card_to_str

    try:
        shown = [card_to_str(c) for c in cards]
    except (TypeError, ValueError):
        return _show(cards)
    if len(shown) <= width:
        return " ".join(shown)
    lo = max(0, min(at - width // 2, len(shown) - width))
    return ("... " if lo else "") + " ".join(shown[lo:lo + width]) + (" ..." if lo + width < len(shown) else "")


def _known_difference(name: str, a, b) -> str:
    """The known cards' first differing slot, as cards; then both lists around it."""
    from simcore.cards import card_to_str

    where, x, y = _first_difference(a, b)

    def card(c):
        try:
            return "random" if c < 0 else card_to_str(c)
        except (TypeError, ValueError):
            return _show(c)

    if len(where) == 1:
        first = f"slot {where[0]} is {card(x)} in the checkpoint, {card(y)} here"
    elif isinstance(a, list) and isinstance(b, list) and len(a) != len(b):
        first = f"{len(a)} slots in the checkpoint, {len(b)} here"
    else:
        return f"{name}: {_show(a)} in the checkpoint, {_show(b)} here"
    at = where[0] if where else 0
    return f"{name}: {first} (in the checkpoint {_card_text(a, at)}, here {_card_text(b, at)})"


# What the levels of a list-valued header field are, for "seat 5 is ..." rather than "[0][5]".
_LEVELS = {"strategies": ("lineup", "seat"), "forced": ("lineup", "item", "item")}


def _difference(key: str, a, b) -> str:
    name = FIELD_NAMES.get(key, key)
    if key == "known":
        return _known_difference(name, a, b)
    where, x, y = _first_difference(a, b)
    levels = _LEVELS.get(key, ())
    nouns = [levels[d] if d < len(levels) else "item" for d in range(len(where) + 1)]
    place = [f"{noun} {i}" for noun, i in zip(nouns, where)]
    if key in ("strategies", "forced") and where and len(a) == len(b) == 1:
        place = place[1:]  # one lineup: the seats are the news
    at = f"{', '.join(place)}: " if place else ""
    if isinstance(x, list) and isinstance(y, list) and len(x) != len(y):
        return f"{name}: {at}{len(x)} {nouns[len(where)]}s in the checkpoint, {len(y)} here"
    return f"{name}: {at}{_show(x)} in the checkpoint, {_show(y)} here"


def differences(saved: dict, current: dict) -> list[str]:
    """Each header field that differs, as ``"seed: 1 in the checkpoint, 2 here"``.

    A list names its first differing item (``"known cards: slot 6 is 4h in the
    checkpoint, 5h here (...)"``), so a long list never hides the difference.
    """
    keys = list(FIELD_NAMES) + sorted((set(saved) | set(current)) - set(FIELD_NAMES))
    out = []
    for k in keys:
        if k in saved or k in current:
            a, b = saved.get(k), current.get(k)
            if a != b:
                out.append(_difference(k, a, b))
    return out


# -- the file -------------------------------------------------------------------


def _kind_of(mode: int) -> str:
    for test, what in ((stat.S_ISDIR, "a folder"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a pipe"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return what
    return "not a regular file"


def check_path(path, what: str = "checkpoint", sized: bool = True) -> str:
    """``path`` as a string, if it can be a checkpoint: not empty, and a regular file where it exists.

    Raises :class:`CheckpointError` naming the path otherwise (a device such as
    /dev/zero, a folder, a pipe, and with ``sized`` a file over :data:`MAX_BYTES`;
    the CLI's other commands' checkpoints have formats and sizes of their own). Nothing is read.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{what} must be a file name (str or path), got {path!r}")
    path = os.fspath(path)
    if not isinstance(path, str):
        raise TypeError(f"{what} must be a file name (str or path), got {path!r}")
    if not path.strip():
        raise CheckpointError(f"{what} file name is empty ({path!r}); give a file name")
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return path
    except OSError as e:
        raise CheckpointError(f"{what} {path!r} cannot be used ({e.strerror or e})") from None
    _check_stat(path, st, what, MAX_BYTES if sized else None)
    return path


def _check_stat(path: str, st: os.stat_result, what: str, max_bytes: int | None = None) -> None:
    if not stat.S_ISREG(st.st_mode):
        raise CheckpointError(f"{what} {path!r} is {_kind_of(st.st_mode)}; a checkpoint is a regular file")
    if max_bytes is not None and st.st_size > max_bytes:
        raise CheckpointError(f"{what} {path!r} is {st.st_size:,} bytes; a pvsim checkpoint is at most "
                              f"{max_bytes:,} bytes, so this is not one")


def read_bytes(path: str, what: str = "checkpoint", max_bytes: int | None = None) -> bytes:
    """The file's bytes, after checking (before reading) that it is a regular file of at most
    ``max_bytes`` (default :data:`MAX_BYTES`).

    Every checkpoint reader goes through it (a run's here, ``pvsim solve``'s in
    :mod:`simcore.solve`), so /dev/zero, a folder or a pipe is a :class:`CheckpointError`
    naming the path, never a read without end.
    """
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise CheckpointError(f"no {what} at {path!r}") from None
    except OSError as e:
        raise CheckpointError(f"{what} {path!r} cannot be read ({e.strerror or e})") from None
    if max_bytes is None:
        max_bytes = MAX_BYTES
    _check_stat(path, st, what, max_bytes)
    try:
        # O_NONBLOCK: should the path have become a pipe since the stat, opening it does not wait.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise CheckpointError(f"{what} {path!r} cannot be read ({e.strerror or e})") from None
    with os.fdopen(fd, "rb") as f:
        _check_stat(path, os.fstat(fd), what, max_bytes)  # the file opened is the file checked
        data = f.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise CheckpointError(f"{what} {path!r} is over {max_bytes:,} bytes; a pvsim {what} is not")
    return data


def read(path) -> dict:
    """A checkpoint file's contents: ``{"header", "next_block", "finished", "deals", "acc"}``.

    Raises :class:`CheckpointError` when the file is missing, not a regular
    file, not a checkpoint, truncated, edited or corrupted.
    """
    path = check_path(path)
    data = read_bytes(path)
    old = next((m for m in OLD_MAGICS if data.startswith(m)), None)
    if old is not None:
        raise CheckpointError(f"checkpoint {path!r} is of an older format ({old[:-1].decode()}), whose progress "
                              f"line has no checksum; this pvsim does not resume it: start the run again")
    body = unframe(data, MAGIC, path)
    try:
        head_end = body.index(b"\n")
        state_end = body.index(b"\n", head_end + 1)
        header = json.loads(body[:head_end])
        state = json.loads(body[head_end + 1:state_end])
        progress = {"next_block": int(state["next_block"]), "finished": bool(state["finished"]),
                    "deals": int(state["deals"])}
    except Exception as e:  # noqa: BLE001 - a checksum-valid file written by another pvsim, say
        raise CheckpointError(f"checkpoint {path!r} cannot be read ({type(e).__name__}: {e})") from None
    try:
        acc = pickle.loads(body[state_end + 1:])
    except Exception as e:  # noqa: BLE001
        raise CheckpointError(f"checkpoint {path!r}: its statistics cannot be read ({type(e).__name__}: {e}); "
                              f"it was written by pvsim {header.get('pvsim')!r}") from None
    return {"header": header, **progress, "acc": acc}


def write(path, header: dict, acc, next_block: int, deals: int, finished: bool) -> None:
    """Save atomically (:func:`write_atomic`): a reader sees the last complete checkpoint."""
    payload = pickle.dumps(acc, protocol=pickle.HIGHEST_PROTOCOL)
    state = {"next_block": int(next_block), "finished": bool(finished), "deals": int(deals), "saved": time.time()}
    body = (json.dumps(header, sort_keys=True).encode() + b"\n" + json.dumps(state, sort_keys=True).encode()
            + b"\n" + payload)
    write_atomic(path, frame(MAGIC, body))


def frame(magic: bytes, body: bytes) -> list[bytes]:
    """A checksummed file's chunks, for :func:`write_atomic`: ``magic`` (the format line, ending
    in a newline), the SHA-256 of ``body`` in hex on a line of its own, then ``body``.

    A run's checkpoints (:func:`write`) and ``pvsim solve``'s (:mod:`simcore.solve`) are both
    framed so; :func:`unframe` checks the frame when one is read back.
    """
    return [magic, hashlib.sha256(body).hexdigest().encode() + b"\n", body]


def unframe(data: bytes, magic: bytes, path, what: str = "checkpoint") -> bytes:
    """The body of a file :func:`frame` made, after checking its format line and checksum.

    Raises :class:`CheckpointError` naming ``path``: a file that does not start with ``magic``
    is not a pvsim ``what``; one whose checksum does not match was cut short, damaged or edited.
    """
    if not data.startswith(magic):
        name = magic.rstrip(b"\n").decode(errors="replace")
        raise CheckpointError(f"{os.fspath(path)!r} is not a pvsim {what} (it does not start with {name!r})")
    checksum, sep, body = data[len(magic):].partition(b"\n")
    if not sep or hashlib.sha256(body).hexdigest().encode() != checksum:
        raise CheckpointError(f"{what} {os.fspath(path)!r} is truncated or corrupted: its checksum does not match "
                              f"its contents ({len(body):,} bytes after the checksum line); it was cut short, "
                              f"damaged or edited")
    return body


def write_atomic(path, chunks) -> None:
    """Write ``chunks`` (bytes) to ``path`` so that a reader sees the old file or the whole new one.

    A temporary file beside the file ``path`` resolves to, flushed to disk, then renamed over it:
    a run killed mid-write leaves the last complete file. A symbolic link stays a link, and the
    file it points to is the one replaced. The new file gets the old one's permissions, or (a new
    file) those ``open`` would give it under the umask. The temporary file is removed if anything fails.
    """
    target = os.path.realpath(os.fspath(path))
    folder, name = os.path.split(target)
    tmp = os.path.join(folder, f".{name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # the umask applies, as to open(path, "wb")
    try:
        with os.fdopen(fd, "wb") as f:
            try:
                os.chmod(tmp, stat.S_IMODE(os.stat(target).st_mode))
            except FileNotFoundError:
                pass
            for chunk in chunks:
                f.write(chunk)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_text(path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` through :func:`write_atomic`: the old file or the whole new one."""
    write_atomic(path, [text.encode("utf-8")])


def write_json(path, obj, indent: int = 2) -> None:
    """Write ``obj`` as indented JSON with a final newline, through :func:`write_atomic`."""
    write_text(path, json.dumps(obj, indent=indent) + "\n")


def save_figure(fig, path, **kwargs) -> None:
    """``fig.savefig(path, **kwargs)`` through :func:`write_atomic`: the old chart or the whole new one.
    The format is the one ``path``'s suffix names (:func:`~simcore.engine.checks.chart_format`). A PNG
    carries no matplotlib version unless ``metadata`` says otherwise: the same figure, the same bytes."""
    import io

    fmt = chart_format(path)
    if fmt == "png":
        kwargs.setdefault("metadata", {"Software": None})
    buf = io.BytesIO()
    fig.savefig(buf, format=fmt, **kwargs)
    write_atomic(path, [buf.getvalue()])


# -- the claim on a checkpoint file ---------------------------------------------


def lock_path(path) -> str:
    """The lock file of checkpoint ``path``: ``FILE.pvsim-lock`` beside the file its name resolves to."""
    return os.path.realpath(os.fspath(path)) + ".pvsim-lock"


class _Lock:
    """An exclusive ``flock`` on ``FILE.pvsim-lock``: the system drops it when the process ends, however.

    The lock file is removed on release; one left by a killed run is not
    locked, and the next run takes it over.
    """

    def __init__(self, path: str):
        self.path = lock_path(path)
        self.pid = os.getpid()
        for _ in range(100):
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
            except FileNotFoundError:
                folder = os.path.dirname(self.path)
                raise CheckpointError(f"checkpoint {path!r}: the folder {folder!r} does not exist") from None
            except OSError as e:
                raise CheckpointError(f"checkpoint {path!r} cannot be written: its lock file {self.path!r} "
                                      f"cannot be created ({e.strerror or e})") from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as e:
                holder = _holder(fd)
                os.close(fd)
                if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                    raise CheckpointError(f"checkpoint {path!r} is in use by another run{holder} (its lock "
                                          f"{self.path!r} is held); wait for that run to end, or choose "
                                          f"another file") from None
                raise CheckpointError(f"checkpoint {path!r}: its lock file {self.path!r} cannot be locked "
                                      f"({e.strerror or e})") from None
            # The lock is ours if the file still has the name: a run that was
            # releasing may have removed it between our open and our flock.
            try:
                same = os.path.samestat(os.fstat(fd), os.stat(self.path))
            except FileNotFoundError:
                same = False
            if same and not _is_lock_file(fd):
                fcntl.flock(fd, fcntl.LOCK_UN)
                os.close(fd)
                raise CheckpointError(f"checkpoint {path!r}: {self.path!r} is in the way of its lock file and "
                                      f"is not a pvsim lock (it holds something else); not touching it")
            if same:
                os.ftruncate(fd, 0)
                os.write(fd, f"{self.pid}\n".encode())
                self.fd = fd
                return
            os.close(fd)
        raise CheckpointError(f"checkpoint {path!r}: its lock file {self.path!r} keeps changing; "
                              f"is another run starting and stopping on it?")

    def release(self) -> None:
        fd, self.fd = getattr(self, "fd", None), None
        if fd is None or os.getpid() != self.pid:  # a forked child does not own the claim
            return
        try:
            if os.path.samestat(os.fstat(fd), os.stat(self.path)):
                os.unlink(self.path)  # still locked: no other run can take the name's file meanwhile
        except OSError:
            pass
        finally:
            os.close(fd)


def _is_lock_file(fd: int) -> bool:
    """Empty (new) or a process id: a pvsim lock file, ours to overwrite and remove."""
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_size > 32:
        return False
    text = os.pread(fd, 33, 0)
    return text.strip() == b"" or text.strip().isdigit()


def _holder(fd: int) -> str:
    try:
        pid = os.pread(fd, 32, 0).decode().strip()
    except (OSError, UnicodeDecodeError):
        return ""
    if not pid.isdigit():
        return ""
    return " in this process" if int(pid) == os.getpid() else f" (process {pid})"


class Checkpoint:
    """A run's checkpoint: where it saves, how often, and the state it resumes from.

    Parameters
    ----------
    header : the run's identity (:func:`run_header`).
    path : where to save (None: do not save).
    resume : a checkpoint to continue from; it must match ``header``. With no
        ``path`` the run keeps saving to it.
    every : seconds between saves.

    A checkpoint that saves claims its file (``FILE.pvsim-lock``) from here until
    :meth:`close` (the run's end), or until the process ends.

    Raises :class:`CheckpointError` when a path is not a regular file, when
    ``resume`` does not match or cannot be read, when another run holds the
    file, and when ``path`` already holds a file that this run would
    overwrite (any file but the one being resumed).
    """

    def __init__(self, header: dict, path=None, resume=None, every: float = DEFAULT_EVERY):
        if not (isinstance(every, (int, float)) and every >= 0):
            raise ValueError(f"the checkpoint interval must be a number of seconds >= 0, got {every!r}")
        self.header = header
        self.every = float(every)
        self.state = None
        self._lock = None
        resume = check_path(resume, "resume") if resume is not None else None
        path = check_path(path) if path is not None else None
        self.path = path if path is not None else resume
        if self.path is not None:
            self._lock = _Lock(self.path)
            weakref.finalize(self, self._lock.release)
        try:
            if resume is not None:
                saved = read(resume)
                diff = differences(saved["header"], header)
                if diff:
                    raise CheckpointError(f"checkpoint {resume!r} is of another run; " + "; ".join(diff))
                self.state = saved
            if self.path is not None and os.path.exists(self.path) and not (
                    resume is not None and same_file(self.path, resume)):
                raise CheckpointError(self._in_the_way())
        except BaseException:
            self.close()
            raise
        self._last = time.monotonic()

    def _in_the_way(self) -> str:
        try:
            saved = read(self.path)
        except CheckpointError as e:
            return f"{e}; not overwriting it (remove it or choose another file)"
        diff = differences(saved["header"], self.header)
        if diff:
            return (f"{self.path!r} holds a checkpoint of another run (" + "; ".join(diff)
                    + "); not overwriting it (remove it or choose another file)")
        return (f"{self.path!r} already holds a checkpoint of this run ({saved['deals']:,} deals); "
                f"continue it with --resume {self.path} (resume=...), or remove it")

    def start(self):
        """``(acc, next_block, finished)`` to start from: the resumed state or a fresh start."""
        if self.state is None:
            return None, 0, False
        return self.state["acc"], self.state["next_block"], self.state["finished"]

    def due(self) -> bool:
        return self.path is not None and time.monotonic() - self._last >= self.every

    def save(self, acc, next_block: int, deals: int, finished: bool = False) -> None:
        if self.path is None:
            return
        try:
            write(self.path, self.header, acc, next_block, deals, finished)
        except OSError as e:  # the folder went, the disk filled: the run stops with what it has
            raise CheckpointError(f"cannot save the checkpoint {self.path!r} ({e.strerror or e}); the run "
                                  "stopped, keeping the deals it had finished") from e
        self._last = time.monotonic()

    def close(self) -> None:
        """Give up the claim on the file (the run has ended); saving after this is still allowed."""
        if self._lock is not None:
            self._lock.release()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
