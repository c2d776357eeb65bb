"""The one exception the rules engine raises."""


class RulesError(ValueError):
    """Bad input to the rules engine.

    The message is one line: where (a path into the input such as
    ``walls[2][5][0]`` or ``overrides.head_offset``) and what is wrong with it.
    """
