"""Interview mode: interviews on a date, readiness and a plan for them, mock interviews."""
