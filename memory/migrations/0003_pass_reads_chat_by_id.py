"""A pass names the reply or voice session it reads by id: chat owns those tables and
memory no longer holds a foreign key into them. The columns and their values stay."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("memory", "0002_pass_model_time"),
    ]

    operations = [
        migrations.AlterField(
            model_name="memorypass", name="through_message",
            field=models.BigIntegerField(null=True, blank=True, db_index=True, db_column="through_message_id"),
        ),
        migrations.RenameField(model_name="memorypass", old_name="through_message", new_name="through_message_id"),
        migrations.AlterField(
            model_name="memorypass", name="through_message_id",
            field=models.BigIntegerField(null=True, blank=True, db_index=True),
        ),
        migrations.AlterField(
            model_name="memorypass", name="voice_session",
            field=models.BigIntegerField(null=True, blank=True, db_index=True, db_column="voice_session_id"),
        ),
        migrations.RenameField(model_name="memorypass", old_name="voice_session", new_name="voice_session_id"),
        migrations.AlterField(
            model_name="memorypass", name="voice_session_id",
            field=models.BigIntegerField(null=True, blank=True, db_index=True),
        ),
    ]
