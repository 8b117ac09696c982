"""qbank: interview-prep flashcards from Markdown Q&A notes."""
