"""Results files written whole or not at all.

Every table, record and chart an experiment writes goes through these: each is
made in memory, then written beside its target and renamed over it
(:func:`simcore.engine.checkpoint.write_atomic`). A run stopped mid-write (Ctrl-C,
a kill, a full disk) leaves the previous complete file, never half of one, so
the rows a resumable study has already measured are never lost.
"""
from __future__ import annotations

import json

from simcore.engine.checkpoint import save_figure, write_atomic  # save_figure: pvsim solve's chart uses it too


def write_text(path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path``, whole or not at all."""
    write_atomic(path, [text.encode("utf-8")])


def write_json(path, obj, indent: int = 2) -> None:
    """Write ``obj`` as indented JSON with a final newline, whole or not at all."""
    write_text(path, json.dumps(obj, indent=indent) + "\n")


def write_csv(df, path) -> None:
    """Write a DataFrame as CSV without its index, whole or not at all."""
    write_text(path, df.to_csv(index=False))


__all__ = ["write_text", "write_json", "write_csv", "save_figure"]
