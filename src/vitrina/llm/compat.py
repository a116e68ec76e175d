"""ChatOpenAI with the request body every OpenAI-compatible server understands."""

from __future__ import annotations

from typing import Any

from langchain_openai import ChatOpenAI


class CompatibleChatOpenAI(ChatOpenAI):
    """Two changes to the request body, for self-hosted servers and for streaming:

    - `max_tokens`: ChatOpenAI renames it `max_completion_tokens`, which the OpenAI cloud
      wants and llama-cpp-python (measured: 0.3.16), LM Studio and older Ollama ignore, so
      that a reply runs to the context size. With a base URL it is sent as `max_tokens`.
    - `response_format: json_object` travels in `extra_body`, so that ChatOpenAI streams
      plain chunks instead of taking the SDK's parse path, which raises
      LengthFinishReasonError for a reply cut at max_tokens and buries its text.
    """

    local_server: bool = False

    def _get_request_payload(
        self, input_: Any, *, stop: list[str] | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        payload = super()._get_request_payload(input_, stop=stop, **kwargs)
        if self.local_server and "max_completion_tokens" in payload:
            payload["max_tokens"] = payload.pop("max_completion_tokens")
        fmt = payload.get("response_format")
        if isinstance(fmt, dict) and fmt.get("type") == "json_object":
            payload["extra_body"] = {
                **(payload.get("extra_body") or {}),
                "response_format": payload.pop("response_format"),
            }
        return payload
