"""CollisionManager against trimesh's (FCL) where FCL is right (convex parts well apart or well
overlapping), and against exact answers where it is not (a part swallowed by a non-convex
one, which FCL's surface test does not see)."""

import gc
import importlib.util
import itertools

import numpy as np
import pytest
import trimesh
from trimesh.collision import CollisionManager as FclManager

import meshclash as mc
from meshclash.collision import _as_mesh, _prepared

# Only the comparisons with trimesh's manager need python-fcl; the rest run without it.
needs_fcl = pytest.mark.skipif(
    importlib.util.find_spec("fcl") is None, reason="python-fcl is not installed: the FCL comparisons need it"
)


def scene(seed, n=6):
    """Convex parts (boxes, spheres, cylinders; trimesh hands FCL convex shapes, answered by
    GJK, which is right for them) at random rigid poses."""
    rng = np.random.default_rng(seed)
    parts = []
    for k in range(n):
        kind = k % 3
        if kind == 0:
            m = trimesh.creation.box(extents=rng.uniform(0.5, 2.0, 3))
        elif kind == 1:
            m = trimesh.creation.icosphere(subdivisions=2, radius=rng.uniform(0.3, 1.0))
        else:
            m = trimesh.creation.cylinder(radius=rng.uniform(0.2, 0.8), height=rng.uniform(0.5, 2.0))
        t = trimesh.transformations.random_rotation_matrix(rng.random(3))
        t[:3, 3] = rng.uniform(-3, 3, 3)
        parts.append((f"p{k}", m, t))
    return parts


def well_decided(parts):
    """No pair near touching (FCL's float tests and GJK's tolerance are right away from it):
    every pair's solid distance is 0 with a vertex or curve well inside, or above 1e-2."""
    for (_, ma, ta), (_, mb, tb) in itertools.combinations(parts, 2):
        d = mc.solid_distance(ma, mb, ta, tb).solid_distance
        if 0 < d < 1e-2:
            return False
        if d == 0:
            # Overlapping by a margin: still overlapping when B is moved 1e-2 in any axis.
            for axis in np.eye(3):
                t = tb.copy()
                t[:3, 3] += 1e-2 * axis
                if not mc.interferes(ma, mb, ta, t):
                    return False
    return True


SEEDS = [s for s in range(40) if well_decided(scene(s))][:8]


def managers(parts, backend):
    ours, theirs = mc.CollisionManager(backend=backend), FclManager()
    for name, m, t in parts:
        ours.add_object(name, m, t)
        theirs.add_object(name, m, t)
    return ours, theirs


def test_enough_scenes():
    assert len(SEEDS) >= 5


@needs_fcl
@pytest.mark.parametrize("seed", SEEDS)
def test_collisions_equal_fcl_where_fcl_is_right(seed, backend):
    parts = scene(seed)
    ours, theirs = managers(parts, backend)
    assert ours.in_collision_internal() == theirs.in_collision_internal()
    assert ours.in_collision_internal(return_names=True) == theirs.in_collision_internal(return_names=True)
    # One part against the rest, and one manager against another.
    name, m, t = parts[0]
    rest_ours, rest_theirs = managers(parts[1:], backend)
    assert rest_ours.in_collision_single(m, t, return_names=True) == rest_theirs.in_collision_single(m, t, return_names=True)
    first_ours, first_theirs = managers(parts[:3], backend)
    second_ours, second_theirs = managers(parts[3:], backend)
    assert first_ours.in_collision_other(second_ours, return_names=True) == first_theirs.in_collision_other(
        second_theirs, return_names=True
    )


def apart(parts):
    """The parts that interfere with no other: FCL's distance of overlapping convex parts is a
    penetration estimate, not 0."""
    return [p for p in parts if not any(mc.interferes(p[1], q[1], p[2], q[2]) for q in parts if q is not p)]


DISTANCE_SEEDS = [s for s in SEEDS if len(apart(scene(s))) >= 3]


def test_enough_distance_scenes():
    assert len(DISTANCE_SEEDS) >= 3


@needs_fcl
@pytest.mark.parametrize("seed", DISTANCE_SEEDS)
def test_distances_equal_fcl_where_fcl_is_right(seed):
    apart_parts = apart(scene(seed))
    ours, theirs = managers(apart_parts, "cpu")
    d, names = ours.min_distance_internal(return_names=True)
    fd, fnames = theirs.min_distance_internal(return_names=True)
    # Vertices are float32 in meshclash, float64 in FCL: they differ by a float32 rounding.
    assert d == pytest.approx(fd, rel=1e-5, abs=1e-6) and names == fnames
    name, m, t = apart_parts[0]
    rest_ours, rest_theirs = managers(apart_parts[1:], "cpu")
    d, near = rest_ours.min_distance_single(m, t, return_name=True)
    fd, fnear = rest_theirs.min_distance_single(m, t, return_name=True)
    assert d == pytest.approx(fd, rel=1e-5, abs=1e-6) and near == fnear
    first_ours, first_theirs = managers(apart_parts[:2], "cpu")
    second_ours, second_theirs = managers(apart_parts[2:], "cpu")
    d, names = first_ours.min_distance_other(second_ours, return_names=True)
    fd, fnames = first_theirs.min_distance_other(second_theirs, return_names=True)
    assert d == pytest.approx(fd, rel=1e-5, abs=1e-6) and names == fnames


def ring_and_box(x):
    """A thick ring (annulus r 1..3, height 2: not convex, so FCL tests its surface) and a
    0.2 box centred at (x, 0, 0)."""
    ring = trimesh.creation.annulus(r_min=1, r_max=3, height=2)
    assert not ring.is_convex
    t = np.eye(4)
    t[0, 3] = x
    return ring, trimesh.creation.box(extents=(0.2, 0.2, 0.2)), t


def test_a_part_swallowed_by_another_collides(backend):
    """The box inside the ring's wall: no surfaces meet, the solids overlap. FCL answers no
    collision and a distance of 0.886 (to the surface); the exact answer is a collision at
    distance 0."""
    ring, box, t = ring_and_box(2.0)
    ours = mc.CollisionManager(backend=backend)
    ours.add_object("ring", ring)
    hit, names, data = ours.in_collision_single(box, t, return_names=True, return_data=True)
    assert hit and names == {"ring"}
    (c,) = data
    assert c.names == {"ring", "__external"} and c.depth is None
    assert np.allclose(np.abs(c.point - [2, 0, 0]), 0.1, rtol=0, atol=1e-7)  # a corner of the box
    # No surfaces meet: the triangles are those nearest the corner, the box's one of its own.
    box_tri, ring_tri = c.index("__external"), c.index("ring")
    assert isinstance(box_tri, int) and isinstance(ring_tri, int)
    mb = mc.Mesh(box)
    assert np.any(np.all(mb.vertices[mb.faces[box_tri]] + [2, 0, 0] == c.point, axis=1))
    assert ring_tri == mc.closest_points(ring, [c.point])["triangle"][0]
    n = trimesh.triangles.normals(ring.triangles[[ring_tri]])[0][0]
    assert np.allclose(c.normal, n, rtol=0, atol=1e-6) and abs(np.linalg.norm(c.normal) - 1) < 1e-12
    d, near, dd = ours.min_distance_single(box, t, return_name=True, return_data=True)
    assert d == 0.0 and near == "ring" and dd.distance == 0.0
    # trimesh's types: (3,) points, int indices; the same witness point for both.
    assert np.array_equal(dd.point("ring") - dd.point("__external"), [0, 0, 0])
    assert np.array_equal(dd.point("ring"), c.point)
    assert (dd.index("__external"), dd.index("ring")) == (box_tri, ring_tri)
    # The same two in one manager, and a box swallowed by a box.
    ours.add_object("box", box, t)
    assert ours.in_collision_internal(return_names=True) == (True, {("box", "ring")})
    assert ours.min_distance_internal() == 0.0
    big = mc.CollisionManager(backend=backend)
    big.add_object("big", trimesh.creation.box(extents=(4, 4, 4)))
    assert big.in_collision_single(box, t)
    # Outside the ring (x = 5): 5 - 0.1 - 3 = 1.9 to the outer wall's vertex at angle 0.
    ring, box, t = ring_and_box(5.0)
    far = mc.CollisionManager(backend=backend)
    far.add_object("ring", ring)
    assert not far.in_collision_single(box, t)
    assert far.min_distance_single(box, t) == pytest.approx(1.9, abs=1e-7)


def test_contact_and_distance_data_match_check(backend):
    a = trimesh.creation.box(extents=(1, 1, 1))
    t = np.eye(4)
    t[:3, 3] = (0.7, 0.2, 0.1)
    ours = mc.CollisionManager(backend=backend)
    ours.add_object("a", a)
    ours.add_object("b", a, t)
    hit, names, data = ours.in_collision_internal(return_names=True, return_data=True)
    r = mc.check(a, a, transform_b=t, pairs=True, backend=backend)
    assert hit and names == {("a", "b")}
    assert sorted((c.index("a"), c.index("b")) for c in data) == sorted(map(tuple, r.pairs.tolist()))
    for c in data:
        # Each point lies in both boxes (the overlap is [0.2, 0.5] x [-0.3, 0.5] x [-0.4, 0.5]).
        assert np.all(c.point >= [0.2 - 1e-7, -0.3 - 1e-7, -0.4 - 1e-7]) and np.all(c.point <= 0.5 + 1e-7)
        assert abs(np.linalg.norm(c.normal) - 1) < 1e-12 and c.depth is None
    # Interfering parts' DistanceData: the first intersecting pair and a point of its contact.
    d, names, dd = ours.min_distance_internal(return_names=True, return_data=True)
    assert d == 0.0 and names == ("a", "b") and dd.distance == 0.0
    assert (dd.index("a"), dd.index("b")) == tuple(r.pairs[0])
    assert isinstance(dd.index("a"), int) and isinstance(dd.index("b"), int)
    assert np.array_equal(dd.point("a") - dd.point("b"), [0, 0, 0])
    assert np.array_equal(dd.point("a"), data[0].point)
    t[0, 3] = 1.5
    ours.set_transform("b", t)
    assert not ours.in_collision_internal()
    d, names, dd = ours.min_distance_internal(return_names=True, return_data=True)
    assert d == 0.5 and names == ("a", "b") and dd.distance == 0.5
    assert np.linalg.norm(dd.point("a") - dd.point("b")) == 0.5
    assert dd.point("a")[0] == 0.5 and dd.point("b")[0] == 1.0
    s = mc.check(a, a, transform_b=t)
    assert (dd.index("a"), dd.index("b")) == (s.triangle_a, s.triangle_b)


def test_manager_bookkeeping():
    box = trimesh.creation.box()
    m = mc.CollisionManager(backend="cpu")
    assert m.in_collision_internal() is False
    assert m.min_distance_internal() == np.inf
    assert m.min_distance_single(box, return_name=True) == (np.inf, None)
    # No pair: names as trimesh gives them, a pair of None, so that they still unpack.
    assert m.min_distance_internal(return_names=True, return_data=True) == (np.inf, (None, None), None)
    assert m.min_distance_other(mc.CollisionManager(), return_names=True) == (np.inf, (None, None))
    m.add_object("a", box)
    m.add_object("b", box)
    assert m.in_collision_internal(return_names=True) == (True, {("a", "b")})
    m.add_object("b", box, np.array([[1, 0, 0, 3], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1.0]]))  # replaced
    assert m.in_collision_internal() is False
    assert m.min_distance_internal(name="a") == 2.0
    m.remove_object("b")
    with pytest.raises(ValueError, match="b not in collision manager"):
        m.remove_object("b")
    with pytest.raises(ValueError, match="c not in collision manager"):
        m.set_transform("c", np.eye(4))
    with pytest.raises(ValueError, match="scaling and shear are not supported"):
        m.add_object("c", box, np.diag([2.0, 2, 2, 1]))
    with pytest.raises(ValueError, match="backend must be cpu, gpu or auto"):
        mc.CollisionManager(backend="fpga")
    # A trimesh is prepared once while unchanged, again once edited.
    t = trimesh.creation.icosphere()
    assert _as_mesh(t) is _as_mesh(t)
    before = _as_mesh(t)
    t.vertices = t.vertices * 2
    assert _as_mesh(t) is not before and _as_mesh(t).info()["bbox_max"][0] == pytest.approx(2.0)


def test_distances_beyond_float64_are_refused():
    """Parts farther apart than float64 holds: ``inf`` is what the manager gives where there is
    nothing to measure, so a distance that overflowed is refused, as ``solid_distance`` refuses
    it (it came back ``inf`` with a name; a review's helper)."""
    box = trimesh.creation.box()
    far = lambda x: np.array([[1, 0, 0, x], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1.0]])  # noqa: E731
    m = mc.CollisionManager(backend="cpu")
    m.add_object("a", box, far(-1.7e308))
    with pytest.raises(ValueError, match="farther apart than the largest f64"):
        m.min_distance_single(box, far(1.7e308), return_name=True)
    m.add_object("b", box, far(1.7e308))
    with pytest.raises(ValueError, match="farther apart than the largest f64"):
        m.min_distance_internal()
    # Within f64, the nearest object, b, is 7e307 away.
    assert m.min_distance_single(box, far(1e308), return_name=True) == (pytest.approx(7e307), "b")


class Plain:
    """A mesh that is not a trimesh: its hash is its identity, whatever its arrays."""

    def __init__(self, vertices, faces):
        self.vertices, self.faces = vertices, faces


def test_objects_other_than_trimesh_are_prepared_anew_each_call():
    box = trimesh.creation.box()
    m = mc.CollisionManager(backend="cpu")
    m.add_object("box", box)
    moving = Plain(box.vertices.copy(), box.faces.copy())
    assert m.in_collision_single(moving)
    moving.vertices = moving.vertices + [5, 0, 0]  # replaced: the hash stays
    assert not m.in_collision_single(moving) and m.min_distance_single(moving) == 4.0
    moving.vertices -= [5, 0, 0]  # edited in place
    assert m.in_collision_single(moving) and m.min_distance_single(moving) == 0.0
    assert not any(ref() is moving for ref, _, _ in _prepared.values())
    # A trimesh edited in place is prepared again too (its hash follows its data).
    t = trimesh.creation.box()
    assert m.in_collision_single(t)
    t.vertices[:, 0] += 5
    assert not m.in_collision_single(t) and m.min_distance_single(t) == 4.0


def test_one_cache_entry_per_live_trimesh():
    gc.collect()  # trimesh objects of other tests, gone but in reference cycles
    entries = len(_prepared)
    t = trimesh.creation.icosphere()
    for k in range(20):
        t.vertices = t.vertices + [1, 0, 0]
        assert _as_mesh(t).info()["bbox_max"][0] == pytest.approx(k + 2)
    assert len(_prepared) == entries + 1
    del t
    gc.collect()
    assert len(_prepared) == entries


def test_the_managers_functions_refuse_lists_that_do_not_pair_up():
    """interfering_pairs and nearest_pair (the work under CollisionManager, public in the
    stubs) took three meshes with two transforms by leaving one out, and meshes_b without
    transforms_b by testing the first list against itself (a hunt's helper)."""
    from meshclash import _meshclash

    a = mc.Mesh(*trimesh_box())
    eye = np.eye(4)
    with pytest.raises(ValueError, match="3 meshes and 2 transforms"):
        _meshclash.interfering_pairs([a, a, a], [eye, eye], None, None, False, "cpu")
    with pytest.raises(ValueError, match="meshes_b and transforms_b go together"):
        _meshclash.nearest_pair([a, a], [eye, eye], [a], None, "cpu")
    assert _meshclash.interfering_pairs([a, a], [eye, eye], None, None, False, "cpu") == [(0, 1)]


def trimesh_box():
    b = trimesh.creation.box()
    return b.vertices, b.faces


def boxes_scene(seed, n):
    """`n` small boxes at random rigid poses in a region where several touch or overlap."""
    rng = np.random.default_rng(seed)
    parts = []
    for k in range(n):
        t = trimesh.transformations.random_rotation_matrix(rng.random(3))
        t[:3, 3] = rng.uniform(-4, 4, 3)
        parts.append((f"b{k}", trimesh.creation.box(extents=rng.uniform(0.2, 1.2, 3)), t))
    return parts


@pytest.mark.parametrize("seed", range(3))
def test_many_parts_equal_every_pair_measured(seed):
    """The manager's sweep over the parts' boxes (it listed every pair before: 1.7 GB for
    12 000 parts, a review's helper) finds what measuring every pair finds: the interfering
    pairs, and the nearest pair within one list, between two and from one part."""
    parts = boxes_scene(seed, 40)
    meshes = {name: mc.Mesh(m) for name, m, _ in parts}
    poses = {name: t for name, _, t in parts}
    names = list(meshes)
    pairs = list(itertools.combinations(names, 2))

    def solid(x, y):
        return mc.solid_distance(meshes[x], meshes[y], poses[x], poses[y]).solid_distance

    distance = {p: solid(*p) for p in pairs}
    ours = mc.CollisionManager(backend="cpu")
    for name in names:
        ours.add_object(name, meshes[name], poses[name])
    hit, found = ours.in_collision_internal(return_names=True)
    want = {p for p in pairs if distance[p] == 0}
    # The manager names a pair in sorted order, as trimesh's does.
    assert want and hit and found == {tuple(sorted(p)) for p in want}
    # Apart: the same scene less one part of each interfering pair.
    dropped = {p[1] for p in want}
    apart = [n for n in names if n not in dropped]
    loose = mc.CollisionManager(backend="cpu")
    for name in apart:
        loose.add_object(name, meshes[name], poses[name])
    d, near = loose.min_distance_internal(return_names=True)
    best = min((distance[p], p) for p in itertools.combinations(apart, 2))
    assert d == best[0] and set(near) == set(best[1])
    # Two managers: the first half against the second.
    first, second = mc.CollisionManager(backend="cpu"), mc.CollisionManager(backend="cpu")
    for name in apart[: len(apart) // 2]:
        first.add_object(name, meshes[name], poses[name])
    for name in apart[len(apart) // 2 :]:
        second.add_object(name, meshes[name], poses[name])
    d, (x, y) = first.min_distance_other(second, return_names=True)
    across = [(solid(a, b), (a, b)) for a in apart[: len(apart) // 2] for b in apart[len(apart) // 2 :]]
    assert (d, (x, y)) == min(across)
    assert first.in_collision_other(second) == any(v == 0 for v, _ in across)
    # One part against a manager.
    one = apart[0]
    d, name = second.min_distance_single(meshes[one], poses[one], return_name=True)
    assert (d, name) == min((solid(one, b), b) for b in apart[len(apart) // 2 :])


def test_units_are_warned_of_in_every_query_by_one_name_each():
    """Parts whose files declare different units are compared as they are: the manager warns,
    in every query that compares them (two managers whose parts share a name too), pointing
    at the caller's line, and takes "mm" and "millimeters" for one unit (a review's helper:
    the single and other queries were silent, and trimesh's units were dropped)."""
    import warnings

    def box(unit):
        m = trimesh.creation.box()
        m.units = unit
        return m

    far = np.eye(4)
    far[0, 3] = 5.0
    first, second = mc.CollisionManager(backend="cpu"), mc.CollisionManager(backend="cpu")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        first.add_object("part", box("millimeters"))
        first.add_object("other", box("mm"), far)
        first.in_collision_single(box("MM"))
    second.add_object("part", box("inch"))
    calls = [
        lambda: first.in_collision_other(second),
        lambda: first.min_distance_other(second),
        lambda: first.in_collision_single(box("inch")),
        lambda: first.min_distance_single(box("inch")),
        lambda: first.add_object("third", box("inch"), far),
    ]
    for call in calls:
        with pytest.warns(UserWarning, match="declares its unit as") as caught:
            call()
        assert caught[0].filename == __file__
    assert mc.Mesh(box("inch")).unit == "inch"
