"""Practice mode: self-quizzing on any selection, outside the schedule."""
