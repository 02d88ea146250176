"""Typed errors with stable codes.

Every interface shows `code` and `message` and nothing else: the messages are written for
an agent or an operator to act on, and never carry SQL, tracebacks or connection strings.
"""

from __future__ import annotations


class SearchError(Exception):
    code = "internal_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def as_dict(self) -> dict[str, str]:
        return {"error": self.message, "code": self.code}


class InvalidArgument(SearchError):
    code = "invalid_argument"


class NotFound(SearchError):
    code = "not_found"


class EmbeddingUnavailable(SearchError):
    code = "embedding_unavailable"


class QueryTimeout(SearchError):
    code = "query_timeout"


class DatabaseUnavailable(SearchError):
    code = "database_unavailable"


ERROR_CODES = (
    InvalidArgument.code,
    NotFound.code,
    EmbeddingUnavailable.code,
    QueryTimeout.code,
    DatabaseUnavailable.code,
)
