"""Snapframe's Qt editor: a thin view over :mod:`snapframe.core` (arrives with the editor issue)."""
