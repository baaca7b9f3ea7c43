"""Form fields that read what a phone in any of our languages types (issue 15, "Local forms")."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.exceptions import ValidationError

from ops import l10n


class DigitsField(forms.CharField):
    """A text field whose digits of any script are read as ASCII (``"০.২৫"`` → ``"0.25"``):
    a phone's keyboard may write the language's digits; the value is stored in one form
    (:func:`ops.l10n.ascii_digits`). Blank stays blank."""

    def to_python(self, value: Any) -> str:
        return l10n.ascii_digits(super().to_python(value) or "")


#: Django's refusals whose numbers are all counts (``%(limit_value)d``, ``%(show_value)d``: a
#: text's length), with nothing typed in the sentence.
COUNTS_ONLY = frozenset({"max_length", "min_length"})


class LocalNumbersForm:
    """A form whose refusals write their numbers in the language's digits: Django's own
    messages fill ``%(limit_value)s`` with ASCII digits ("Ensure this value is less than or
    equal to 11."); here every whole number among an error's ``params`` is shown as the active
    language writes it (``১১`` in Bengali and Assamese) when the message is. Mixed into every
    form of the project, before ``forms.Form`` (a mixin, not a form: the sweeps over the
    project's forms see only real ones)."""

    def full_clean(self) -> None:
        """Clean as Django does; then each error's whole numbers in the language's digits."""
        super().full_clean()  # type: ignore[misc]  # a mixin: forms.Form comes after it
        for errors in (getattr(self, "_errors", None) or {}).values():
            for error in errors.data:
                if not isinstance(error, ValidationError) or not isinstance(error.params, dict):
                    continue
                if error.code in COUNTS_ONLY:
                    # "%(limit_value)d" takes no text: the sentence is made now, its numbers
                    # (counts, nothing typed) then written in the language's digits.
                    error.message = l10n.digits(str(error.message % error.params))
                    error.params = None
                else:
                    error.params = {name: _local(value) for name, value in error.params.items()}


def _local(value: object) -> object:
    """A whole number as a :class:`~ops.templatetags.local_forms.Numeral`: still an ``int``
    for ``%d`` and for choosing a plural form, its text (``%s``) in the language's digits."""
    from ops.templatetags.local_forms import Numeral

    if isinstance(value, int) and not isinstance(value, bool | Numeral):
        return Numeral(value)
    return value
