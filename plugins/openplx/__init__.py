"""OpenPLX language support: parser, evaluator, writer and the Physics3D mapping."""
