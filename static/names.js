// The names the server gives ratings, flags, queues and modes (app/web/templating.py), read from
// the page's #qbank-names JSON so that each list exists once.
export const NAMES = JSON.parse(document.getElementById("qbank-names").textContent);

// The keys that rate a revealed card ("1" to "4") and that flag it with Ctrl ("1" to "7").
export const RATING_KEYS = NAMES.ratings.map(String);
export const FLAG_KEYS = NAMES.flags.map((colour, index) => String(index + 1));
