// The first-visit offer of the browser's own time zone (templates/_zone_offer.html).
function offerZone(form) {
  let zone;
  try {
    zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  } catch {
    return;
  }
  if (!zone || zone === form.dataset.current) return;
  const use = form.querySelector("button[name=use]");
  const text = form.querySelector(".offer");
  // "Use it" sends the browser's zone; "Keep" sends the current one, set on the hidden input.
  use.addEventListener("click", () => {
    form.elements.timezone.value = zone;
  });
  text.textContent = text.dataset.template.replace("{zone}", zone);
  use.hidden = false;
}

const form = document.getElementById("zone-offer");
if (form) offerZone(form);
