"""Transformations as interpreters: jvp (ad), partial evaluation, transpose, batching."""
