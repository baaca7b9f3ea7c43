"""The sign-in form, with every word it shows in the project's catalogues.

Django's own ``AuthenticationForm`` takes its labels and refusals from Django's catalogues,
which have no Filipino or Assamese: there they would stay in English (issue 15). This form
says the same things through the project's catalogues, so every language of ``LANGUAGES``
has them.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.forms import AuthenticationForm
from django.utils.translation import gettext_lazy as _

#: The form's refusals, by Django's codes, in the project's catalogues.
SIGN_IN_REFUSALS: dict[str, Any] = {
    "invalid_login": _(
        # The field's name written out, not Django's %(username)s (its verbose_name, from
        # Django's catalogues); the English is Django's sentence.
        "Please enter a correct username and password. Note that both fields may be case-sensitive."
    ),
    "inactive": _("This account is inactive."),
}


class SignInForm(AuthenticationForm):
    """``AuthenticationForm`` (username and password, checked by the authentication backends
    and axes' limits) with its labels and refusals translated by the project's catalogues.

    Input: ``username`` and ``password`` as posted by the sign-in page. Raises nothing of its
    own: a wrong pair or an inactive account is a form error, as in Django.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.error_messages = dict(SIGN_IN_REFUSALS)
        self.fields["username"].label = _("Username")
        self.fields["password"].label = _("Password")
