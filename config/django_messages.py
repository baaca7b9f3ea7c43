"""Django's own sentences that the project's pages show, copied into the project's catalogues.

A form field's refusal ("This field is required.") is Django's sentence, translated by
Django's catalogues, and Django has none for Filipino or Assamese: on those pages it would
stay in English (issue 15). Marked here with the same English, ``makemessages`` puts each into
``locale/<code>/LC_MESSAGES/django.po``; Django reads the project's ``LOCALE_PATHS`` before
its own catalogues, so the project's translation is the one shown, in every language.

Nothing imports this module to run it: it exists to be extracted. :data:`FIELD_REFUSALS` are
the refusals of the field types the project's forms use (``CharField``, ``IntegerField``,
``ChoiceField`` and their typed and model variants, ``BooleanField``, ``DecimalField``, the
time zone and date-time fields); :data:`API_REFUSALS` are DRF's. ``tests/i18n/
test_pseudo_locale.py`` checks each is in the catalogue and that a refused form shows no
English.
"""

from __future__ import annotations

# The engine's no-op markers (named as ``makemessages`` expects): plain strings and
# ``Plural`` tuples, for the tests to read.
from tonkrules.messages import Template, gettext_noop, ngettext_lazy

#: The sentences, exactly as Django writes them (``django/forms/fields.py``,
#: ``django/forms/models.py``, ``django/core/validators.py``).
FIELD_REFUSALS: tuple[Template, ...] = (
    gettext_noop("This field is required."),
    gettext_noop("Enter a whole number."),
    gettext_noop("Enter a number."),
    gettext_noop("Enter a valid value."),
    gettext_noop("Enter a valid date."),
    gettext_noop("Enter a valid time."),
    gettext_noop("Enter a valid date/time."),
    gettext_noop("Enter a list of values."),
    gettext_noop("Null characters are not allowed."),
    gettext_noop("Select a valid choice. %(value)s is not one of the available choices."),
    gettext_noop("Select a valid choice. That choice is not one of the available choices."),
    gettext_noop("“%(pk)s” is not a valid value."),
    gettext_noop("Ensure this value is less than or equal to %(limit_value)s."),
    gettext_noop("Ensure this value is greater than or equal to %(limit_value)s."),
    ngettext_lazy(
        "Ensure this value has at least %(limit_value)d character (it has %(show_value)d).",
        "Ensure this value has at least %(limit_value)d characters (it has %(show_value)d).",
        "limit_value",
    ),
    ngettext_lazy(
        "Ensure this value has at most %(limit_value)d character (it has %(show_value)d).",
        "Ensure this value has at most %(limit_value)d characters (it has %(show_value)d).",
        "limit_value",
    ),
    ngettext_lazy(
        "Ensure that there are no more than %(max)s digit in total.",
        "Ensure that there are no more than %(max)s digits in total.",
        "max",
    ),
    ngettext_lazy(
        "Ensure that there are no more than %(max)s decimal place.",
        "Ensure that there are no more than %(max)s decimal places.",
        "max",
    ),
)

#: The units of ``filesizeformat`` (the 413 page says the limit), as Django writes them
#: (``django/template/defaultfilters.py``).
FILE_SIZES: tuple[Template, ...] = (
    ngettext_lazy("%(size)d byte", "%(size)d bytes", "size"),
    gettext_noop("%s KB"),
    gettext_noop("%s MB"),
    gettext_noop("%s GB"),
)

#: Django REST framework's own ``detail`` sentences that a caller of the API can meet
#: (``rest_framework/exceptions.py``, ``authentication.py``, ``pagination.py``), exactly as
#: DRF writes them: DRF has no catalogue for Bengali, Tamil, Filipino or Assamese. Its
#: serializer fields' refusals (under ``fields`` of a ``bad_format`` error) stay DRF's.
API_REFUSALS: tuple[Template, ...] = (
    gettext_noop("A server error occurred."),
    gettext_noop("Invalid input."),
    gettext_noop("Malformed request."),
    gettext_noop("Incorrect authentication credentials."),
    gettext_noop("Authentication credentials were not provided."),
    gettext_noop("You do not have permission to perform this action."),
    gettext_noop("Not found."),
    gettext_noop('Method "{method}" not allowed.'),
    gettext_noop("Could not satisfy the request Accept header."),
    gettext_noop('Unsupported media type "{media_type}" in request.'),
    gettext_noop("Request was throttled."),
    gettext_noop("Invalid token header. No credentials provided."),
    gettext_noop("Invalid token header. Token string should not contain spaces."),
    gettext_noop("Invalid token header. Token string should not contain invalid characters."),
    gettext_noop("Invalid token."),
    gettext_noop("User inactive or deleted."),
    gettext_noop("Invalid page."),
)
