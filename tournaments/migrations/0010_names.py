"""The name rule (``tonkrules.names``, issue 14): clubs', players' and tournaments' names
are stored normalised (NFC, spaces collapsed), and a club's players are one per name key
(``tonkrules.names.name_key``: NFKC, case-folded) instead of one per spelling.

Existing names are normalised as far as that is safe (NFC, runs of spaces made one, spaces
at either end removed; a name that would become blank is left as it is; one holding a
character the rule now refuses is kept, for a director to rename in the admin). Where two existing players
of one club have the same key, the later keeps its name and gets a key of its own
(``<key>#<id>``), so the migration never fails on old data; it is then found by its exact
key only.
"""

import unicodedata

from django.conf import settings
from django.db import migrations, models

import scoring.names
from tonkrules.names import name_key


def _normalised(name: str) -> str:
    nfc = unicodedata.normalize("NFC", name)
    text = " ".join("".join(" " if unicodedata.category(c) == "Zs" else c for c in nfc).split())
    return text or name


def normalise_names(apps, schema_editor):  # type: ignore[no-untyped-def]
    alias = schema_editor.connection.alias
    for label in ("Club", "Tournament"):
        model = apps.get_model("tournaments", label)
        for pk, name in model.objects.using(alias).values_list("pk", "name"):
            if _normalised(name) != name:
                model.objects.using(alias).filter(pk=pk).update(name=_normalised(name))
    Player = apps.get_model("tournaments", "Player")
    seen: set[tuple[int, str]] = set()
    for pk, club_id, name in (
        Player.objects.using(alias).order_by("pk").values_list("pk", "club_id", "name")
    ):
        name = _normalised(name)
        key = name_key(name)
        if (club_id, key) in seen:
            key = f"{key}#{pk}"
        seen.add((club_id, key))
        Player.objects.using(alias).filter(pk=pk).update(name=name, name_key=key)


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0009_standings_sent"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name="player",
            name="tournaments_player_name_once",
        ),
        migrations.AddField(
            model_name="player",
            name="name_key",
            field=models.TextField(default="", editable=False, verbose_name="name key"),
        ),
        migrations.AlterField(
            model_name="club",
            name="name",
            field=scoring.names.NameField(max_length=120, verbose_name="name"),
        ),
        migrations.AlterField(
            model_name="player",
            name="name",
            field=scoring.names.NameField(key_field="name_key", max_length=80, verbose_name="name"),
        ),
        migrations.AlterField(
            model_name="tableseat",
            name="substitute",
            field=scoring.names.NameField(blank=True, max_length=80, verbose_name="substitute"),
        ),
        migrations.AlterField(
            model_name="tournament",
            name="name",
            field=scoring.names.NameField(max_length=120, verbose_name="name"),
        ),
        migrations.RunPython(normalise_names, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="player",
            constraint=models.UniqueConstraint(
                fields=("club", "name_key"),
                name="tournaments_player_name_key_once",
                violation_error_message="The club already has a player of this name (letter case, accents and spaces aside).",
            ),
        ),
    ]
