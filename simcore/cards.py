"""Card codec: parse and format playing cards as small integers.

A card is the integer ``4 * rank + suit`` where ``rank`` runs 0..12 for
``2 3 4 5 6 7 8 9 T J Q K A`` and ``suit`` runs 0..3 for clubs, diamonds,
hearts, spades.  So ``2c`` is 0 and ``As`` is 51.  Arrays of cards use dtype
``int8``; a negative value means "unknown / empty slot".
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Mapping

import numpy as np

__all__ = [
    "RANKS",
    "SUITS",
    "SUIT_SYMBOLS",
    "SUIT_NAMES",
    "RANK_NAMES",
    "N_CARDS",
    "parse_cards",
    "format_cards",
    "check_distinct",
    "card_from_str",
    "card_to_str",
    "rank_of",
    "suit_of",
    "rank_name",
]

RANKS = "23456789TJQKA"
SUITS = "cdhs"
SUIT_SYMBOLS = "♣♦♥♠"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
RANK_NAMES = (
    "two", "three", "four", "five", "six", "seven", "eight",
    "nine", "ten", "jack", "queen", "king", "ace",
)
N_CARDS = 52

_RANK_LOOKUP = {c: r for r, c in enumerate(RANKS)}
_RANK_LOOKUP.update({c.lower(): r for c, r in list(_RANK_LOOKUP.items())})
_SUIT_LOOKUP = {c: s for s, c in enumerate(SUITS)}
_SUIT_LOOKUP.update({c.upper(): s for s, c in enumerate(SUITS)})
_SUIT_LOOKUP.update({c: s for s, c in enumerate(SUIT_SYMBOLS)})
_SUIT_LOOKUP.update({c: s for s, c in enumerate("♧♢♡♤")})  # white suits
_VARIATION_SELECTORS = "\ufe0e\ufe0f"  # may follow a suit symbol (e.g. "♠️")
_SEPARATORS = ",;-\u2013\u2014"  # plus any whitespace


def _is_sep(ch: str) -> bool:
    return ch.isspace() or ch in _SEPARATORS


def card_to_str(card: int, symbols: bool = False) -> str:
    """Format one card integer as two characters, e.g. ``51 -> "As"``.

    Parameters
    ----------
    card : int
        Card in 0..51; a negative value gives ``"??"`` (unknown card).
    symbols : bool, optional
        Use suit symbols (``"A♠"``) instead of letters (``"As"``).

    Returns
    -------
    str

    Raises
    ------
    ValueError
        If ``card`` is 52 or more.
    """
    c = operator.index(card)
    if c < 0:
        return "??"
    if c >= N_CARDS:
        raise ValueError(f"invalid card value {c}; expected 0..{N_CARDS - 1}")
    return RANKS[c >> 2] + (SUIT_SYMBOLS if symbols else SUITS)[c & 3]


def _bad_token_error(text: str, start: int, index: int) -> ValueError:
    """Build the error for an unparsable card starting at ``text[start]``."""
    end, limit = start, start + (3 if text.startswith("10", start) else 2)
    while end < min(limit, len(text)) and not _is_sep(text[end]):
        end += 1
    while end < len(text) and text[end] in _VARIATION_SELECTORS:
        end += 1
    token = text[start:end]
    return ValueError(
        f"invalid card {token!r} at position {start + 1} in {text!r} (card #{index + 1})"
    )


def _parse_text(text: str) -> list[int]:
    cards: list[int] = []
    i, n = 0, len(text)
    while i < n:
        if _is_sep(text[i]):
            i += 1
            continue
        start = i
        if text.startswith("10", i):
            rank, i = 8, i + 2
        else:
            rank, i = _RANK_LOOKUP.get(text[i]), i + 1
        suit = _SUIT_LOOKUP.get(text[i]) if rank is not None and i < n else None
        if suit is None:
            raise _bad_token_error(text, start, len(cards))
        i += 1
        while i < n and text[i] in _VARIATION_SELECTORS:
            i += 1
        cards.append(4 * rank + suit)
    return cards


def _validate_ints(cards) -> np.ndarray:
    """Check a sequence/array of card ints (0..51) and return it as int8."""
    if isinstance(cards, np.ndarray):
        if cards.ndim != 1:
            raise ValueError(f"expected a 1-D array of cards, got shape {cards.shape}")
        if cards.size and cards.dtype.kind not in "iu":
            raise TypeError(f"expected an integer array of cards, got dtype {cards.dtype}")
        bad = np.flatnonzero((cards < 0) | (cards >= N_CARDS))
        if bad.size:
            i = int(bad[0])
            raise ValueError(
                f"invalid card value {int(cards[i])} at index {i}; expected 0..{N_CARDS - 1}"
            )
        return cards.astype(np.int8)
    values = []
    for i, c in enumerate(cards):
        # bool is an int to Python, and 1.7 is not a card: neither may pass as one
        if isinstance(c, (bool, np.bool_)) or not isinstance(c, (int, np.integer)):
            raise TypeError(
                f"card #{i + 1} is {c!r} ({type(c).__name__}); cards are ints 0..{N_CARDS - 1} "
                f"or text such as 'As Kd'"
            )
        values.append(int(c))
    for i, v in enumerate(values):
        if not 0 <= v < N_CARDS:
            raise ValueError(
                f"invalid card value {v} at index {i}; expected 0..{N_CARDS - 1}"
            )
    return np.array(values, dtype=np.int8)


def parse_cards(text, *, allow_empty: bool = False) -> np.ndarray:
    """Parse cards written by a person (or already parsed ints) into an int8 array.

    Parameters
    ----------
    text : str or sequence of int or numpy.ndarray
        Cards such as ``"As Kd 7c"``, ``"AsKd7c"``, ``"as,KD"``, ``"10s"``,
        ``"A♠K♠7♦"`` or ``"10♡"``.  Ranks are ``2-9, T/10, J, Q, K, A`` and
        suits ``c d h s`` or ``♣ ♦ ♥ ♠`` / ``♧ ♢ ♡ ♤`` (letters are
        case-insensitive).  Cards may be separated by whitespace, commas,
        semicolons, dashes or nothing.  A sequence of strings is joined with
        spaces; a sequence or 1-D array of ints (each 0..51) is validated.
    allow_empty : bool, optional
        Return an empty array instead of raising when no cards are given.

    Returns
    -------
    numpy.ndarray
        1-D ``int8`` array of card integers, in input order.

    Raises
    ------
    ValueError
        On an unparsable card (the message names the token, its 1-based
        character position and the card number), an int outside 0..51,
        a duplicated card, or no cards (unless ``allow_empty``).
    TypeError
        If ``text`` is neither a string nor a sequence of ints.

    Examples
    --------
    >>> parse_cards("As Kd").tolist()
    [51, 45]
    >>> parse_cards("10♥, 2c").tolist()
    [34, 0]
    """
    if isinstance(text, str):
        cards = np.array(_parse_text(text), dtype=np.int8)
        where = repr(text)
    else:
        if not isinstance(text, Iterable) or isinstance(text, (bytes, bytearray, Mapping)):
            raise TypeError(
                f"expected a string or a sequence of card ints, got {type(text).__name__}"
            )
        if not isinstance(text, np.ndarray):
            text = list(text)
            if text and all(isinstance(t, str) for t in text):
                return parse_cards(" ".join(text), allow_empty=allow_empty)
            if any(isinstance(t, str) for t in text):
                raise TypeError(f"expected all text or all card ints, got a mix: {text!r}")
        cards = _validate_ints(text)
        where = repr(cards.tolist())
    if cards.size == 0 and not allow_empty:
        raise ValueError(f"no cards given in {where}")
    check_distinct(cards, where)
    return cards


def check_distinct(cards, what: str = "cards") -> None:
    """Raise if any card occurs more than once.

    Parameters
    ----------
    cards : array_like of int
        Card integers (any shape; negative "unknown" slots are ignored),
        e.g. a hero hand and board concatenated.
    what : str, optional
        Description of ``cards`` used in the error message.

    Raises
    ------
    ValueError
        Naming the first duplicated card, e.g. ``duplicate card As in board``.
    """
    seen: set[int] = set()
    for c in np.ravel(np.asarray(cards)).tolist():
        if c < 0:
            continue
        if c in seen:
            raise ValueError(f"duplicate card {card_to_str(c)} in {what}")
        seen.add(c)


def format_cards(cards, symbols: bool = False, sep: str = " "):
    """Format card integers as text, e.g. ``[51, 45, 20] -> "As Kd 7c"``.

    Parameters
    ----------
    cards : array_like of int
        A 1-D sequence of cards, or a 2-D array (one hand per row).
        Negative values (unknown / empty slots) are written ``"??"``.
    symbols : bool, optional
        Use suit symbols (``"A♠ K♦ 7♣"``) instead of letters.
    sep : str, optional
        Separator between cards.

    Returns
    -------
    str or list of str
        One string for 1-D input (or a single int), a list of strings
        (one per row) for 2-D input.

    Raises
    ------
    ValueError
        If a value is 52 or more, or the input has more than 2 dimensions.

    Examples
    --------
    >>> format_cards([51, 45, 20])
    'As Kd 7c'
    >>> format_cards([51, 45, 20], symbols=True)
    'A♠ K♦ 7♣'
    >>> format_cards([[51, 50], [0, -1]])
    ['As Ah', '2c ??']
    """
    arr = np.asarray(cards)
    if arr.size and arr.dtype.kind not in "iu":
        raise TypeError(f"expected integer cards, got dtype {arr.dtype}")
    if arr.ndim == 0:
        return card_to_str(int(arr), symbols)
    if arr.ndim == 1:
        return sep.join(card_to_str(c, symbols) for c in arr.astype(np.int64).tolist())
    if arr.ndim == 2:
        return [format_cards(row, symbols, sep) for row in arr]
    raise ValueError(f"expected a 1-D or 2-D array of cards, got shape {arr.shape}")


def card_from_str(text: str) -> int:
    """Parse exactly one card, e.g. ``"As" -> 51``.

    Parameters
    ----------
    text : str
        One card in any form accepted by :func:`parse_cards`.

    Returns
    -------
    int

    Raises
    ------
    ValueError
        If ``text`` is not exactly one valid card.
    """
    cards = parse_cards(text)
    if cards.size != 1:
        raise ValueError(f"expected exactly one card, got {cards.size} in {text!r}")
    return int(cards[0])


def rank_of(cards):
    """Rank (0..12 for 2..A) of a card int or of each card in an array.

    Parameters
    ----------
    cards : int or array_like of int

    Returns
    -------
    int or numpy.ndarray
    """
    if isinstance(cards, (int, np.integer)):
        return int(cards) >> 2
    return np.asarray(cards) >> 2


def suit_of(cards):
    """Suit (0..3 for clubs, diamonds, hearts, spades) of a card int or array.

    Parameters
    ----------
    cards : int or array_like of int

    Returns
    -------
    int or numpy.ndarray
    """
    if isinstance(cards, (int, np.integer)):
        return int(cards) & 3
    return np.asarray(cards) & 3


def rank_name(rank: int, plural: bool = False) -> str:
    """English name of a rank, e.g. ``12 -> "ace"`` or, plural, ``"aces"``.

    Parameters
    ----------
    rank : int
        Rank 0..12 (2..A).
    plural : bool, optional
        Return the plural (``"sixes"``, ``"kings"``).

    Returns
    -------
    str
    """
    r = operator.index(rank)
    if not 0 <= r < len(RANKS):
        raise ValueError(f"invalid rank {r}; expected 0..{len(RANKS) - 1}")
    name = RANK_NAMES[r]
    if plural:
        return name + ("es" if name.endswith("x") else "s")
    return name
