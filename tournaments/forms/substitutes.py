"""Substitutes: who plays a seated player's seat in a round."""

from __future__ import annotations

from typing import Any, cast

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from ops import collation, l10n
from ops.l10n_fields import LocalNumbersForm
from scoring.names import NameFormField
from tournaments.models import (
    Registration,
    Round,
    TableSeat,
)


class SubstituteForm(LocalNumbersForm, forms.Form):
    """A substitute plays a seated player's seat in a round: which seat, and who plays it.

    Args:
        round: the round.
    """

    registration = forms.TypedChoiceField(label=_("Seated player"), coerce=int)
    substitute = NameFormField(
        label=_("Substitute's name"),
        help_text=_(
            "Their hands are recorded under this name; the seated player misses the round."
        ),
        widget=forms.TextInput(attrs={"autocomplete": "off", "autocapitalize": "words"}),
    )

    def __init__(self, *args: Any, round: Round, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.round = round
        seats = collation.sorted_by_name(
            TableSeat.objects.filter(round=round).select_related(
                "registration__player", "table", "round__tournament"
            ),
            name=lambda seat: seat.registration.player.name,
            then=lambda seat: seat.pk,
            language=collation.tournament_language(round.tournament),
        )
        self.seats = {seat.registration_id: seat for seat in seats}
        cast(forms.ChoiceField, self.fields["registration"]).choices = [
            (
                seat.registration_id,
                l10n.sentence(
                    gettext("%(name)s, table %(table)d"),
                    {"name": seat.registration.player.name, "table": seat.table.number},
                )
                + (f" ({seat.substitute})" if seat.substitute else ""),
            )
            for seat in self.seats.values()
        ]

    def registration_object(self) -> Registration:
        return self.seats[self.cleaned_data["registration"]].registration
