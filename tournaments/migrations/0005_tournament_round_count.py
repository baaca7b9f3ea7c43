from django.db import migrations


class Migration(migrations.Migration):
    """``Tournament.rounds`` is ``round_count``: the number of rounds, not the rounds."""

    dependencies = [("tournaments", "0004_kind_choices_from_registry")]

    operations = [
        migrations.RenameField(model_name="tournament", old_name="rounds", new_name="round_count"),
    ]
