"""Heartbeats: when a part that runs on its own (the tick, a Celery worker) was last seen."""

from django.db import models
from django.utils.translation import gettext_lazy as _


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
