"""Compiling parsed notes: Markdown to HTML with KaTeX, and every other form from its tokens."""
