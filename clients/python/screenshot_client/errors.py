"""The errors the client raises: an error answer of the service, or a wait that ran out."""

from __future__ import annotations

from typing import Any, Dict, List, Optional


class ApiError(Exception):
    """An answer that is not a success, with the service's error body (``{success: false, error, code}``).

    ``status`` is the HTTP status, ``code`` the body's ``code`` (``not_found``, ``validation_failed``, …) when it
    sent one, ``details`` the list of ``{field, message}`` of a 422, ``body`` the whole parsed body (or the raw
    text when it was not JSON).
    """

    def __init__(self, status: int, code: Optional[str], message: str, body: Any) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.body = body

    @property
    def details(self) -> List[Dict[str, Any]]:
        details = self.body.get("details") if isinstance(self.body, dict) else None
        return details if isinstance(details, list) else []

    @classmethod
    def from_answer(cls, status: int, body: Any) -> "ApiError":
        fields: Dict[str, Any] = body if isinstance(body, dict) else {}
        code = fields.get("code")
        message = fields.get("error")
        return cls(status, code if isinstance(code, str) else None, message if isinstance(message, str) else f"HTTP {status}", body)

    def __str__(self) -> str:
        return f"{self.status} {self.code or ''}: {self.message}".replace("  ", " ")


class WaitTimeout(Exception):
    """Still not finished when the wait ran out; ``last`` is the last state seen (a job or an execution)."""

    def __init__(self, last: Dict[str, Any]) -> None:
        super().__init__("Still not finished when the wait ran out")
        self.last = last
