"""Scoring a declared win under each variant (docs/scoring.md): the scorers and what
they share.

A declared win read and checked under its variant's rules (`declared.py`, `drawn.py`),
hand shapes (`shapes.py`), results and payments (`result.py`), fines (`penalty.py`),
parameters (`params.py`), the players' form (`winform.py`), and one scorer per rule book
(`mcr.py`, `guangdong.py`, `tianjin.py`, `fuzhou.py`, each with its parameters' dataclass).

This package sits below the variants: a variant's module (rules/variants/) imports its
scorer, and nothing here imports the registry or looks a variant up by name; a scorer is
given the declared win (its deal row included) and its parameters. Finding the variant
by name is the scorekeeper's (rules/scorekeeper/):
    rules.scorekeeper > rules.variants > rules.scoring > rules.rulebook
"""
