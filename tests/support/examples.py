"""How many examples the property tests try: a quarter by default, all with the thorough profile.

Every property runs in every run; the profile only sets how many random cases each one tries.
The README's command uses the `suite` profile (loaded in tests/conftest.py); CI's second pass,
and anyone chasing a bug, add `--hypothesis-profile=thorough` for the counts the tests were
written with (Hypothesis's own default of 100 for a plain `@given`).
"""

from hypothesis import HealthCheck, settings

# Examples per plain `@given` in each profile; explicit counts scale by the same ratio.
PROFILES = {"suite": 25, "thorough": 100}
# A property below this many examples checks too little to be worth its set-up.
FLOOR = 5

# No property fails on how long it took: the suite runs beside browsers and servers on two cores,
# where a second's stall in making an example or running it says nothing about the code.
for name, count in PROFILES.items():
    settings.register_profile(
        name, max_examples=count, deadline=None, suppress_health_check=[HealthCheck.too_slow]
    )


def load(profile: str | None) -> None:
    """Load `profile`, or the `suite` profile when none is named."""
    settings.load_profile(profile or "suite")


def examples(thorough: int) -> int:
    """The examples to try for a property written to try `thorough`, in the loaded profile.

    Call it at import time (in `@settings(...)`): the profile is loaded before tests are
    collected, from tests/conftest.py or from `--hypothesis-profile`.
    """
    ratio = settings.default.max_examples / PROFILES["thorough"]
    return max(min(thorough, FLOOR), round(thorough * ratio))
