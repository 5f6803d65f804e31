"""Queries in processes forked from one that has answered queries already (multiprocessing's
"fork", Linux's default before Python 3.14, and PyTorch's data loaders). The child had none of
the parent's query threads and waited for them forever (a hunt's helper): now it answers as the
parent does, through a backend handle made by the parent too."""

import multiprocessing
import os

import numpy as np
import pytest
import trimesh

import meshclash as mc

from conftest import CASES, gpu_available

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
    got, exitcode = from_fork(in_child, arg, wait=120)
    assert got == parent, "the forked child hung or answered otherwise"
    assert exitcode == 0


def from_fork(target, *args, wait):
    """What `target(*args, pipe)` sends from a forked child (None where it sends nothing within
    `wait` seconds: it is killed), and the child's exit code."""
    fork = multiprocessing.get_context("fork")
    receive, send = fork.Pipe(duplex=False)
    child = fork.Process(target=target, args=(*args, send))
    child.start()
    send.close()
    got = receive.recv() if receive.poll(wait) else None
    child.join(10)
    if child.is_alive():
        child.kill()
    return got, child.exitcode


def nearest_in_child(mesh, points, out):
    out.send(mc.closest_points(mesh, points, backend="cpu")["triangle"].tolist())
    out.close()


def test_a_child_forked_while_a_thread_makes_a_hierarchy_answers():
    """A child forked while another thread of the parent made a mesh's hierarchies (its first
    batch of nearest points) waited forever for that making, which no thread of the child
    would finish (a review's helper). Forked at several moments of the making (the binary
    hierarchy, its oriented boxes, their four-wide tree), each child answers as the parent."""
    import threading
    import time

    igea = trimesh.load(CASES / "meshes" / "igea.stl")
    vertices, faces = np.asarray(igea.vertices), np.asarray(igea.faces)
    points = np.random.default_rng(0).uniform(-0.5, 0.5, (200_000, 3))
    few = points[:100]
    for delay in [0.02, 0.1, 0.2, 0.3]:
        mesh = mc.Mesh(vertices, faces)  # nothing made yet
        making = threading.Thread(target=lambda: mc.closest_points(mesh, points, backend="cpu"))
        making.start()
        time.sleep(delay)
        got, _ = from_fork(nearest_in_child, mesh, few, wait=60)
        making.join()
        expected = mc.closest_points(mesh, few, backend="cpu")["triangle"].tolist()
        assert got == expected, f"forked {delay} s into the making: the child hung or answered otherwise"


def pickled_answers(mesh, backend):
    """The answers of a mesh and a backend that came through pickle."""
    near = mc.closest_points(mesh, POINTS, backend=backend)
    return near["distance"].tolist(), near["triangle"].tolist(), mesh.source, len(mesh)


def test_meshes_and_backends_pickle_for_spawned_processes(tmp_path):
    """"spawn" (macOS's and Windows's default) and "forkserver" pickle their arguments: a Mesh
    and a Backend could not be (a review's helper). A mesh comes back as the same triangles in
    the same order, with its source; a backend as the receiving process's of its kind."""
    import copy
    import pickle

    m = mc.load(TORUS)
    again = pickle.loads(pickle.dumps(m))
    assert np.array_equal(again.vertices, m.vertices) and np.array_equal(again.faces, m.faces)
    assert again.source == m.source and again.unit == m.unit and again.info() == m.info()
    assert pickle.loads(pickle.dumps(mc.backend("cpu"))) == mc.backend("cpu")
    for x in (m, mc.backend("cpu"), mc.check(m, m), mc.solid_distance(m, m), mc.self_intersections(m)):
        assert copy.copy(x) is x and copy.deepcopy(x) is x
    # A file's unit survives too (a GLB's is the meter).
    glb = tmp_path / "box.glb"
    trimesh.creation.box().export(glb)
    box = mc.load(glb)
    assert box.unit == "meter" and pickle.loads(pickle.dumps(box)).unit == "meter"
    spawn = multiprocessing.get_context("spawn")
    with spawn.Pool(1) as pool:
        got = pool.apply_async(pickled_answers, (m, mc.backend("cpu"))).get(120)
    assert got == pickled_answers(m, mc.backend("cpu"))


def test_ctrl_c_stops_a_long_batch_and_the_next_query_answers():
    """A KeyboardInterrupt (Ctrl-C, here SIGINT from a timer) stops a batch under way: it used
    to be raised only once the batch returned, minutes later for a large one. 200 000 poses of
    the bunny about igea take about a hundred times as long as 2 000 (measured here first); the
    interrupt, half a second in, returns long before a tenth of them could have been answered.
    The query after it answers in full (the stop is lowered)."""
    import os
    import signal
    import threading
    import time

    igea, bunny = mc.load(CASES / "meshes" / "igea.stl"), mc.load(CASES / "meshes" / "stanford_bunny.stl")
    rng = np.random.default_rng(11)
    poses = np.tile(np.eye(4), (200_000, 1, 1))
    poses[:, :3, 3] = rng.uniform(-60, 60, (len(poses), 3))
    few = poses[:2000]
    t0 = time.monotonic()
    whole = mc.poses(igea, bunny, few, backend="cpu")
    per_pose = (time.monotonic() - t0) / len(few)

    # Meanwhile another thread asks of a box inside another box, again and again: every
    # answer is right or raises (a review's helper: while the batch stopped, it was told
    # `False` 604 times, the stop being the process's).
    inner = mc.Mesh(*trimesh_box(1.0))
    outer = mc.Mesh(*trimesh_box(10.0))
    answers, done = [], threading.Event()

    def ask():
        while not done.is_set():
            try:
                answers.append(mc.interferes(outer, inner))
            except KeyboardInterrupt:
                answers.append("stopped")

    other = threading.Thread(target=ask)
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    other.start()
    t0 = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            mc.poses(igea, bunny, poses, backend="cpu")
        stopped_after = time.monotonic() - t0
    finally:
        timer.cancel()
        done.set()
        other.join()
    assert stopped_after < 0.1 * per_pose * len(poses), (stopped_after, per_pose)
    assert answers and all(a is True or a == "stopped" for a in answers), set(map(str, answers))
    again = mc.poses(igea, bunny, few, backend="cpu")
    assert again["distance"].tolist() == whole["distance"].tolist()


def interrupted_after(query, delay):
    """Seconds until `query()` raises KeyboardInterrupt, SIGINT sent `delay` seconds in."""
    import os
    import signal
    import threading
    import time

    timer = threading.Timer(delay, lambda: os.kill(os.getpid(), signal.SIGINT))
    t0 = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            query()
        return time.monotonic() - t0
    finally:
        timer.cancel()


def test_ctrl_c_stops_self_intersections_and_a_check_with_a_clearance():
    """`self_intersections` and `check` with a clearance ran to their end (seconds on meshes
    of a million triangles, minutes for a clearance in another unit) before raising the
    KeyboardInterrupt. Igea and three copies shifted by (13, 7, 11) thousandths cut each other
    in thousands of pairs; igea against such a copy within a clearance of 0.003 holds ten
    times the pairs of 0.001 (12.6 million against 0.8). Each stopped query returns well
    before its unstopped time, and the queries after answer in full."""
    import time

    mesh = trimesh.load(CASES / "meshes" / "igea.stl")
    v, f = np.asarray(mesh.vertices), np.asarray(mesh.faces)
    shift = np.array([0.013, 0.007, 0.011])

    def copies(k):
        return mc.Mesh(np.vstack([v + i * shift for i in range(k)]), np.vstack([f + i * len(v) for i in range(k)]))

    two, four = copies(2), copies(4)
    pairs_two = mc.self_intersections(two, backend="cpu").pair_count
    t0 = time.monotonic()
    mc.self_intersections(four, backend="cpu")
    whole = time.monotonic() - t0
    assert interrupted_after(lambda: mc.self_intersections(four, backend="cpu"), whole / 8) < whole / 2

    igea = mc.Mesh(v, f)
    moved = np.eye(4)
    moved[:3, 3] = shift
    t0 = time.monotonic()
    near = mc.check(igea, igea, transform_b=moved, clearance=0.001, backend="cpu")
    smaller = time.monotonic() - t0
    stopped = interrupted_after(
        lambda: mc.check(igea, igea, transform_b=moved, clearance=0.003, backend="cpu"), smaller / 4
    )
    assert stopped < smaller, (stopped, smaller)

    assert mc.self_intersections(two, backend="cpu").pair_count == pairs_two
    again = mc.check(igea, igea, transform_b=moved, clearance=0.001, backend="cpu")
    assert again.clearance_pair_count == near.clearance_pair_count


def test_ctrl_c_stops_a_gpu_batch_between_its_dispatches():
    """A GPU batch goes a million rows a dispatch; Ctrl-C waited for every dispatch (a review's
    helper: 25 s for four million nearest points on lavapipe, interrupted half a second in).
    Four million winding numbers about the torus, four dispatches: interrupted during the
    first, the batch stops once it returns, well before the others would have run."""
    import time

    if not gpu_available():
        if os.environ.get("MESHCLASH_REQUIRE_GPU") == "1":
            pytest.fail("MESHCLASH_REQUIRE_GPU=1 but no GPU adapter could be set up")
        pytest.skip("no GPU adapter")
    torus = mc.load(TORUS)
    points = np.random.default_rng(3).uniform(-1.5, 1.5, (4 << 20, 3))
    first = mc.winding_numbers(torus, points[:1000], backend="gpu")  # uploads, compiles
    t0 = time.monotonic()
    mc.winding_numbers(torus, points, backend="gpu")
    whole = time.monotonic() - t0
    stopped = interrupted_after(lambda: mc.winding_numbers(torus, points, backend="gpu"), whole / 16)
    assert stopped < 0.6 * whole, (stopped, whole)
    again = mc.winding_numbers(torus, points[:1000], backend="gpu")
    assert again["winding"].tolist() == first["winding"].tolist()


def trimesh_box(side):
    """An axis-aligned box of `side` about the origin, as (vertices, faces)."""
    b = trimesh.creation.box(extents=(side, side, side))
    return np.asarray(b.vertices), np.asarray(b.faces)
