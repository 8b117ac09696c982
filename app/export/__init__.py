"""Take cards elsewhere: export the bank to other flashcard formats."""
