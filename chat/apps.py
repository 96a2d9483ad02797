from django.apps import AppConfig


class ChatConfig(AppConfig):
    name = "chat"

    def ready(self) -> None:
        # Memory's passes read conversations and voice transcripts through chat.
        from chat.turns import turns_of_voice_session, turns_through_reply
        from memory.services import turn_reader_register

        turn_reader_register("chat", turns_through_reply)
        turn_reader_register("voice", turns_of_voice_session)
