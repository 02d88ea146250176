from __future__ import annotations

import pytest

from listings.errors import EmptyEmbedding, NoEmbedding, NotFound


@pytest.mark.parametrize("error", [NoEmbedding, EmptyEmbedding])
def test_a_listing_without_a_usable_embedding_is_still_not_found_to_agents(error):
    exc = error("Listing 7 has no embedding yet.")
    assert isinstance(exc, NotFound)
    assert exc.as_dict() == {"error": "Listing 7 has no embedding yet.", "code": "not_found"}
