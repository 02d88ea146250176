"""Test settings: the real settings module, pointed at a separate embedded database.

Environment variables set before the run still win, so the suite can also run against
another PostgreSQL (LISTINGS_DATABASE_URL) that the project created with generate_listings.
"""

import os
from pathlib import Path

_root = Path(__file__).resolve().parent.parent
os.environ.setdefault("VMK_DATA_DIR", str(_root / ".data" / "test"))
os.environ.setdefault("DATABASE_URL", "sqlite:///:memory:")
os.environ.setdefault("DEMO_LISTINGS_COUNT", "3000")
os.environ.setdefault("DEMO_SEED", "7")
os.environ.setdefault("SECRET_KEY", "test-only-secret-key-not-for-production")
os.environ.setdefault("EMBEDDER", "offline")
# A new connection loads the hunspell dictionary (about 2 s of CPU); with the suite on two
# workers and a loaded machine, 5 s is not always enough to open the first ones.
os.environ.setdefault("DB_POOL_TIMEOUT_SEC", "30")
# No on-disk document-vector cache shared between runs: a test that embeds a document must
# reach the model (tests of the cache give it a directory of their own).
os.environ.setdefault("DOCUMENT_VECTOR_CACHE_DIR", "")

from vmkproject.settings import *  # noqa: E402, F403
