"""What happened at one table: games, their seats, hands as entered, and score lines.

The score lines are the source of truth for every total: ``Game.totals`` is a cache derived
from them (``scoring.services.game_totals_rebuild``).
"""

import json
import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from scoring.games import GameAdapter, adapter_for
from scoring.games import choices as game_choices
from scoring.names import NameField


def new_table_key() -> str:
    """A private, unguessable key for a table's link (``secrets.token_urlsafe``)."""
    return secrets.token_urlsafe(24)


def new_seat_key() -> str:
    """A private, unguessable key for one seat's link (``secrets.token_urlsafe``)."""
    return secrets.token_urlsafe(24)


class Game(models.Model):
    """One sitting of one game by a fixed set of seated players, at one table."""

    class State(models.TextChoices):
        WAITING = "waiting", _("Waiting")  # seated; hands are taken once it opens
        IN_PLAY = "in_play", _("In play")
        FINISHED = "finished", _("Finished")

    class Confirmation(models.TextChoices):
        """Who must agree with a hand before it counts (issue 12): nobody else (a casual
        game's default), one other seat of the table (a tournament's default), every other
        seat, or a club director."""

        NONE = "none", _("Nobody: a hand counts once entered")
        ONE_OTHER = "one_other", _("One other player at the table")
        ALL = "all", _("Every other player at the table")
        DIRECTOR = "director", _("A club director")

    #: The game's name; the games are the registry's (``scoring.games``).
    kind = models.CharField(_("game"), max_length=16, choices=game_choices)
    club = models.ForeignKey(
        "tournaments.Club",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="games",
        verbose_name=_("club"),
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="games_created",
        verbose_name=_("created by"),
    )
    options = models.JSONField(_("house rules"), default=dict, blank=True)
    rules_version = models.CharField(_("rules version"), max_length=32)
    stake = models.CharField(
        _("stake"),
        max_length=32,
        blank=True,
        help_text=_("Tonk: the money value of one stake unit, as entered (e.g. 0.25)."),
    )
    currency = models.CharField(_("currency"), max_length=3, blank=True)
    state = models.CharField(
        _("state"), max_length=16, choices=State.choices, default=State.IN_PLAY
    )
    table_key = models.CharField(
        _("table key"), max_length=64, unique=True, default=new_table_key, editable=False
    )
    confirmation = models.CharField(
        _("confirmation"),
        max_length=16,
        choices=Confirmation.choices,
        default=Confirmation.NONE,
        help_text=_("Who must confirm a hand before it counts."),
    )
    directed = models.BooleanField(
        _("run by a director"),
        default=False,
        help_text=_(
            "A tournament table: once its round is complete only the club's directors may "
            "change its hands, each time with a reason."
        ),
    )
    idempotency_key = models.CharField(max_length=255, blank=True, default="", editable=False)
    request_fingerprint = models.CharField(
        max_length=64, blank=True, default="", editable=False
    )  # tells a retry from another request under the same idempotency key
    totals = models.JSONField(
        _("totals"), default=dict, blank=True, help_text=_("Derived from the score lines.")
    )
    # Kept by the services with every write, so recording a hand reads one row: the seats
    # (name, seat id) in seat order, the highest hand number used, and the current hands'
    # count and last round or hand of the schedule. Rebuilt from the hands in the tests.
    seating = models.JSONField(default=list, blank=True, editable=False)
    last_number = models.PositiveIntegerField(default=0, editable=False)
    # Bumped by every change to the game's hands or their status. Not the table page's ETag
    # (issue 14: that is a digest of what the live region shows, ``ops.etags``).
    version = models.PositiveIntegerField(default=0, editable=False)
    current_hands = models.PositiveIntegerField(default=0, editable=False)
    last_sequence = models.PositiveSmallIntegerField(null=True, blank=True, editable=False)
    # A game of a fixed part of a schedule (a tournament table): its first round or hand, how
    # many hands it takes at most, and whether Bluke's hands start again at 1 after 25.
    sequence_from = models.PositiveSmallIntegerField(
        _("first round or hand"), null=True, blank=True
    )
    hand_limit = models.PositiveSmallIntegerField(_("hands at most"), null=True, blank=True)
    sequence_wraps = models.BooleanField(_("hands start again after the last"), default=False)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)

    class Meta:
        ordering = ("-created_at", "-id")
        verbose_name = _("game")
        verbose_name_plural = _("games")
        constraints = (
            models.UniqueConstraint(
                fields=("created_by", "idempotency_key"),
                condition=~Q(idempotency_key=""),
                name="scoring_game_one_per_idempotency_key",
            ),
        )

    replay_id: int | None = None
    """Set by the services when locking the row (not a field): the hand an idempotency key
    already wrote."""
    key_on_step: bool = False
    """Set with ``replay_id``: whether a step of a hand (a void, a confirmation…) holds the key
    instead."""

    def __str__(self) -> str:
        return f"{self.get_kind_display()} #{self.pk}"

    @property
    def adapter(self) -> GameAdapter:
        """The game's adapter (``scoring.games``): its rules, entry form and partials.
        ``LookupError`` for a game no longer registered."""
        return adapter_for(self.kind)


class Seat(models.Model):
    """A seat at a game: its position (0 = first, clockwise) and who sat there, a club player
    or a guest known by name."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats")
    position = models.PositiveSmallIntegerField(_("position"))
    name = NameField(_("name"))
    player = models.ForeignKey(
        "tournaments.Player",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="seats",
        verbose_name=_("player"),
    )
    seat_key = models.CharField(
        _("seat key"), max_length=64, unique=True, default=new_seat_key, editable=False
    )

    class Meta:
        ordering = ("game", "position")
        verbose_name = _("seat")
        verbose_name_plural = _("seats")
        constraints = (
            models.UniqueConstraint(fields=("game", "position"), name="scoring_seat_position"),
            models.UniqueConstraint(fields=("game", "name"), name="scoring_seat_name"),
        )

    def __str__(self) -> str:
        return self.name


class Hand(models.Model):
    """One revision of one hand (Tonk, Bluke) or round (Rook), stored verbatim as entered.

    ``number`` is the hand's place in the game (1, 2, ...). A correction writes a new revision
    of the same number that ``replaces`` the one before, which becomes superseded; a void marks
    the current revision voided (and a restore makes it current again). Exactly one revision of
    a number is current at a time.

    ``status`` is the table's agreement on the revision: *provisional* until confirmed as the
    game's ``confirmation`` requires, *confirmed*, or *disputed* until a director resolves it.
    Who entered it is ``entered_seat`` (a seat link, or the table link with a seat chosen)
    and/or ``entered_by`` (a signed-in user).
    """

    class State(models.TextChoices):
        CURRENT = "current", _("Current")
        SUPERSEDED = "superseded", _("Superseded")
        VOIDED = "voided", _("Voided")

    class Via(models.TextChoices):
        USER = "user", _("Signed-in user")
        TABLE = "table", _("Table link")
        IMPORT = "import", _("Score sheet import")
        SEAT = "seat", _("Seat")

    class Status(models.TextChoices):
        PROVISIONAL = "provisional", _("Provisional")
        CONFIRMED = "confirmed", _("Confirmed")
        DISPUTED = "disputed", _("Disputed")

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="hands")
    number = models.PositiveIntegerField(_("number"))
    revision = models.PositiveIntegerField(_("revision"), default=1)
    state = models.CharField(
        _("state"), max_length=16, choices=State.choices, default=State.CURRENT
    )
    sequence = models.PositiveSmallIntegerField(
        _("round or hand"),
        null=True,
        blank=True,
        help_text=_("Rook: the round (1-11); Bluke: the hand of the schedule (1-25)."),
    )
    entry_text = models.TextField(
        _("as entered"), help_text=_("The hand object as received, as JSON text in its key order.")
    )
    record_text = models.TextField(
        _("canonical record"), help_text=_("The hand object in canonical form, as JSON text.")
    )
    warnings = models.JSONField(_("warnings"), default=list, blank=True)
    rules_version = models.CharField(_("rules version"), max_length=32)
    replaces = models.OneToOneField(
        "self",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="replaced_by",
        verbose_name=_("replaces"),
    )
    idempotency_key = models.CharField(max_length=255, blank=True, default="", editable=False)
    request_fingerprint = models.CharField(
        max_length=64, blank=True, default="", editable=False
    )  # the request the idempotency key was given to (ops.idempotency.fingerprint)
    entered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="hands_entered",
        verbose_name=_("entered by"),
    )
    entered_via = models.CharField(_("entered via"), max_length=16, choices=Via.choices)
    entered_seat = models.ForeignKey(
        Seat,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="hands_entered",
        verbose_name=_("entered at seat"),
    )
    status = models.CharField(
        _("status"), max_length=16, choices=Status.choices, default=Status.CONFIRMED
    )
    reason = models.CharField(_("reason"), max_length=500, blank=True, default="")
    # The device it was entered on (``scoring.permissions.Actor.device``, an opaque digest):
    # that device may not confirm it, whichever seat it claims.
    entered_device = models.CharField(max_length=64, blank=True, default="", editable=False)
    created_at = models.DateTimeField(_("entered at"), auto_now_add=True)
    voided_at = models.DateTimeField(_("voided at"), null=True, blank=True)

    class Meta:
        ordering = ("game", "number", "revision")
        verbose_name = _("hand")
        verbose_name_plural = _("hands")
        constraints = (
            models.UniqueConstraint(
                fields=("game", "number", "revision"), name="scoring_hand_revision_once"
            ),
            models.UniqueConstraint(
                fields=("game", "number"),
                condition=Q(state="current"),
                name="scoring_hand_one_current_revision",
            ),
            models.UniqueConstraint(
                fields=("game", "idempotency_key"),
                condition=~Q(idempotency_key=""),
                name="scoring_hand_one_per_idempotency_key",
            ),
        )
        indexes = (models.Index(fields=("game", "state", "number")),)

    scores_cache: dict[str, int] | None = None
    """The scores of a revision just written (not a field): saves reading its lines back."""

    def __str__(self) -> str:
        return f"{self.game} hand {self.number} r{self.revision} ({self.state})"

    @property
    def entry(self) -> object:
        """The hand object as entered (JSON text stored verbatim, so its key order is kept)."""
        return json.loads(self.entry_text)

    @property
    def record(self) -> dict[str, object]:
        """The canonical hand object of the score-sheet format."""
        record: dict[str, object] = json.loads(self.record_text)
        return record


class HandEvent(models.Model):
    """One step of a hand's trail that is not a revision of its own (a revision records its
    entry or correction itself): a confirmation, a dispute, a director's resolution, a void or
    a restore; who took it (a seat and/or a signed-in user), when, and why."""

    class Action(models.TextChoices):
        CONFIRM = "confirm", _("Confirmed")
        DISPUTE = "dispute", _("Disputed")
        RESOLVE = "resolve", _("Resolved")
        VOID = "void", _("Voided")
        RESTORE = "restore", _("Restored")

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="hand_events")
    hand = models.ForeignKey(Hand, on_delete=models.CASCADE, related_name="events")
    number = models.PositiveIntegerField(_("number"))
    action = models.CharField(_("action"), max_length=16, choices=Action.choices)
    seat = models.ForeignKey(
        Seat, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
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
    device = models.CharField(max_length=64, blank=True, default="", editable=False)
    # The device's key for the write that kept this step: a retry with it changes nothing.
    idempotency_key = models.CharField(max_length=255, blank=True, default="", editable=False)
    request_fingerprint = models.CharField(
        max_length=64, blank=True, default="", editable=False
    )  # the request the idempotency key was given to (ops.idempotency.fingerprint)
    created_at = models.DateTimeField(_("at"), auto_now_add=True)

    class Meta:
        ordering = ("game", "created_at", "id")
        verbose_name = _("hand event")
        verbose_name_plural = _("hand events")
        indexes = (models.Index(fields=("game", "number")),)
        constraints = (
            models.UniqueConstraint(
                fields=("game", "idempotency_key"),
                condition=~Q(idempotency_key=""),
                name="scoring_handevent_one_per_idempotency_key",
            ),
        )

    def __str__(self) -> str:
        return f"{self.game} hand {self.number}: {self.action}"


class ScoreLine(models.Model):
    """One player's result in one hand revision: points (Rook, Bluke) or stake units (Tonk),
    and the facts tie-breaks need."""

    hand = models.ForeignKey(Hand, on_delete=models.CASCADE, related_name="lines")
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="lines")
    seat = models.ForeignKey(Seat, on_delete=models.CASCADE, related_name="lines")
    points = models.IntegerField(_("points or stake units"))
    went_out = models.BooleanField(_("went out"), default=False)
    bid_made = models.BooleanField(_("made the bid"), null=True, blank=True)
    won = models.BooleanField(_("won the hand"), default=False)

    class Meta:
        ordering = ("hand", "seat__position")
        verbose_name = _("score line")
        verbose_name_plural = _("score lines")
        constraints = (
            models.UniqueConstraint(fields=("hand", "seat"), name="scoring_line_once_per_seat"),
        )

    def __str__(self) -> str:
        return f"{self.hand}: {self.seat} {self.points:+d}"


class ScoresheetJob(models.Model):
    """A score sheet queued to be scored in the background, and the result it gave.

    ``result`` is the engine's answer as stored JSON: the result object, or ``{"error": ...}``
    for a sheet that breaks a rule or the format. A job is written once when done, never again.
    """

    class Status(models.TextChoices):
        QUEUED = "queued", _("Queued")
        DONE = "done", _("Done")

    sheet = models.JSONField(_("score sheet"))
    result = models.JSONField(_("result"), null=True, blank=True)
    status = models.CharField(
        _("status"), max_length=16, choices=Status.choices, default=Status.QUEUED
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    # When its task was last sent: the tick sends a queued job's task again once it waited
    # too long (ops.background).
    sent_at = models.DateTimeField(null=True, blank=True, editable=False)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)

    class Meta:
        ordering = ("-created_at", "-id")
        verbose_name = _("score sheet job")
        verbose_name_plural = _("score sheet jobs")
        constraints = (
            models.CheckConstraint(
                condition=Q(status="queued", result__isnull=True, finished_at__isnull=True)
                | Q(status="done", result__isnull=False, finished_at__isnull=False),
                name="scoring_scoresheetjob_done_iff_result",
            ),
        )

    def __str__(self) -> str:
        return f"score sheet job {self.pk} ({self.status})"
