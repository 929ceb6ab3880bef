"""Mesh file loaders (STL, OBJ, PLY, COLLADA, glTF) returning numpy vertex/face arrays."""
