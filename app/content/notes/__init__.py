"""Reading notes: finding files, front matter, the outline, recognisers, parse."""
