"""Processes that start together on one data directory build its database once."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from django.conf import settings

from tests.scratch_db import embedded_server

DBNAME = "vmk_build_once"

# Each process builds DBNAME with 5 listings (zero vectors: no model to load), the loader
# waiting a second first so that both are inside ensure_database at the same time.
BUILD = f"""
import time
import django
django.setup()
from demo import embedded, loading
from tests.scratch_db import embedded_server

def loader(conn, count, seed):
    time.sleep(1)
    loading.load_synthetic_listings(
        conn, count=count, seed=seed, embed=lambda texts: [[0.0] * 768 for _ in texts],
        embedder_name="zero", progress=False,
    )

embedded.ensure_database(
    embedded_server(), dbname={DBNAME!r}, fts_config="simple", demo_count=5, demo_seed=1,
    loader=loader,
)
"""


def test_two_processes_build_one_database_once():
    server = embedded_server()
    with server.connect("postgres") as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{DBNAME}" WITH (FORCE)')
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings"}
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", BUILD],
            cwd=Path(settings.BASE_DIR),
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for _ in range(2)
    ]
    outputs = [process.communicate(timeout=300)[0] for process in processes]
    try:
        assert [process.returncode for process in processes] == [0, 0], outputs
        with server.connect(DBNAME) as conn:
            assert conn.execute("SELECT count(*) FROM property_listings").fetchone() == (5,)
            meta = dict(conn.execute("SELECT key, value FROM vmk_meta").fetchall())
        assert meta["ready"] == "1"
        # One of them built it: the other found it ready.
        assert sum("creating embedded database" in output for output in outputs) == 1, outputs
    finally:
        with server.connect("postgres") as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{DBNAME}" WITH (FORCE)')
