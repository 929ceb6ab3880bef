"""Frame graphs (attached_to and relative_to) and pose resolution."""
