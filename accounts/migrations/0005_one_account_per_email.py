"""One account per email address, whatever its case, enforced by the database.

Two unique indexes on LOWER(email): one on the user table (blank addresses aside, which
admin-made users may have) and one on allauth's email addresses, verified or not.
allauth's own `unique_verified_email` covers verified addresses only, so two signups at
the same moment could still create two accounts with one unverified address.

Existing duplicates are reported, never merged or renamed: which account is the real
one is for the operator to decide (lifecycle/management: export_account and
delete_account take an account id).
"""

from django.conf import settings
from django.core.management.base import CommandError
from django.db import migrations
from django.db.models import Count
from django.db.models.functions import Lower

USER_INDEX = "whizi_user_email_lower_uniq"
ADDRESS_INDEX = "whizi_emailaddress_email_lower_uniq"


def _duplicates(model, owner_field: str, exclude_blank: bool) -> list[str]:
    rows = model.objects.all()
    if exclude_blank:
        rows = rows.exclude(email="")
    keys = (rows.annotate(key=Lower("email")).values("key").annotate(n=Count("pk"))
            .filter(n__gt=1).order_by("key").values_list("key", flat=True))
    found = []
    for key in keys:
        owners = sorted(rows.annotate(key=Lower("email")).filter(key=key)
                        .values_list(owner_field, flat=True))
        found.append(f"  {key}: account ids {', '.join(str(pk) for pk in owners)}")
    return found


def duplicates_refuse(apps, schema_editor) -> None:
    """Stop the migration, naming every address that more than one account holds."""
    User = apps.get_model(settings.AUTH_USER_MODEL)
    EmailAddress = apps.get_model("account", "EmailAddress")
    users = _duplicates(User, "pk", exclude_blank=True)
    addresses = _duplicates(EmailAddress, "user_id", exclude_blank=False)
    if not users and not addresses:
        return
    lines = ["More than one account has the same email address (ignoring case):"]
    if users:
        lines += ["In the user table:", *users]
    if addresses:
        lines += ["In the email addresses (verified or not):", *addresses]
    lines += [
        "Nothing was changed. For each address, decide which account is the person's, then",
        "keep it and remove the others: `manage.py export_account <id>` saves one,",
        "`manage.py delete_account <id>` deletes one (or change its address in the admin).",
        "Then run `manage.py migrate` again.",
    ]
    raise CommandError("\n".join(lines))


def indexes_create(apps, schema_editor) -> None:
    User = apps.get_model(settings.AUTH_USER_MODEL)
    EmailAddress = apps.get_model("account", "EmailAddress")
    q = schema_editor.quote_name
    # The same SQL on PostgreSQL and SQLite (`make run`): both have partial expression indexes.
    schema_editor.execute(
        f"CREATE UNIQUE INDEX {q(USER_INDEX)} ON {q(User._meta.db_table)} (LOWER({q('email')}))"
        f" WHERE {q('email')} <> ''"
    )
    schema_editor.execute(
        f"CREATE UNIQUE INDEX {q(ADDRESS_INDEX)} ON {q(EmailAddress._meta.db_table)}"
        f" (LOWER({q('email')}))"
    )


def indexes_drop(apps, schema_editor) -> None:
    q = schema_editor.quote_name
    schema_editor.execute(f"DROP INDEX IF EXISTS {q(USER_INDEX)}")
    schema_editor.execute(f"DROP INDEX IF EXISTS {q(ADDRESS_INDEX)}")


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0004_per_owner_base"),
        ("account", "0009_emailaddress_unique_primary_email"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RunPython(duplicates_refuse, migrations.RunPython.noop),
        migrations.RunPython(indexes_create, indexes_drop),
    ]
