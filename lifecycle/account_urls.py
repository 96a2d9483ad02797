"""Pages under /accounts/ that replace allauth's own (whizi.urls includes these first)."""

from django.urls import path

from lifecycle.views import signup

urlpatterns = [
    path("signup/", signup, name="account_signup"),
]
