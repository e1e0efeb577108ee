"""Strategies for every decision of every variant, by name (see registry)."""
from .registry import (
    default_policy, lineup, parse_spec, policies, register, resolve, spec_label, traits, unregister,
)

# Importing the modules registers their policies.
from . import rollout  # noqa: E402,F401
from . import table  # noqa: E402,F401  (table:FILE)
from . import solved  # noqa: E402,F401  (solved: the shipped tables)
from . import estonian, slovak, tapiola, sviten, russian  # noqa: E402,F401

__all__ = ["register", "resolve", "policies", "default_policy", "parse_spec", "lineup", "spec_label",
           "unregister", "traits"]
