"""Form fields that read what a phone in any of our languages types (issue 15, "Local forms")."""

from __future__ import annotations

from typing import Any

from django import forms

from ops import l10n


class DigitsField(forms.CharField):
    """A text field whose digits of any script are read as ASCII (``"০.২৫"`` → ``"0.25"``):
    a phone's keyboard may write the language's digits; the value is stored in one form
    (:func:`ops.l10n.ascii_digits`). Blank stays blank."""

    def to_python(self, value: Any) -> str:
        return l10n.ascii_digits(super().to_python(value) or "")
