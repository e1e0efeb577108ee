"""Tests for simcore.cards (the card codec)."""

import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from simcore.cards import (
    N_CARDS,
    RANKS,
    SUITS,
    card_from_str,
    card_to_str,
    check_distinct,
    format_cards,
    parse_cards,
    rank_name,
    rank_of,
    suit_of,
)

AS, KD, C7, TS, TD = 51, 45, 20, 35, 33


# --- parsing: accepted forms -------------------------------------------------

@pytest.mark.parametrize(
    "text, expected",
    [
        ("As Kd 7c", [AS, KD, C7]),
        ("AsKd7c", [AS, KD, C7]),
        ("as,KD", [AS, KD]),
        ("aS;kD-7C", [AS, KD, C7]),
        ("  As ,  Kd ;\t7c\n", [AS, KD, C7]),
        ("As, Kd; 7c - Ts", [AS, KD, C7, TS]),
        ("10s", [TS]),
        ("Ts", [TS]),
        ("ts", [TS]),
        ("10s10d", [TS, TD]),
        ("A♠K♠7♦", [AS, 47, 21]),
        ("10♦", [TD]),
        ("A♤ K♡ 7♢ 2♧", [AS, 46, 21, 0]),
        ("A♠️K♦️", [AS, KD]),  # emoji variation selector U+FE0F after the symbol
        ("2c", [0]),
    ],
)
def test_parse_text_forms(text, expected):
    cards = parse_cards(text)
    assert cards.dtype == np.int8 and cards.ndim == 1
    assert cards.tolist() == expected


def test_parse_white_suits_match_black():
    assert parse_cards("A♤A♡A♢A♧").tolist() == parse_cards("A♠A♥A♦A♣").tolist()


@pytest.mark.parametrize(
    "seq", [[51, 45], (51, 45), np.array([51, 45]), np.array([51, 45], dtype=np.uint8)]
)
def test_parse_ints(seq):
    cards = parse_cards(seq)
    assert cards.dtype == np.int8 and cards.tolist() == [AS, KD]


def test_parse_sequence_of_strings():
    assert parse_cards(["As", "Kd"]).tolist() == [AS, KD]


@pytest.mark.parametrize("empty", ["", "   ", " , ;-", []])
def test_parse_allow_empty(empty):
    cards = parse_cards(empty, allow_empty=True)
    assert cards.dtype == np.int8 and cards.shape == (0,)


# --- parsing: errors -----------------------------------------------------------

@pytest.mark.parametrize(
    "text, token, pos, card_no",
    [
        ("As Xs", "Xs", 4, 2),
        ("1s", "1s", 1, 1),
        ("As 1s", "1s", 4, 2),
        ("Kd 11s", "11", 4, 2),
        ("As Kx", "Kx", 4, 2),
        ("AsKdZ", "Z", 5, 3),
        ("As K", "K", 4, 2),
        ("10", "10", 1, 1),
        ("10x", "10x", 1, 1),
        ("Asx Kd", "x", 3, 2),
        ("A♠ 1♠", "1♠", 4, 2),
    ],
)
def test_parse_invalid_token(text, token, pos, card_no):
    msg = f"invalid card {token!r} at position {pos} in {text!r} (card #{card_no})"
    with pytest.raises(ValueError, match=re.escape(msg)):
        parse_cards(text)


@pytest.mark.parametrize("empty", ["", "  ", ",;-", []])
def test_parse_empty_raises(empty):
    with pytest.raises(ValueError, match="^no cards given"):
        parse_cards(empty)


@pytest.mark.parametrize(
    "text, dup",
    [("As Kd As", "As"), ("as AS", "As"), ("10h Th", "Th"), ("A♠ A♤", "As"), ([5, 5], "3d")],
)
def test_parse_duplicate(text, dup):
    with pytest.raises(ValueError, match=f"duplicate card {dup} in "):
        parse_cards(text)


def test_parse_duplicate_message_names_input():
    with pytest.raises(ValueError, match=re.escape("duplicate card As in 'As Kd As'")):
        parse_cards("As Kd As")


@pytest.mark.parametrize("seq, bad, idx", [([51, 52], 52, 1), ([-1], -1, 0), (np.array([0, 99]), 99, 1)])
def test_parse_int_out_of_range(seq, bad, idx):
    with pytest.raises(ValueError, match=f"invalid card value {bad} at index {idx}"):
        parse_cards(seq)


def test_parse_bad_types():
    with pytest.raises(TypeError):
        parse_cards(3.5)
    with pytest.raises(TypeError):
        parse_cards([1.5, 2])
    with pytest.raises(TypeError):
        parse_cards(np.array([1.0, 2.0]))
    with pytest.raises(ValueError, match="1-D"):
        parse_cards(np.array([[1, 2]]))


# --- check_distinct --------------------------------------------------------------

def test_check_distinct():
    check_distinct([0, 1, 2, 51])
    check_distinct(np.array([-1, -1, 5]))  # unknown slots are not duplicates
    with pytest.raises(ValueError, match=re.escape("duplicate card Kd in hero hand + board")):
        check_distinct(np.array([AS, KD, 3, KD]), "hero hand + board")
    with pytest.raises(ValueError, match="duplicate card As in cards"):
        check_distinct(np.array([[AS, 0], [1, AS]]))


# --- formatting --------------------------------------------------------------------

def test_format_basic():
    assert format_cards([AS, KD, C7]) == "As Kd 7c"
    assert format_cards(np.array([AS, KD, C7], dtype=np.int8), sep="") == "AsKd7c"
    assert format_cards([AS, KD, C7], symbols=True) == "A♠ K♦ 7♣"
    assert format_cards([34], symbols=True) == "T♥"
    assert format_cards([]) == ""
    assert format_cards(AS) == "As"


def test_format_unknown_and_2d():
    assert format_cards([AS, -1]) == "As ??"
    rows = np.array([[AS, KD], [0, -1]], dtype=np.int8)
    assert format_cards(rows) == ["As Kd", "2c ??"]
    assert format_cards(rows, symbols=True, sep=",") == ["A♠,K♦", "2♣,??"]


def test_format_errors():
    with pytest.raises(ValueError, match="invalid card value 52"):
        format_cards([0, 52])
    with pytest.raises(ValueError, match="1-D or 2-D"):
        format_cards(np.zeros((2, 2, 2), dtype=np.int8))


# --- single cards, ranks, suits ------------------------------------------------------

def test_single_card_helpers():
    assert card_from_str("As") == AS and card_from_str("10♦") == TD
    assert card_to_str(AS) == "As" and card_to_str(np.int8(0)) == "2c"
    assert card_to_str(AS, symbols=True) == "A♠" and card_to_str(-1) == "??"
    with pytest.raises(ValueError, match="exactly one card"):
        card_from_str("As Kd")
    with pytest.raises(ValueError, match="'Zz'"):
        card_from_str("Zz")
    with pytest.raises(ValueError, match="invalid card value 52"):
        card_to_str(52)


def test_rank_suit_of():
    assert rank_of(AS) == 12 and suit_of(AS) == 3
    assert rank_of(np.int8(C7)) == 5 and suit_of(C7) == 0
    cards = parse_cards("As Kd 7c 2h")
    assert rank_of(cards).tolist() == [12, 11, 5, 0]
    assert suit_of(cards).tolist() == [3, 1, 0, 2]
    assert rank_of([0, 51]).tolist() == [0, 12]


def test_rank_name():
    singular = [rank_name(r) for r in range(13)]
    plural = [rank_name(r, plural=True) for r in range(13)]
    assert singular == ["two", "three", "four", "five", "six", "seven", "eight",
                        "nine", "ten", "jack", "queen", "king", "ace"]
    assert plural == ["twos", "threes", "fours", "fives", "sixes", "sevens", "eights",
                      "nines", "tens", "jacks", "queens", "kings", "aces"]
    with pytest.raises(ValueError, match="invalid rank 13"):
        rank_name(13)


# --- round trips ------------------------------------------------------------------------

@pytest.mark.parametrize("card", range(N_CARDS))
def test_round_trip_each_card(card):
    text = card_to_str(card)
    assert text == RANKS[card // 4] + SUITS[card % 4]
    assert card_from_str(text) == card
    assert card_from_str(card_to_str(card, symbols=True)) == card
    assert card_from_str(text.lower()) == card


def test_all_52_distinct_strings():
    deck = format_cards(np.arange(N_CARDS), sep="")
    assert parse_cards(deck).tolist() == list(range(N_CARDS))


card_sets = st.lists(st.integers(0, N_CARDS - 1), unique=True, min_size=1, max_size=N_CARDS)


@given(cards=card_sets, symbols=st.booleans(), sep=st.sampled_from(["", " ", ",", ", ", ";", "-", " - "]))
def test_round_trip_random_sets(cards, symbols, sep):
    text = format_cards(cards, symbols=symbols, sep=sep)
    assert parse_cards(text).tolist() == cards
    assert parse_cards(np.array(cards)).tolist() == cards


@given(cards=card_sets, data=st.data())
def test_round_trip_mixed_spelling(cards, data):
    """Random case, 10 vs T and letter vs symbol per card still parse back."""
    parts = []
    for c in cards:
        rank = RANKS[c // 4]
        if rank == "T" and data.draw(st.booleans()):
            rank = "10"
        suit = data.draw(st.sampled_from([SUITS[c % 4], "♣♦♥♠"[c % 4], "♧♢♡♤"[c % 4]]))
        token = rank + suit
        parts.append(token.upper() if data.draw(st.booleans()) else token.lower())
    assert parse_cards(" ".join(parts)).tolist() == cards
