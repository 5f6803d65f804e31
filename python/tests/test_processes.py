"""Queries in processes forked from one that has answered queries already (multiprocessing's
"fork", Linux's default before Python 3.14, and PyTorch's data loaders). The child had none of
the parent's query threads and waited for them forever (a hunt's helper): now it answers as the
parent does, through a backend handle made by the parent too."""

import multiprocessing

import numpy as np
import pytest

import meshclash as mc

from conftest import CASES

TORUS = CASES / "meshes" / "torus.stl"
POINTS = np.array([[0.0, 0.0, 0.0], [3.0, 1.0, -2.0], [0.5, 0.25, 0.125]])


def answers(backend):
    """A few queries that run on the query threads: preparing a mesh, nearest points, a check."""
    m = mc.load(TORUS)
    near = mc.closest_points(m, POINTS, backend=backend)
    shifted = np.eye(4)
    shifted[0, 3] = 0.3
    check = mc.check(m, m, transform_b=shifted, clearance=0.01, backend=backend)
    return near["distance"].tolist(), near["triangle"].tolist(), check.pair_count, check.clearance_pair_count


def in_child(backend, out):
    out.send(answers(backend))
    out.close()


@pytest.mark.parametrize("handle", [False, True])
def test_a_forked_child_answers_as_its_parent(backend, handle):
    parent = answers(backend)  # the parent's threads (and GPU device) are made here
    # The parent's Backend object, carried into the child, answers there too.
    arg = mc.backend(backend) if handle else backend
    fork = multiprocessing.get_context("fork")
    receive, send = fork.Pipe(duplex=False)
    child = fork.Process(target=in_child, args=(arg, send))
    child.start()
    send.close()
    got = receive.recv() if receive.poll(120) else None
    child.join(10)
    if child.is_alive():
        child.kill()
    assert got == parent, "the forked child hung or answered otherwise"
    assert child.exitcode == 0
