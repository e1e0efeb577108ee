"""Results files written whole or not at all.

Every table, record and chart an experiment writes goes through these: each is
made in memory, then written beside its target and renamed over it
(:func:`simcore.engine.checkpoint.write_atomic`). A run stopped mid-write (Ctrl-C,
a kill, a full disk) leaves the previous complete file, never half of one, so
the rows a resumable study has already measured are never lost.
"""
from __future__ import annotations

# pvsim solve writes its log and chart through the same functions
from simcore.engine.checkpoint import save_figure, write_json, write_text


def write_csv(df, path) -> None:
    """Write a DataFrame as CSV without its index, whole or not at all."""
    write_text(path, df.to_csv(index=False))


__all__ = ["write_text", "write_json", "write_csv", "save_figure"]
