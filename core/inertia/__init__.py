"""Mass properties: closed-form primitives, exact mesh integrals, link aggregation."""
