"""Snapframe core: the document model, poses, frame graphs, diagnostics, commands and events.

This package is pure (stdlib, numpy, lxml).  It never imports Qt, VTK or pyvista; the
editor and the command line are both clients of the same API.
"""
