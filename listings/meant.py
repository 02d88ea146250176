"""What a name an agent got wrong probably meant: "Unknown filter 'price_max' (did you mean
'max_price'?)", "Unknown argument 'sort' (did you mean 'sort_by'?)", "'group_by' must be one of
...; did you mean 'rooms_count'?"."""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence

# Names that share a word with the one given are offered up to this many ("price": min_price,
# max_price); more would be the list of everything again.
MOST_SHARING_A_WORD = 3


def close_names(
    given: str, names: Sequence[str], words: Mapping[str, Sequence[str]] | None = None
) -> list[str]:
    """The names `given` probably means: itself in another case or with other separators
    ("Max-Price"), a word for it in `words` ("town": city), its words in another order
    ("price_max", "floors_count_max"), the names it is one word of ("sort": sort_by, "id":
    listing_id), or one a letter or two away, its words in either order ("max_prise",
    "floors_max"); none when nothing is close."""
    word = "_".join(given.strip().lower().replace("-", " ").split())
    if word in names:
        return [word]
    if words and word in words:
        return [name for name in words[word] if name in names]
    parts = word.split("_")
    turned = ["_".join(parts[1:] + parts[:1]), "_".join(parts[-1:] + parts[:-1])]
    for form in turned:
        if form in names:
            return [form]
    sharing = [name for name in names if word and word in name.split("_")]
    if 0 < len(sharing) <= MOST_SHARING_A_WORD:
        return sharing
    for form in (word, *turned):  # "max_prise"; "floors_max": max_floor
        close = difflib.get_close_matches(form, names, n=1, cutoff=0.8)
        if close:
            return close
    return []


def quoted(names: Sequence[str]) -> str:
    """'a' or 'b'."""
    return " or ".join(f"'{name}'" for name in names)


def bracketed(names: Sequence[str]) -> str:
    """What to put after the name: ` (did you mean 'a' or 'b'?)`, or nothing for no names."""
    return f" (did you mean {quoted(names)}?)" if names else ""
