"""Resumable runs: the merged statistics and the next block, saved every few seconds.

A run merges its blocks strictly in block order, so its whole state is the
merged statistics of blocks ``0 .. k-1`` and ``k``. :class:`Checkpoint` saves
that pair atomically (a temporary file in the same folder, then
``os.replace``), so a run killed at any moment, even mid-write, leaves the
last complete checkpoint behind. Resuming deals block ``k`` from the same
seeds and merges onto the saved statistics: the final numbers are
bit-identical to those of an uninterrupted run.

The file is a magic line, a JSON header naming the run (kind, variant and
options, players, seed, strategies, block size, deals, situation, pvsim
version), a JSON line with the progress and the SHA-256 of the payload, and
the payload: the statistics, pickled. The header is checked before the
payload is read; a difference is an error naming it, and a truncated or
altered file is an error too. Like any pickle, load only checkpoints you wrote.
"""
from __future__ import annotations

import hashlib
import json
import os
import pickle
import tempfile
import time

MAGIC = b"PVSIM-CHECKPOINT 1\n"
DEFAULT_EVERY = 5.0  # seconds between saves

# Header fields in the order differences are reported, with their names in messages.
FIELD_NAMES = {
    "kind": "run kind", "variant": "variant", "options": "rule options", "players": "players",
    "seed": "seed", "strategies": "strategies", "block_size": "block size", "deals": "deals",
    "pvsim": "pvsim version", "hero_seat": "hero seat", "known": "known cards", "forced": "forced actions",
    "decision": "decision", "round": "round", "precision": "precision", "match": "match chances",
    "min_deals": "min deals", "stop_early": "stopping early",
}


class CheckpointError(ValueError):
    """A checkpoint that cannot be used: another run's, truncated, corrupted, or in the way."""


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


def _show(x) -> str:
    text = json.dumps(x)
    return text if len(text) <= 80 else text[:77] + "..."


def differences(saved: dict, current: dict) -> list[str]:
    """Each header field that differs, as ``"seed: 1 in the checkpoint, 2 here"``."""
    keys = list(FIELD_NAMES) + sorted((set(saved) | set(current)) - set(FIELD_NAMES))
    out = []
    for k in keys:
        if k in saved or k in current:
            a, b = saved.get(k), current.get(k)
            if a != b:
                out.append(f"{FIELD_NAMES.get(k, k)}: {_show(a)} in the checkpoint, {_show(b)} here")
    return out


def read(path) -> dict:
    """A checkpoint file's contents: ``{"header", "next_block", "finished", "deals", "acc"}``.

    Raises :class:`CheckpointError` when the file is missing, not a
    checkpoint, truncated or corrupted.
    """
    path = os.fspath(path)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise CheckpointError(f"no checkpoint at {path!r}") from None
    if not data.startswith(MAGIC):
        raise CheckpointError(f"{path!r} is not a pvsim checkpoint (it does not start with {MAGIC[:-1]!r})")
    try:
        head_end = data.index(b"\n", len(MAGIC))
        state_end = data.index(b"\n", head_end + 1)
        header = json.loads(data[len(MAGIC):head_end])
        state = json.loads(data[head_end + 1:state_end])
    except ValueError:
        raise CheckpointError(f"checkpoint {path!r} is truncated or corrupted (unreadable header)") from None
    payload = data[state_end + 1:]
    if len(payload) != state.get("size") or hashlib.sha256(payload).hexdigest() != state.get("sha256"):
        raise CheckpointError(f"checkpoint {path!r} is truncated or corrupted: its statistics are "
                              f"{len(payload):,} bytes, the header promises {state.get('size')!r} with a checksum "
                              "that does not match")
    try:
        acc = pickle.loads(payload)
    except Exception as e:  # noqa: BLE001 - a checksum-valid payload from another pvsim, say
        raise CheckpointError(f"checkpoint {path!r}: its statistics cannot be read ({e})") from None
    return {"header": header, "next_block": int(state["next_block"]), "finished": bool(state["finished"]),
            "deals": int(state["deals"]), "acc": acc}


def write(path, header: dict, acc, next_block: int, deals: int, finished: bool) -> None:
    """Save atomically: a temporary file beside ``path``, flushed, then renamed over it."""
    path = os.fspath(path)
    payload = pickle.dumps(acc, protocol=pickle.HIGHEST_PROTOCOL)
    state = {"next_block": int(next_block), "finished": bool(finished), "deals": int(deals),
             "size": len(payload), "sha256": hashlib.sha256(payload).hexdigest(), "saved": time.time()}
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(MAGIC)
            f.write(json.dumps(header, sort_keys=True).encode() + b"\n")
            f.write(json.dumps(state, sort_keys=True).encode() + b"\n")
            f.write(payload)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


class Checkpoint:
    """A run's checkpoint: where it saves, how often, and the state it resumes from.

    Parameters
    ----------
    header : the run's identity (:func:`run_header`).
    path : where to save (None: do not save).
    resume : a checkpoint to continue from; it must match ``header``. With no
        ``path`` the run keeps saving to it.
    every : seconds between saves.

    Raises :class:`CheckpointError` when ``resume`` does not match or cannot
    be read, and when ``path`` already holds a file that this run would
    overwrite (any file but the one being resumed).
    """

    def __init__(self, header: dict, path=None, resume=None, every: float = DEFAULT_EVERY):
        if not (isinstance(every, (int, float)) and every >= 0):
            raise ValueError(f"the checkpoint interval must be a number of seconds >= 0, got {every!r}")
        self.header = header
        self.every = float(every)
        self.state = None
        if resume is not None:
            saved = read(resume)
            diff = differences(saved["header"], header)
            if diff:
                raise CheckpointError(f"checkpoint {os.fspath(resume)!r} is of another run; " + "; ".join(diff))
            self.state = saved
        self.path = os.fspath(path) if path is not None else (os.fspath(resume) if resume is not None else None)
        if self.path is not None and os.path.exists(self.path) and not (
                resume is not None and os.path.samefile(self.path, resume)):
            raise CheckpointError(self._in_the_way())
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
        write(self.path, self.header, acc, next_block, deals, finished)
        self._last = time.monotonic()
