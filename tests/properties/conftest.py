"""Hypothesis settings for the property suites: reproducible, no example database on disk.

`derandomize` makes every run draw the same examples, so two runs of `make test` agree;
HYPOTHESIS_PROFILE=thorough draws ten times as many, with fresh randomness, to hunt.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

COMMON = {"deadline": None, "database": None, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("vitrina", max_examples=150, derandomize=True, **COMMON)
settings.register_profile("thorough", max_examples=1500, **COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "vitrina"))
