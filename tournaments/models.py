"""Clubs, their members (user accounts) and their players."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Club(models.Model):
    """A card club: it owns players, games and (later) tournaments."""

    name = models.CharField(_("name"), max_length=120)
    members = models.ManyToManyField(
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
    name = models.CharField(_("name"), max_length=80)
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
            models.UniqueConstraint(fields=("club", "name"), name="tournaments_player_name_once"),
        )

    def __str__(self) -> str:
        return self.name
