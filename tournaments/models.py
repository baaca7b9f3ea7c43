"""Clubs, their members (user accounts) and their players."""

from collections.abc import Collection
from typing import TYPE_CHECKING, TypeVar

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from ops import language_list
from scoring.games import GameAdapter, adapter_for
from scoring.games import choices as game_choices
from scoring.models import Game
from scoring.names import NameField

if TYPE_CHECKING:
    from django.contrib.auth.models import User

T = TypeVar("T")

#: The most characters of a club's or a tournament's name (after normalisation: the name rule,
#: ``tonkrules.names``); a player's is ``tonkrules.names.MAX_NAME_LENGTH``.
CLUB_NAME_LENGTH = TOURNAMENT_NAME_LENGTH = 120


class Club(models.Model):
    """A card club: it owns players, games and (later) tournaments."""

    name = NameField(_("name"), max_length=CLUB_NAME_LENGTH)
    members: "models.ManyToManyField[User, Membership]" = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        through="Membership",
        related_name="clubs",
        verbose_name=_("members"),
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        ordering = ("name", "id")
        verbose_name = _("club")
        verbose_name_plural = _("clubs")

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    """A user account's place in a club: a member sees and keeps the club's games; a director
    also runs its tournaments."""

    class Role(models.TextChoices):
        MEMBER = "member", _("Member")
        DIRECTOR = "director", _("Director")

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(_("role"), max_length=16, choices=Role.choices, default=Role.MEMBER)

    class Meta:
        verbose_name = _("membership")
        verbose_name_plural = _("memberships")
        constraints = (
            models.UniqueConstraint(fields=("club", "user"), name="tournaments_membership_once"),
        )

    def __str__(self) -> str:
        return f"{self.user} in {self.club} ({self.role})"


class Player(models.Model):
    """A person who plays at the club's tables; may have a user account of their own."""

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="players")
    name = NameField(_("name"), key_field="name_key")
    #: The name's comparison key (``tonkrules.names.name_key``), kept by ``name``'s field:
    #: one club player per key.
    name_key = models.TextField(_("name key"), editable=False, default="")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="players",
        verbose_name=_("user account"),
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        ordering = ("club", "name", "id")
        verbose_name = _("player")
        verbose_name_plural = _("players")
        constraints = (
            models.UniqueConstraint(
                fields=("club", "name_key"),
                name="tournaments_player_name_key_once",
                violation_error_message=_(
                    "The club already has a player of this name (letter case, accents and "
                    "spaces aside)."
                ),
            ),
        )

    def __str__(self) -> str:
        return self.name

    def validate_constraints(self, exclude: Collection[str] | None = None) -> None:
        """As Django's, with ``name_key`` checked whenever ``name`` is (the admin's form
        leaves the key out, being not editable; ``name``'s field keeps it), and with the
        player's club even where a form shows it read-only (the admin's change form): one
        club player per name key."""
        if exclude and "name" not in exclude:
            exclude = set(exclude) - {"name_key", "club"}
        super().validate_constraints(exclude=exclude)


# --- tournaments ------------------------------------------------------------------------------


class Tournament(models.Model):
    """A club's event: one game, a number of rounds, players reseated every round."""

    class Method(models.TextChoices):
        BALANCED = "balanced", _("Balanced: as few repeat meetings as possible")
        SWISS = "swiss", _("Swiss: tables by standing, still avoiding repeats")
        PLAN = "plan", _("Plan: the whole schedule computed up front")

    class Missed(models.TextChoices):
        AVERAGE = "average", _("The round's average score")
        ZERO = "zero", _("Zero")
        WORST = "worst", _("The round's worst score")

    class Basis(models.TextChoices):
        TOTAL = "total", _("Total score")
        PLACEMENT = "placement", _("Placement at each table")

    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="tournaments")
    name = NameField(_("name"), max_length=TOURNAMENT_NAME_LENGTH)
    #: The game's name; the games are the registry's (``scoring.games``).
    kind = models.CharField(_("game"), max_length=16, choices=game_choices)
    options = models.JSONField(_("house rules"), default=dict, blank=True)
    stake = models.CharField(_("stake"), max_length=32, blank=True)
    currency = models.CharField(_("currency"), max_length=3, blank=True)
    round_count = models.PositiveSmallIntegerField(_("rounds"))
    sizes = models.JSONField(_("table sizes"), default=list)
    prefer = models.PositiveSmallIntegerField(_("preferred table size"))
    method = models.CharField(
        _("seating method"), max_length=16, choices=Method.choices, default=Method.BALANCED
    )
    hands_per_round = models.PositiveSmallIntegerField(_("hands per round"))
    time_zone = models.CharField(_("time zone"), max_length=64, default="UTC")
    starts_at = models.DateTimeField(_("start time"), null=True, blank=True)
    minutes_per_round = models.PositiveSmallIntegerField(
        _("minutes per round"), null=True, blank=True
    )
    missed_round_score = models.CharField(
        _("missed round score"), max_length=16, choices=Missed.choices, default=Missed.AVERAGE
    )
    basis = models.CharField(
        _("standings basis"), max_length=16, choices=Basis.choices, default=Basis.TOTAL
    )
    confirmation = models.CharField(
        _("confirmation"),
        max_length=16,
        choices=Game.Confirmation.choices,
        default=Game.Confirmation.ONE_OTHER,
        help_text=_(
            "Who must confirm a table's hand before it counts in the standings and the seating."
        ),
    )
    seed = models.PositiveIntegerField(_("seating seed"), default=0)
    #: The language of the tournament's public pages, table cards and big screen for a visitor
    #: who chose none (``ops.languages``); blank: none, each visitor's browser decides.
    language = models.CharField(
        _("language"), max_length=8, blank=True, default="", choices=language_list.choices
    )
    plan = models.JSONField(
        _("planned seating"), null=True, blank=True, editable=False
    )  # method "plan": [[[registration ids in seat order], ...] per round]
    # Bumped by every change to a result (a hand entered, corrected or voided; a round closed):
    # the standings cached for an older version are stale.
    results_version = models.PositiveIntegerField(default=0, editable=False)
    rounds_complete = models.PositiveSmallIntegerField(default=0, editable=False)
    # The results version the standings were last computed for: a refresh task finding it equal
    # to results_version has nothing to do (many results, one recomputation).
    standings_version = models.PositiveIntegerField(default=0, editable=False)
    # Since when the standings wait for a refresh (set by the first change after the last
    # refresh, cleared by the refresh): the tick sends the refresh again when it waited too
    # long (ops.background).
    standings_waiting_since = models.DateTimeField(null=True, blank=True, editable=False)
    standings_sent_at = models.DateTimeField(null=True, blank=True, editable=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="tournaments_created",
    )
    idempotency_key = models.CharField(max_length=255, blank=True, default="", editable=False)
    request_fingerprint = models.CharField(
        max_length=64, blank=True, default="", editable=False
    )  # the request the idempotency key was given to (ops.idempotency.fingerprint)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        ordering = ("-created_at", "-id")
        verbose_name = _("tournament")
        verbose_name_plural = _("tournaments")
        constraints = (
            models.UniqueConstraint(
                fields=("created_by", "idempotency_key"),
                condition=~models.Q(idempotency_key=""),
                name="tournaments_tournament_one_per_idempotency_key",
            ),
        )

    def __str__(self) -> str:
        return self.name

    @property
    def adapter(self) -> GameAdapter:
        """The tournament's game's adapter (``scoring.games``)."""
        return adapter_for(self.kind)


class Registration(models.Model):
    """A player entered in a tournament: seated from round ``from_round``; withdrawn players
    keep their results and are never seated again."""

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="registrations"
    )
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="registrations")
    from_round = models.PositiveSmallIntegerField(_("first round"), default=1)
    withdrawn_after = models.PositiveSmallIntegerField(
        _("withdrawn after round"), null=True, blank=True
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        ordering = ("tournament", "id")
        verbose_name = _("registration")
        verbose_name_plural = _("registrations")
        constraints = (
            models.UniqueConstraint(
                fields=("tournament", "player"), name="tournaments_registration_once"
            ),
        )

    def __str__(self) -> str:
        return f"{self.player} in {self.tournament}"

    @property
    def withdrawn(self) -> bool:
        return self.withdrawn_after is not None


class Round(models.Model):
    """Round ``number`` of a tournament. One seating per round: the (tournament, number)
    constraint makes a second request find the first one's round."""

    class State(models.TextChoices):
        PLANNED = "planned", _("Planned")
        SEATED = "seated", _("Seated")
        PUBLISHED = "published", _("Published")
        PLAYING = "playing", _("Playing")
        COMPLETE = "complete", _("Complete")
        FAILED = "failed", _("Seating failed")

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="round_set")
    number = models.PositiveSmallIntegerField(_("round"))
    state = models.CharField(
        _("state"), max_length=16, choices=State.choices, default=State.PLANNED
    )
    based_on_version = models.PositiveIntegerField(default=0, editable=False)
    superseded = models.BooleanField(
        _("seated on superseded standings"), default=False
    )  # a result of an earlier round changed after this round was seated
    deadline = models.DateTimeField(_("deadline"), null=True, blank=True)
    time_called_at = models.DateTimeField(_("time called at"), null=True, blank=True)
    seated_at = models.DateTimeField(_("seated at"), null=True, blank=True)
    published_at = models.DateTimeField(_("published at"), null=True, blank=True)
    completed_at = models.DateTimeField(_("completed at"), null=True, blank=True)
    # The seating as background work (ops.background): asked (by a request, a regenerate or a
    # retry), its task last sent (the tick sends it again when it waited too long), how many
    # times a worker started it, and why it failed (state "failed"): the refusal's code, its
    # English sentence (a msgid) and the values it names, rendered at the edge in the reader's
    # language.
    seat_asked_at = models.DateTimeField(_("seating asked at"), null=True, blank=True)
    seat_sent_at = models.DateTimeField(null=True, blank=True, editable=False)
    seat_attempts = models.PositiveSmallIntegerField(default=0, editable=False)
    failure = models.JSONField(_("why the seating failed"), null=True, blank=True)
    # Seating the round again (``services.round_regenerate``) keeps its substitutes whose
    # absent player is seated again: [{"registration": id, "substitute": name}], applied to the
    # new seats by the seating task, then emptied.
    kept_substitutes = models.JSONField(default=list, blank=True, editable=False)
    # A director confirmed, with a reason (kept in the audit), seating this round although some
    # of its players sit at another of the club's tables at that time
    # (``services.overlap``): the seating task does not refuse them.
    elsewhere_confirmed = models.BooleanField(default=False, editable=False)

    class Meta:
        ordering = ("tournament", "number")
        verbose_name = _("round")
        verbose_name_plural = _("rounds")
        constraints = (
            models.UniqueConstraint(fields=("tournament", "number"), name="tournaments_round_once"),
        )

    def __str__(self) -> str:
        return f"{self.tournament} round {self.number}"


class Table(models.Model):
    """One table of a round, playing one scoring game."""

    class State(models.TextChoices):
        SEATED = "seated", _("Seated")
        PLAYING = "playing", _("Playing")
        REPORTED = "reported", _("Reported")
        NOT_PLAYED = "not_played", _("Not played")

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="tables")
    number = models.PositiveSmallIntegerField(_("table"))
    game = models.OneToOneField(
        "scoring.Game", on_delete=models.PROTECT, related_name="tournament_table"
    )
    state = models.CharField(_("state"), max_length=16, choices=State.choices, default=State.SEATED)

    class Meta:
        ordering = ("round", "number")
        verbose_name = _("table")
        verbose_name_plural = _("tables")
        constraints = (
            models.UniqueConstraint(fields=("round", "number"), name="tournaments_table_once"),
        )

    def __str__(self) -> str:
        return f"{self.round} table {self.number}"


class TableSeat(models.Model):
    """A registered player's seat at a round's table; a substitute may play it for them (the
    hands are then the substitute's, and the registered player misses the round)."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="seats")
    position = models.PositiveSmallIntegerField(_("seat"))
    registration = models.ForeignKey(Registration, on_delete=models.PROTECT, related_name="seats")
    substitute = NameField(_("substitute"), blank=True)

    class Meta:
        ordering = ("table", "position")
        verbose_name = _("seat")
        verbose_name_plural = _("seats")
        constraints = (
            models.UniqueConstraint(fields=("table", "position"), name="tournaments_seat_once"),
            models.UniqueConstraint(
                fields=("round", "registration"), name="tournaments_seated_once_a_round"
            ),
        )

    def __str__(self) -> str:
        return f"{self.table} seat {self.position}"


class SitOut(models.Model):
    """A registered, active player not seated in a round (the tables could not take them)."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="sit_outs")
    registration = models.ForeignKey(
        Registration, on_delete=models.CASCADE, related_name="sit_outs"
    )

    class Meta:
        verbose_name = _("sit-out")
        verbose_name_plural = _("sit-outs")
        constraints = (
            models.UniqueConstraint(
                fields=("round", "registration"), name="tournaments_sits_out_once"
            ),
        )

    def __str__(self) -> str:
        return f"{self.registration} sits out {self.round}"


class SeatResult(models.Model):
    """One seat's aggregate over the current hands of a tournament table's game: the rows the
    standings read (``tournaments.standings.SeatRecord``, in the same field order), so that a
    recomputation reads one narrow row per seat instead of aggregating every score line.

    Derived data, never edited by hand: ``services.game_changed`` rewrites a game's rows from
    its current score lines whenever its hands change, in the transaction that bumps the
    tournament's results version. A seat without current hands has no row. ``player`` is the
    seat's club player (``None`` for a guest or substitute); ``points`` the sum of its lines
    (Rook and Bluke points, Tonk stake units), ``max_points`` and ``min_points`` its best and
    worst single hand, ``hands`` the number of lines, and the last three the number of lines
    with that flag set.
    """

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="seat_results"
    )
    round_number = models.PositiveSmallIntegerField(_("round"))
    game = models.ForeignKey(
        "scoring.Game", on_delete=models.CASCADE, related_name="+", db_index=False
    )  # indexed first in the (game, seat) constraint
    seat = models.ForeignKey("scoring.Seat", on_delete=models.CASCADE, related_name="+")
    player = models.ForeignKey(
        Player, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    points = models.IntegerField(_("points or stake units"))
    max_points = models.IntegerField(_("most points in a hand"))
    min_points = models.IntegerField(_("fewest points in a hand"))
    hands = models.PositiveIntegerField(_("hands"))
    went_out = models.PositiveIntegerField(_("hands gone out"))
    bids_made = models.PositiveIntegerField(_("bids made"))
    won = models.PositiveIntegerField(_("hands won"))

    class Meta:
        verbose_name = _("seat result")
        verbose_name_plural = _("seat results")
        constraints = (
            models.UniqueConstraint(fields=("game", "seat"), name="tournaments_seat_result_once"),
        )

    def __str__(self) -> str:
        return f"round {self.round_number} game {self.game_id} seat {self.seat_id}"


class AuditEntry(models.Model):
    """One change a tournament's director or the service made to its rounds or registrations
    (publish, close, regenerate, substitute, registration changes, standings-affecting
    settings): who, when, what and why. Changes to a table's hands are the game's own trail
    (``scoring.Hand`` revisions and ``scoring.HandEvent``); the tournament's audit shows both.
    """

    class Action(models.TextChoices):
        CREATE = "create", _("Created the tournament")
        REGISTER = "register", _("Registered a player")
        WITHDRAW = "withdraw", _("Withdrew a player")
        SEAT = "seat", _("Seated a round")
        REGENERATE = "regenerate", _("Seated a round again")
        PUBLISH = "publish", _("Published a round")
        CALL_TIME = "call_time", _("Called time")
        CLOSE = "close", _("Closed a round")
        COMPLETE = "complete", _("Round complete")
        SUBSTITUTE = "substitute", _("Put in a substitute")
        DROP_SUBSTITUTE = "drop_substitute", _("Dropped a substitute")
        ROTATE = "rotate", _("Changed a table's links")

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="audit")
    action = models.CharField(_("action"), max_length=16, choices=Action.choices)
    round_number = models.PositiveSmallIntegerField(_("round"), null=True, blank=True)
    table_number = models.PositiveSmallIntegerField(_("table"), null=True, blank=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("user"),
    )
    reason = models.CharField(_("reason"), max_length=500, blank=True, default="")
    details = models.JSONField(_("details"), default=dict, blank=True)
    created_at = models.DateTimeField(_("at"), auto_now_add=True)

    class Meta:
        ordering = ("tournament", "created_at", "id")
        verbose_name = _("audit entry")
        verbose_name_plural = _("audit entries")

    def __str__(self) -> str:
        return f"{self.tournament}: {self.action}"
