"""The games of tournament tables seated before issue 12 become directed, with their
tournament's confirmation (their hands are already confirmed: ``Hand.status`` defaults so)."""

from django.db import migrations


def direct_table_games(apps, schema_editor):
    Table = apps.get_model("tournaments", "Table")
    Game = apps.get_model("scoring", "Game")
    rows = Table.objects.values_list("game_id", "round__tournament__confirmation")
    for game_id, confirmation in rows.iterator():
        Game.objects.filter(pk=game_id).update(directed=True, confirmation=confirmation)


class Migration(migrations.Migration):
    dependencies = [
        ("scoring", "0005_trust"),
        ("tournaments", "0006_trust"),
    ]

    operations = [migrations.RunPython(direct_table_games, migrations.RunPython.noop)]
