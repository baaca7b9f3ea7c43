"""The one rule of the Django admin (issue 14): the admin is a window on results, never a way
round the services.

Every model of the project is registered in the admin with one of two bases:

- :class:`ReadOnlyAdmin` for results and derived state (games, seats, hands, score lines, their
  trail, rounds, tables, standings rows, audit entries, jobs, heartbeats): listed and shown,
  never added, changed or deleted there, a superuser included (no "delete selected" action,
  no inline rows to add or remove). Results change through the services, which check who may,
  score, keep the trail and announce the change.
- :class:`RecordAdmin` for plain records a site operator may keep (clubs, players, user
  accounts, their profiles): only the fields named in ``editable_fields`` (and
  ``add_fields`` when adding) are editable, every other field is shown read-only; a delete
  that would remove or rewrite a result (a cascade into results, or a trail's ``SET_NULL``)
  is refused with the rows named.

A model is a result when the admin it is registered with is a :class:`ReadOnlyAdmin`
(:func:`is_result`); ``tests/inputs/test_admin_readonly.py`` checks that every registered
model is classified one way or the other.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence, Sized
from typing import Any, cast

from django.contrib import admin
from django.contrib.admin.utils import NestedObjects
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.db import router
from django.db.models import Model, QuerySet
from django.http import HttpRequest
from django.utils.text import capfirst
from django.utils.translation import gettext

from ops.models import Heartbeat, Profile


class _NoWrites:
    """No add, change or delete permission, for anyone: the read-only admins' and inlines'
    one refusal."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ReadOnlyAdmin(_NoWrites, admin.ModelAdmin):
    """Results and derived state: shown, never added, changed or deleted in the admin (a
    superuser included). Without delete permission Django offers no "delete selected"
    action and refuses the delete view (403); without change permission the change view
    shows the row read-only and refuses a POST (403)."""


class ReadOnlyInline(_NoWrites, admin.TabularInline):
    """Rows shown beside their parent (a game's seats, a hand's score lines), never added,
    changed or deleted there."""

    extra = 0
    can_delete = False


def is_result(model: type[Model], site: admin.AdminSite | None = None) -> bool:
    """Whether ``model`` holds results or derived state: it is registered on ``site`` (the
    default admin site) with a :class:`ReadOnlyAdmin`."""
    registered = (site or admin.site)._registry.get(model)
    return isinstance(registered, ReadOnlyAdmin)


def results_touched(objs: Iterable[Model], using: str) -> list[str]:
    """The results a delete of ``objs`` would remove or rewrite, one line per kind of row.

    Django's collector follows every relation the delete would follow: a ``CASCADE`` into a
    result removes it, a ``SET_NULL`` on a result rewrites it (a trail that loses who made a
    step). ``PROTECT`` relations are refused by Django itself and not listed here.
    """
    collector = NestedObjects(using=using)
    collector.collect(list(objs))
    lines: list[str] = []
    for model, instances in collector.data.items():
        if is_result(model) and instances:
            lines.append(
                gettext("%(count)s %(rows)s would be deleted: results change only through the app")
                % {"count": len(instances), "rows": capfirst(str(model._meta.verbose_name_plural))}
            )
    for (field, _value), querysets in collector.field_updates.items():
        model = field.model
        count = 0
        for rows in querysets:
            count += rows.count() if isinstance(rows, QuerySet) else len(cast(Sized, rows))
        if is_result(model) and count:
            lines.append(
                gettext(
                    "%(count)s %(rows)s would lose their %(field)s: the record of who did what "
                    "is kept (deactivate the account instead)"
                )
                % {
                    "count": count,
                    "rows": capfirst(str(model._meta.verbose_name_plural)),
                    "field": field.verbose_name,
                }
            )
    return lines


class RecordAdmin(admin.ModelAdmin):
    """A plain record an operator may keep in the admin: only ``editable_fields`` change (and
    ``add_fields`` are given when adding; ``add_fields`` empty: no adding here); every other
    field is read-only. A delete, one row or "delete selected", is refused when it would
    remove or rewrite a result (:func:`results_touched`), and the page says which."""

    #: The fields an operator may change on an existing row.
    editable_fields: Sequence[str] = ()
    #: The fields given when adding a row here; empty: rows are not added in the admin.
    add_fields: Sequence[str] = ()

    def has_add_permission(self, request: HttpRequest) -> bool:
        return bool(self.add_fields) and super().has_add_permission(request)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        editable = set(self.add_fields if obj is None else self.editable_fields)
        names = [
            f.name
            for f in self.model._meta.get_fields()
            if (f.concrete or f.many_to_many) and not f.auto_created and f.name not in editable
        ]
        return [*super().get_readonly_fields(request, obj), *names]

    def get_deleted_objects(
        self, objs: Sequence[Any] | QuerySet[Any], request: HttpRequest
    ) -> tuple[list[Any], dict[str, int], set[str], list[Any]]:
        to_delete, model_count, perms_needed, protected = super().get_deleted_objects(objs, request)
        using = router.db_for_write(self.model)
        return to_delete, model_count, perms_needed, [*protected, *results_touched(objs, using)]


# --- the models this module knows itself: heartbeats, user accounts ---------------------------


@admin.register(Heartbeat)
class HeartbeatAdmin(ReadOnlyAdmin):
    """When the tick and each worker were last seen: written by them only."""

    list_display = ("name", "at")


@admin.register(Profile)
class ProfileAdmin(RecordAdmin):
    """A user's preferences (the language they chose with the switcher): an operator may
    change the language; a profile is made by the user's first choice, not here."""

    list_display = ("user", "language")
    editable_fields = ("language",)


class UserAdmin(RecordAdmin, DjangoUserAdmin):
    """User accounts as Django keeps them, with one difference: an account that appears in a
    trail (entered a hand, made a step, created a game) is not deleted, since the trail would
    lose who did what: deactivate it instead (``is_active``)."""

    editable_fields = (
        "username",
        "password",
        "first_name",
        "last_name",
        "email",
        "is_active",
        "is_staff",
        "is_superuser",
        "groups",
        "user_permissions",
    )
    add_fields = ("username", "password")


admin.site.unregister(get_user_model())
admin.site.register(get_user_model(), UserAdmin)
