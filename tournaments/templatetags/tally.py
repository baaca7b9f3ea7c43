"""Template filters for exact scores: a fraction shown as people read it, in the active
language's digits (:mod:`ops.l10n`)."""

from fractions import Fraction

from django import template

from ops import l10n

register = template.Library()


@register.filter
def score(value: object) -> str:
    """A score as shown: whole numbers as they are, others to two decimals (``35/3`` →
    ``11.67``; ``১১.৬৭`` in Bengali); nothing for None. The exact value is in :func:`exact`."""
    if value is None:
        return ""
    if isinstance(value, (int, Fraction)) and not isinstance(value, bool):
        return l10n.score(value)
    return str(value)


@register.filter
def exact(value: object) -> str:
    """A score exactly, as a fraction where it is one (``35/3``)."""
    if value is None:
        return ""
    if isinstance(value, (int, Fraction)) and not isinstance(value, bool):
        return l10n.fraction(value)
    return str(value)
