"""pvsim core: cards, hand evaluators and the simulation engine."""
from importlib.metadata import PackageNotFoundError, version as _version

from .cards import (
    N_CARDS, RANKS, SUITS, card_from_str, card_to_str, check_distinct,
    format_cards, parse_cards, rank_of, suit_of,
)
from .evaluate import (
    CATEGORY_NAMES, describe_hand, evaluate_choices, evaluate_hand, evaluate_hands,
    evaluate_low_a6, evaluate_omaha, group_choices, hand_category, low_category,
)

try:
    __version__ = _version("pvsim")
except PackageNotFoundError:  # running from a source tree without installing
    __version__ = "0.0.0+unknown"

from .api import analyze, compare, simulate  # noqa: E402
from .exploit import exploit  # noqa: E402
from .solve import solve  # noqa: E402  (simcore.solve the function; the module is sys.modules["simcore.solve"])
from .variants import all_variants, get_variant, register_variant, unregister_variant  # noqa: E402

__all__ = [
    # cards
    "N_CARDS", "RANKS", "SUITS", "parse_cards", "format_cards", "card_from_str", "card_to_str",
    "check_distinct", "rank_of", "suit_of",
    # evaluation
    "CATEGORY_NAMES", "evaluate_hands", "evaluate_hand", "hand_category", "describe_hand",
    "evaluate_omaha", "evaluate_low_a6", "low_category", "group_choices", "evaluate_choices",
    # runs and variants
    "simulate", "compare", "analyze", "exploit", "solve", "get_variant", "all_variants", "register_variant",
    "unregister_variant", "__version__",
]
