"""The live document: instance keys, derived data kept up to date after every edit, typed
events for views, selection, and background work.  Pure Python (no Qt)."""
