"""A review log simulated from known FSRS-6 parameters, for fitting tests."""

import random
from datetime import UTC, datetime, timedelta

from fsrs import Card, Rating, Scheduler

from app.scheduling.fitting import Review

START = datetime(2025, 1, 6, 9, 0, tzinfo=UTC)

# A learner who remembers much better than the FSRS defaults assume: longer first stabilities,
# faster growth and a flatter forgetting curve.
TRUE_PARAMETERS = (
    1.2,
    3.5,
    9.0,
    25.0,
    6.0,
    0.6,
    1.5,
    0.01,
    2.2,
    0.12,
    1.1,
    1.6,
    0.08,
    0.25,
    1.8,
    0.5,
    2.2,
    0.5,
    0.1,
    0.06,
    0.35,
)


def simulated_log(
    cards: int = 200,
    days: int = 240,
    new_per_day: int = 5,
    parameters: tuple[float, ...] = TRUE_PARAMETERS,
    seed: int = 7,
) -> list[Review]:
    """Study `new_per_day` new cards a day and every due card, recalling with the true odds."""
    chance = random.Random(seed)
    truth = Scheduler(parameters=parameters, enable_fuzzing=False)
    log: list[Review] = []
    deck: list[tuple[str, Card]] = []
    for day in range(days):
        morning = START + timedelta(days=day)
        if len(deck) < cards:
            deck += [(f"c{len(deck) + i}", Card(due=morning)) for i in range(new_per_day)]
        for index, (name, card) in enumerate(deck):
            at = morning + timedelta(seconds=index)
            # Learning steps come within the day: repeat until the card leaves today.
            while card.due <= morning + timedelta(hours=12):
                at = max(at, card.due)
                recall = truth.get_card_retrievability(card, at) if card.last_review else 0.0
                if card.stability is None:
                    rating = chance.choices([1, 2, 3, 4], [0.25, 0.1, 0.5, 0.15])[0]
                elif chance.random() < recall:
                    rating = chance.choices([2, 3, 4], [0.15, 0.7, 0.15])[0]
                else:
                    rating = 1
                card, _ = truth.review_card(card, Rating(rating), at)
                log.append(Review(name, rating, day, at))
                deck[index] = (name, card)
                at += timedelta(minutes=1)
    return log
