"""The name rule (``tonkrules.names``) for Django: a model field, a form field and a serializer
field, so that every page, form, API body and admin page reads a name the one way.

- :class:`NameField` (model): a ``CharField`` whose validation (the admin, ``full_clean``)
  cleans the name by the rule; with ``key_field``, it also keeps that column equal to the
  name's comparison key (``tonkrules.names.name_key``) on every save, so a unique constraint
  over the key column makes two names alike one name in the database too.
- :class:`NameFormField` (forms): cleans by the rule; the error is the rule's sentence,
  translated, naming the name and the character.
- :class:`NameSerializerField` (API): a JSON string passed to the service, which reads it by
  the rule (services own the rule: ``scoring.services.game_start``,
  ``tournaments.services.tournament_create``, ``substitute_set``); the schema says so.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.db import models
from rest_framework import serializers

from scoring.messages import error_message
from tonkrules.errors import PlayerError
from tonkrules.names import MAX_NAME_LENGTH, clean_name, name_key

__all__ = [
    "MAX_NAME_LENGTH",
    "NameField",
    "NameFormField",
    "NameSerializerField",
    "name_validation_error",
]


def name_validation_error(error: PlayerError) -> ValidationError:
    """A form's ``ValidationError`` from the name rule's refusal: its sentence, translated,
    with the rule's detail code (``name_invisible``, ``blank_name``, ``name_too_long``)."""
    return ValidationError(error_message(error), code=error.detail)


def _clean(value: str, max_length: int | None) -> str:
    try:
        return clean_name(value, max_length=max_length or MAX_NAME_LENGTH)
    except PlayerError as exc:
        raise name_validation_error(exc) from exc


class NameFormField(forms.CharField):
    """A form field holding one name, cleaned by ``tonkrules.names.clean_name``.

    Left blank (only spaces), it is ``""`` (and refused as any required field where it is
    required); anything else is the
    normalised name or a ``ValidationError`` naming the name and the refused character.
    ``max_length`` (default :data:`MAX_NAME_LENGTH`) counts characters after normalisation.
    """

    def __init__(self, *, max_length: int | None = MAX_NAME_LENGTH, **kwargs: Any) -> None:
        kwargs.setdefault("strip", False)
        # The length is the rule's, counted after normalisation; the widget's limit allows
        # the spaces the rule removes.
        self.name_max_length = max_length or MAX_NAME_LENGTH
        super().__init__(max_length=None, **kwargs)

    def to_python(self, value: Any) -> str:
        text = super().to_python(value) or ""
        if not text.strip():
            return ""  # blank: "required" where the field is
        return _clean(text, self.name_max_length)

    def widget_attrs(self, widget: forms.Widget) -> dict[str, Any]:
        attrs = super().widget_attrs(widget)
        if not widget.is_hidden:
            attrs.setdefault("maxlength", str(self.name_max_length * 2))
        return attrs


class NameField(models.CharField):  # type: ignore[type-arg]
    """A model's name column: at most ``max_length`` characters (default
    :data:`MAX_NAME_LENGTH`), validated by the name rule (the admin and ``full_clean`` store
    the normalised name or refuse it).

    Args:
        key_field: the name of a column of the same model that holds the name's comparison
            key (``tonkrules.names.name_key``); set on validation and on every save.
    """

    def __init__(self, *args: Any, key_field: str | None = None, **kwargs: Any) -> None:
        kwargs.setdefault("max_length", MAX_NAME_LENGTH)
        self.key_field = key_field
        super().__init__(*args, **kwargs)

    def deconstruct(self) -> Any:
        name, _path, args, kwargs = super().deconstruct()
        if self.key_field is not None:
            kwargs["key_field"] = self.key_field
        return name, "scoring.names.NameField", args, kwargs

    def clean(self, value: Any, model_instance: models.Model | None) -> Any:
        text = str(value or "")
        cleaned = "" if self.blank and not text.strip() else _clean(text, self.max_length)
        if model_instance is not None and self.key_field is not None:
            setattr(model_instance, self.key_field, name_key(cleaned))
        return super().clean(cleaned, model_instance)

    def pre_save(self, model_instance: models.Model, add: bool) -> Any:
        value = super().pre_save(model_instance, add)
        if self.key_field is not None:
            setattr(model_instance, self.key_field, name_key(value or ""))
        return value

    def formfield(self, **kwargs: Any) -> Any:  # type: ignore[override]
        return super().formfield(**{"form_class": NameFormField, **kwargs})


class NameSerializerField(serializers.CharField):
    """A name in an API body: a string taken as sent (no trimming here) for the service to
    read by the name rule, which refuses it with the rule's error (the games' API: 400
    ``bad_player``, ``name_invisible``/``blank_name``/``name_too_long``; the tournaments':
    400 ``bad_name`` with the rule's sentence). The schema documents the rule
    (``scoring.schema.name_schema``: ``x-name-rule``, the characters the rule accepts), and a
    test finds every request field of the API marked so."""

    def __init__(self, *, max_length: int = MAX_NAME_LENGTH, **kwargs: Any) -> None:
        super().__init__(allow_blank=True, trim_whitespace=False, **kwargs)
        self.name_max_length = max_length

    def to_internal_value(self, data: Any) -> str:
        """The string as sent; a number or any other JSON value is not a name (DRF's
        ``CharField`` would take ``0`` as ``"0"``)."""
        if not isinstance(data, str):
            self.fail("invalid")
        return str(super().to_internal_value(data))
