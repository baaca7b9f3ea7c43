"""Template filters for exact scores: a fraction shown as people read it."""

from fractions import Fraction

from django import template

register = template.Library()


@register.filter
def score(value: object) -> str:
    """A score as shown: whole numbers as they are, others to two decimals (``35/3`` →
    ``11.67``); nothing for None. The exact value is in :func:`exact`."""
    if value is None:
        return ""
    if isinstance(value, Fraction):
        if value.denominator == 1:
            return str(value.numerator)
        return f"{float(value):.2f}"
    return str(value)


@register.filter
def exact(value: object) -> str:
    """A score exactly, as a fraction where it is one (``35/3``)."""
    return "" if value is None else str(value)
