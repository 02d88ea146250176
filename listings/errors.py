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


class NoEmbedding(NotFound):
    """The listing exists but has no embedding yet: nothing to find its neighbours from."""


class EmptyEmbedding(NotFound):
    """The listing's embedding is all zeros (or not finite): it has no direction."""


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


# --- messages of the search layer (tests match them exactly) ---

QUERY_REQUIRED = "'query' must be a non-empty Ukrainian text."
QUERY_TOO_LONG = "'query' is {length} characters long; the limit is {limit}."
QUERY_CONTROL_CHARS = "'query' must not contain control characters."
LIMIT_RANGE = "'limit' must be an integer from 1 to {max_limit}."
OFFSET_RANGE = "'offset' must be an integer from 0 to {max_offset}."
# "'sort_by' must be one of: relevance, price_asc, ..." (listings.types fills in the Literals).
ONE_OF = "'{name}' must be one of: {allowed}."
MIN_SIMILARITY_RANGE = "'min_similarity' must be a number from -1 to 1 (1 − cosine distance)."
CURRENCY_UNKNOWN = "'currency' must be one of: {allowed}."
BINS_RANGE = "'bins' must be an integer from {low} to {high}."
LISTING_ID_INVALID = "'listing_id' must be a positive integer."
LISTING_NOT_FOUND = "Listing {listing_id} does not exist."
LISTING_HAS_NO_EMBEDDING = (
    "Listing {listing_id} has no embedding yet, nor a title or description to embed, so "
    "there is nothing to compare it with; use search_by_metadata with its filters instead."
)
LISTING_EMBEDDING_EMPTY = (
    "Listing {listing_id} has an empty (all-zero) embedding, nor a title or description to "
    "embed, so it is like no other listing; use search_by_metadata with its filters instead."
)
# "More like this" for a listing whose stored vector is missing or empty: its text embedded.
EMBEDDED_NOW_NOTE = (
    "Listing {listing_id} {why}: its title, description and place were embedded now to "
    "compare it (the vector the collector stores later may rank a little differently)."
)
NOT_EMBEDDED = "has no stored embedding yet"
EMPTY_EMBEDDING = "has an empty (all-zero) stored embedding"
QUERY_EMBEDDING_EMPTY = (
    "The embedder returned an empty (all-zero) vector for this query, which matches nothing; "
    "rephrase the query or check the embedding model."
)
EMBEDDER_MISMATCH = (
    "The stored embeddings were made by '{stored}', but the server embeds queries with "
    "'{current}': results would be meaningless. Set EMBEDDER to the model that built the vectors."
)
QUERY_TIMED_OUT = (
    "The query took longer than {seconds:g} s and was stopped. Narrow it with filters "
    "(city, deal_type, price) or lower 'offset'."
)
DATABASE_DOWN = "The listings database is not reachable right now; try again shortly."
POOL_BUSY = (
    "All connections to the listings database are busy; the call waited and gave up. "
    "Try again shortly."
)
MIXED_DEALS_WARNING = (
    "Sale and rent prices are mixed in these figures; filter or group by deal_type."
)
NEIGHBOURHOOD_UNNAMED_WARNING = (
    "No listing of district '{district}' under these filters names {words}: these are the "
    "district's listings that match the rest of the request."
)
MIXED_DEALS_SORT_WARNING = (
    "Sorted by price with no deal_type: sale prices, monthly and daily rents are sorted "
    "together (see each card's deal_type); set deal_type to compare like with like."
)
PRICES_LEFT_OUT_WARNING = (
    "{count} listings have a price in a missing or unrecognised currency and are left out of "
    "the price figures (describe_schema: currencies; the DEFAULT_CURRENCY setting)."
)
