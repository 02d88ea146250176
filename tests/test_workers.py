"""The suite's split over pytest-xdist workers keeps each file's tests together."""

from __future__ import annotations

import pytest


def test_this_test_runs_in_its_files_group(request):
    if not request.config.getoption("loadgroup", default=False):
        pytest.skip("not on pytest-xdist workers with --dist loadgroup")
    # xdist schedules by the group written into the node id; if it is missing (pytest 9.2
    # with xdist 3.8), a file's tests are spread over the workers and share nothing.
    assert request.node.nodeid.endswith("@tests/test_workers.py")
