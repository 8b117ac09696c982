"""A learner's statistics: history, forecast, retention, states, streaks."""
