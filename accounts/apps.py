from django.apps import AppConfig
from django.contrib.admin import apps as admin_apps


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Accounts and guests"


class WhiziAdminConfig(admin_apps.AdminConfig):
    """Django's admin, whose login shares the account login's limits (accounts.admin_login)."""

    default = False  # "accounts" in INSTALLED_APPS still means AccountsConfig
    default_site = "accounts.admin_login.WhiziAdminSite"
