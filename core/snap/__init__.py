"""SNAP: automatic assembly of bodies and systems from mate connectors (OpenPLX Physics3D)."""
