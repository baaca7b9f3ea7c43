"""Heartbeats: when a part that runs on its own (the tick, a Celery worker) was last seen; users'
profiles (the language they chose)."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from ops import language_list


class Heartbeat(models.Model):
    """The last time ``name`` was seen alive: ``tick`` (written by every tick) or
    ``worker:<hostname>`` (written by each Celery worker every few seconds). One row a name,
    overwritten; the health check reads them (``ops.health``)."""

    name = models.CharField(_("name"), max_length=200, primary_key=True)
    at = models.DateTimeField(_("seen at"))

    class Meta:
        verbose_name = _("heartbeat")
        verbose_name_plural = _("heartbeats")

    def __str__(self) -> str:
        return f"{self.name} at {self.at:%Y-%m-%d %H:%M:%S}"


class Profile(models.Model):
    """A user's preferences kept across browsers: the language they chose with the switcher
    (``ops.languages``; blank: none chosen, the browser's decides). One row a user, written on
    their first choice."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="profile",
        verbose_name=_("user"),
    )
    language = models.CharField(
        _("language"), max_length=8, blank=True, default="", choices=language_list.choices
    )

    class Meta:
        verbose_name = _("profile")
        verbose_name_plural = _("profiles")

    def __str__(self) -> str:
        return f"{self.user} ({self.language or '-'})"
