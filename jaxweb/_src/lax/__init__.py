"""lax primitives, grouped by family; each module defines primitives with their rules."""
