"""Registering players in a tournament: club players picked by checkbox and names typed or
pasted, and the messages saying what a registration did."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from django import forms
from django.db import transaction
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from ops import collation, l10n
from ops.l10n_fields import LocalNumbersForm
from scoring.names import name_validation_error
from tonkrules.errors import PlayerError
from tonkrules.names import clean_name, name_key
from tournaments import services
from tournaments.errors import TournamentError
from tournaments.models import (
    Player,
    Registration,
    Tournament,
)


@dataclass(frozen=True)
class Registered:
    """What a registration request did: the players registered now, and those already in."""

    added: list[Registration]
    already: list[str]


class RegisterForm(LocalNumbersForm, forms.Form):
    """Register players: club players picked by checkbox, and names typed or pasted one a line
    (a club player's name by the name rule, ``tonkrules.names``: letter case, accents typed
    differently and spaces aside, registers that player; any other name adds a new player to
    the club). Between rounds these are late entries.

    Args:
        tournament: the tournament to register them in.
    """

    players = forms.ModelMultipleChoiceField(
        label=_("Club players"),
        queryset=Player.objects.none(),
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )
    names = forms.CharField(
        label=_("Add by name"),
        required=False,
        max_length=20_000,
        help_text=_(
            "One name a line: type a newcomer's name, or paste a whole list. A club player's "
            "name registers that player; any other name adds a new player to the club."
        ),
        widget=forms.Textarea(attrs={"rows": 3, "autocomplete": "off", "autocapitalize": "words"}),
    )

    def __init__(self, *args: Any, tournament: Tournament, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.tournament = tournament
        field = cast("forms.ModelMultipleChoiceField[Player]", self.fields["players"])
        field.queryset = Player.objects.filter(club_id=tournament.club_id).exclude(
            registrations__tournament=tournament
        )
        field.choices = [  # the queryset still checks what is sent
            (player.pk, field.label_from_instance(player))
            for player in collation.sorted_by_name(
                field.queryset,
                name=lambda p: p.name,
                then=lambda p: p.pk,
                language=collation.tournament_language(tournament),
            )
        ]

    def clean_names(self) -> list[str]:
        """The typed names, one a line, each cleaned by the name rule
        (``tonkrules.names.clean_name``); blank lines dropped, and a line naming a name of an
        earlier line (by ``name_key``) dropped too."""
        names: list[str] = []
        seen: set[str] = set()
        problems: list[forms.ValidationError] = []
        for line in (self.cleaned_data.get("names") or "").splitlines():
            if not line.strip():
                continue
            try:
                name = clean_name(line)
            except PlayerError as exc:
                problems.append(name_validation_error(exc))
                continue
            if name_key(name) in seen:
                continue
            seen.add(name_key(name))
            names.append(name)
        if problems:
            raise forms.ValidationError(problems)
        return names

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        if not self.errors and not cleaned.get("players") and not cleaned.get("names"):
            raise forms.ValidationError(gettext("Tick a club player or type a name to register."))
        return cleaned

    @transaction.atomic
    def save(
        self, *, by: Any = None, reason: object = "", confirm_elsewhere: bool = False
    ) -> Registered:
        """Create the players the names are new for, and register everyone (one transaction:
        a refusal other than "already registered" registers nobody and creates nobody); each
        registration is kept in the audit as ``by``'s (the director), with ``reason``;
        ``confirm_elsewhere``: the director confirmed registering players seated at another of
        the club's tables at that time.

        Raises:
            TournamentError: from :func:`tournaments.services.registration_add`;
                ``seated_elsewhere`` naming every player seated elsewhere at that time.
        """
        players: list[Player] = list(self.cleaned_data.get("players") or [])
        chosen = {p.pk for p in players}
        for name in self.cleaned_data.get("names") or []:
            player = services.club_player_for_name(club=self.tournament.club, name=name)
            if player.pk not in chosen:
                chosen.add(player.pk)
                players.append(player)
        registered = set(self.tournament.registrations.values_list("player_id", flat=True))
        if not confirm_elsewhere:  # every player seated elsewhere named at once
            found = services.seated_elsewhere(
                tournament=self.tournament,
                number=services.entry_round(self.tournament),
                rnd=None,
                names=[p.name for p in players if p.pk not in registered],
            )
            if found:
                raise services.elsewhere_conflict(found)
        added: list[Registration] = []
        already: list[str] = []
        for player in players:
            try:
                added.append(
                    services.registration_add(
                        tournament=self.tournament,
                        player=player,
                        by=by,
                        reason=reason,
                        confirm_elsewhere=confirm_elsewhere,
                    )
                )
            except TournamentError as exc:
                if exc.code != "already_registered":
                    raise
                already.append(player.name)
        return Registered(added=added, already=already)


def registered_text(result: Registered) -> list[str]:
    """The messages saying what a registration did."""
    texts = []
    if result.added:
        names = ", ".join(r.player.name for r in result.added)
        count = len(result.added)
        late = [r for r in result.added if r.from_round > 1]
        if late:
            texts.append(
                l10n.sentence(
                    ngettext(
                        "Registered %(names)s, from round %(round)d (a late entry).",
                        "Registered %(count)d players, from round %(round)d (late entries): "
                        "%(names)s.",
                        count,
                    ),
                    {"names": names, "count": count, "round": late[0].from_round},
                )
            )
        else:
            texts.append(
                l10n.sentence(
                    ngettext(
                        "Registered %(names)s.",
                        "Registered %(count)d players: %(names)s.",
                        count,
                    ),
                    {"names": names, "count": count},
                )
            )
    if result.already:
        texts.append(
            gettext("Already registered: %(names)s.") % {"names": ", ".join(result.already)}
        )
    return texts
