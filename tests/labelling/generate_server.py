"""A fake OpenAI-compatible server for `labels generate`: a prompt asking for a question (it
holds `Clause heading:`) is answered `{"question": "What does my policy say about <heading>?"}`;
any other prompt is a judging prompt and gets `chat_server.ChatServer`'s UMBRELA reply. The
scripted actions (`queue`, `always`) apply to both, in arrival order; `no_score` is a reply with
no question in it."""

from __future__ import annotations

import json
import re

from chat_server import ChatServer

ASKS = "Clause heading:"
_HEADING = re.compile(r"Clause heading: (.*)")


def question_for(prompt: str) -> str:
    """The question the server writes for a generation prompt: from the clause's heading."""
    heading = _HEADING.search(prompt)
    about = heading.group(1).strip().lower() if heading else "it"
    return f"What does my policy say about {about}?"


class GenerateServer(ChatServer):
    def reply_for(self, prompt: str) -> str:
        if ASKS in prompt:
            return json.dumps({"question": question_for(prompt)})
        return super().reply_for(prompt)
