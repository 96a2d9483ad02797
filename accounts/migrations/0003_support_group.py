"""The "Support" group: view-only admin access, plus clearing an owner's memory.

Permissions are created here rather than left to post_migrate, so the group is
complete on a fresh database in the same `migrate` run. Chat messages are left out
on purpose: support needs the memory and its pass log, not people's conversations.
"""

from django.db import migrations

SUPPORT_GROUP = "Support"

# (app_label, model, codename, name)
SUPPORT_PERMISSIONS = [
    ("memory", "memory", "view_memory", "Can view memory"),
    ("memory", "memorypass", "view_memorypass", "Can view memory pass"),
    ("memory", "memory", "clear_memory", "Can clear an owner's memory"),
    ("accounts", "guest", "view_guest", "Can view guest"),
    ("accounts", "preference", "view_preference", "Can view preference"),
    ("auth", "user", "view_user", "Can view user"),
]


def create_support_group(apps, schema_editor):
    ContentType = apps.get_model("contenttypes", "ContentType")
    Permission = apps.get_model("auth", "Permission")
    Group = apps.get_model("auth", "Group")
    group, _ = Group.objects.get_or_create(name=SUPPORT_GROUP)
    for app_label, model, codename, name in SUPPORT_PERMISSIONS:
        content_type, _ = ContentType.objects.get_or_create(app_label=app_label, model=model)
        permission, _ = Permission.objects.get_or_create(
            content_type=content_type, codename=codename, defaults={"name": name}
        )
        group.permissions.add(permission)


def remove_support_group(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name=SUPPORT_GROUP).delete()
    apps.get_model("auth", "Permission").objects.filter(
        content_type__app_label="memory", codename="clear_memory"
    ).delete()


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0002_preference"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("memory", "0001_initial"),
    ]

    operations = [migrations.RunPython(create_support_group, remove_support_group)]
