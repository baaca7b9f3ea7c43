from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _


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
