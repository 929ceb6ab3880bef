"""URDF reader, used as a custom model parser for //include."""
