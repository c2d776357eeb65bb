"""The rules engine: deals and scoring per variant."""
