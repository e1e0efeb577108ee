"""Play several alternatives on the same deals and reduce each block: the engine's entry
point for studies whose statistics ``compare`` and ``analyze`` do not keep.

An *alternative* is a lineup (per seat ``{decision: (label, function)}``) with
forced actions (``{(seat, decision[, round]): action}``). Every block is dealt
once from the run's seed (:func:`~.deal.block_seeds`), played under every
alternative through :func:`~.blocks.play_tables` (so a variant that shares work
between alternatives shares it here too, and every alternative gets fresh seat
streams: the field draws the same numbers under each), and handed with its cards
to ``reduce(cards, outcomes)``, which returns the block's part (running sums,
counts). :func:`~.schedule.map_blocks` merges the parts strictly in block
order, so the result is bit-identical at any number of workers, on threads,
worker processes or Dask.

A run travels to worker processes and Dask as an :class:`AlternativesTask`, a
:class:`~.executors.BlockTask`: the variant and strategies as a description,
``reduce`` by pickle (a module-level function or a small object). A closure or a
strategy defined in ``__main__`` cannot travel; such a run stays on threads when
the executor is left to the default, and names what cannot travel when
processes or Dask are asked for.

>>> from simcore.variants import get_variant
>>> from strategies import lineup
>>> v = get_variant("holdem")
>>> lus = [lineup(v, 2, None, None)] * 2
>>> def wins(cards, outcomes):  # outright wins per alternative and seat
...     return np.stack([o.wins.sum(axis=0) for o in outcomes])
>>> acc, info = map_alternatives(v, 2, lus, 1000, wins, seed=1, block_size=256, threads=1)
>>> acc.shape, bool((acc[0] == acc[1]).all()), info.n_deals   # the same deals, the same play
((2, 2), True, 1000)
"""
from __future__ import annotations

import numpy as np

from .blocks import DEFAULT_BLOCK, Job
from .checks import check_block_size, check_deals, check_flag, check_seed, check_situation
from .executors import BlockTask
from .schedule import map_blocks

__all__ = ["map_alternatives", "AlternativesTask", "merge_parts"]


class AlternativesTask(BlockTask):
    """``run_block(b, n) = reduce(cards, job.play(cards, ...))`` for block ``b``: the block's
    cards with one Outcome per alternative. It travels to worker processes and Dask as a
    :class:`~.executors.BlockTask` does (the job as its description, ``reduce`` pickled),
    and is rebuilt there once per run and process."""

    def __call__(self, b: int, n: int):
        cards, chance, seeds = self.job.deal(b, n)
        return self.reduce(cards, self.job.play(cards, chance, seeds))

    def _as_plain(self) -> BlockTask:
        plain = getattr(self, "_plain", None)
        if plain is None:
            plain = self._plain = BlockTask(self.job, self.reduce)
        return plain

    def payload(self) -> bytes:
        """The pickled description; raises :class:`~.executors.NotShippable` when it cannot travel."""
        return self._as_plain().payload()

    def __reduce__(self):
        # The plain BlockTask travels (a worker rebuilds it once per run and keeps
        # it); the worker wraps it again, so that its blocks reduce with the cards.
        plain = self._as_plain()
        plain.payload()  # NotShippable names what cannot travel
        return _from_plain, (plain,)


def _from_plain(task: BlockTask) -> AlternativesTask:
    """In a worker: the rebuilt BlockTask as an AlternativesTask."""
    out = AlternativesTask(task.job, task.reduce)
    out._plain = task
    return out


def merge_parts(acc, part):
    """Merge one block's part into ``acc`` (block order) and return ``acc``: the default merge.

    Anything with a ``merge`` method (the engine's statistics) merges in place;
    tuples and lists merge item by item; dicts merge key by key (a key new in
    ``part`` is taken as it is); anything else (counts, arrays) adds.

    >>> merge_parts((2, {"a": 1}), (3, {"a": 1, "b": 5}))
    (5, {'a': 2, 'b': 5})
    """
    if hasattr(acc, "merge"):
        acc.merge(part)
        return acc
    if isinstance(acc, dict):
        for k, v in part.items():
            acc[k] = merge_parts(acc[k], v) if k in acc else v
        return acc
    if isinstance(acc, (tuple, list)):
        if len(acc) != len(part):
            raise ValueError(f"merge_parts: {len(acc)} items against {len(part)}")
        return type(acc)(merge_parts(x, y) for x, y in zip(acc, part))
    return acc + part


def _check_forced(forced, n_alternatives: int) -> list:
    if forced is None:
        return [{}] * n_alternatives
    forced = list(forced)
    if len(forced) != n_alternatives:
        raise ValueError(f"forced: one dict of forced actions per alternative ({n_alternatives}), "
                         f"got {len(forced)}")
    for i, f in enumerate(forced):
        if not isinstance(f, dict):
            raise ValueError(f"forced[{i}] must be a dict {{(seat, decision[, round]): action}}, got {f!r}")
    return forced


def map_alternatives(variant, n_players: int, lineups, n_deals: int, reduce, merge=merge_parts, *,
                     seed: int = 0, forced=None, known=None, block_size: int = DEFAULT_BLOCK,
                     record: bool = False, keep_state: bool = False, threads=None, workers=None,
                     executor=None, scheduler=None, done=None, progress=False, label: str = ""):
    """Play every alternative on the same deals; ``reduce(cards, outcomes)`` per block, merged in block order.

    Parameters
    ----------
    variant : a variant object.
    n_players : players at the table.
    lineups : one resolved lineup per alternative (per seat ``{decision: (label, function)}``).
    n_deals : deals to play, in blocks of ``block_size``.
    reduce : ``reduce(cards, outcomes)`` -> the block's part: ``cards`` (n, n_slots) int8
        as dealt, ``outcomes`` one :class:`~.variant.Outcome` per alternative (with
        ``actions`` when ``record``). For processes or Dask it must pickle (a
        module-level function or a small object).
    merge : ``merge(acc, part)`` -> the merged result (default :func:`merge_parts`).
    seed : the run's seed: block ``b`` is dealt from ``block_seeds(seed, b, n_players)``.
    forced : one ``{(seat, decision[, round]): action}`` per alternative, an int action
        for every deal (default: none).
    known : (n_slots,) int8 fixed slots, -1 random (default: every slot random).
    record : outcomes carry every decision's actions (``outcome.actions``).
    keep_state : outcomes carry the game's final state (``outcome.state``, what the
        variant keeps: Russian's placed hands, Sviten's Service).
    threads, workers, executor, scheduler, done, progress, label :
        as :func:`~.schedule.map_blocks` takes them.

    Returns
    -------
    (acc, RunInfo) as :func:`~.schedule.map_blocks` returns them.
    """
    lineups = list(lineups)
    if not lineups:
        raise ValueError("map_alternatives needs at least one lineup (alternative)")
    if not callable(reduce):
        raise ValueError(f"reduce must be a function reduce(cards, outcomes), got {reduce!r}")
    if not callable(merge):
        raise ValueError(f"merge must be a function merge(acc, part), got {merge!r}")
    check_deals(n_deals)
    check_flag(record, "record")
    check_flag(keep_state, "keep_state")
    variant.check_players(n_players)
    for i, lu in enumerate(lineups):
        if len(lu) != n_players:
            raise ValueError(f"lineups[{i}] has {len(lu)} seats for {n_players} players")
    if known is None:
        known = np.full(variant.n_slots(n_players), -1, np.int8)
    else:
        known = check_situation(variant, n_players, known)
    job = Job(variant, n_players, lineups, known, check_seed(seed), check_block_size(block_size),
              _check_forced(forced, len(lineups)), record, keep_state)
    return map_blocks(AlternativesTask(job, reduce), n_deals, job.block_size, merge, threads=threads,
                      workers=workers, executor=executor, scheduler=scheduler, done=done, progress=progress,
                      label=label, seed=job.seed)
