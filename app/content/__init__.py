"""Notes to bank: source (find, hash) → parse (front matter, outline, recognisers) → compile
(each card once into its HTML, plain text, key points and Anki form) → sync and store."""
