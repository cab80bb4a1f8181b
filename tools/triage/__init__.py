"""Triage of compiled-side failures: the compiler bisector's culprit and a minified repro (README.md)."""
