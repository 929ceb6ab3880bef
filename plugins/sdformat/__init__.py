"""SDFormat reader and writer."""
