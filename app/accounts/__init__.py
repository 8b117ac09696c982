"""Accounts and learners: members, sessions, invites, tokens, sign-in throttling, the team page."""
