"""The Ukrainian apostrophe, one letter typed five ways: "Солом'янський" (ASCII),
"Солом’янський" (U+2019, what most keyboards and editors make), "Соломʼянський" (U+02BC, the
letter apostrophe), "Солом‘янський" (U+2018) and "Солом`янський" (a backtick). Every place
that compares, tokenises or matches names takes them from here, so that none forgets one."""

from __future__ import annotations

APOSTROPHES = "'’ʼ‘`"
# A regular expression's character class: any of them matches any other.
APOSTROPHE_CLASS = f"[{APOSTROPHES}]"
# For str.translate: every form as the ASCII one.
AS_ASCII = str.maketrans(dict.fromkeys(APOSTROPHES[1:], "'"))
