from django import forms
from django.conf import settings
from django.utils.translation import gettext_lazy as _

from accounts.preferences import chat_models
from whizi.llm import model_display_name


class PreferencesForm(forms.Form):
    language = forms.ChoiceField(label=_("Language"), required=False)
    chat_model = forms.ChoiceField(label=_("Default chat model"))

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # Languages are named in their own language, so anyone can find theirs.
        self.fields["language"].choices = [("", _("Follow the browser")), *settings.LANGUAGES]
        self.fields["chat_model"].choices = [(model, model_display_name(model)) for model in chat_models()]
