from django.urls import path

from lifecycle import views

app_name = "lifecycle"

urlpatterns = [
    path("settings/", views.settings_page, name="settings"),
    path("guest-offer/add/", views.guest_offer_add_form, name="guest_offer_add"),
    path("guest-offer/discard/", views.guest_offer_discard_form, name="guest_offer_discard"),
]
