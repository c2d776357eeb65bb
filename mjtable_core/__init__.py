"""The bottom layer of mjtable: what every other layer shares and nothing of ours is
imported by it — the clock, the config schema and its loading, the signal catalogue
and the table's geometry. See docs/design.md, Layers."""
