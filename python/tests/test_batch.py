"""The batch queries (points, rays, spheres, poses, sweeps) on a unit cube, where every answer
is worked by hand, on both backends; and the command line's columns on a real mesh."""

import numpy as np
import pytest
import trimesh

import meshclash as mc
from conftest import CASES, load_case_mesh
from test_inputs import box, translation

CUBE = mc.Mesh(*box((-0.5, -0.5, -0.5), (0.5, 0.5, 0.5)))
SHIFT = translation(10, 0, 0)  # every query below also run with the cube moved by +10 in x


@pytest.mark.parametrize("moved", [False, True])
def test_winding_numbers_and_inside(backend, moved):
    t, dx = (SHIFT, 10) if moved else (None, 0)
    pts = np.array([[0, 0, 0], [0.49, 0.3, -0.2], [2, 0, 0], [0, 0, -0.51]]) + [dx, 0, 0]
    w = mc.winding_numbers(CUBE, pts, transform=t, backend=backend)
    assert w["winding"].tolist() == [1, 1, 0, 0] and w["bound"].tolist() == [0, 0, 0, 0]
    assert w["inside"].tolist() == [True, True, False, False] and w["certain"].all()
    assert mc.inside(CUBE, pts, transform=t, backend=backend).tolist() == [True, True, False, False]


def test_closest_points(backend):
    pts = np.array([[2, 0, 0], [0, 0, 0.2], [1.5, 1.5, 0.5]])
    c = mc.closest_points(CUBE, pts, signed=True, backend=backend)
    assert c["distance"].tolist() == [1.5, -0.3, np.sqrt(2)]
    assert c["point"].tolist() == [[0.5, 0, 0], [0, 0, 0.5], [0.5, 0.5, 0.5]]
    assert set(c["triangle"][:2]) <= {2, 3, 10, 11}  # the x1 and z1 faces
    limited = mc.closest_points(CUBE, pts, max_distance=1.45, backend=backend)
    assert np.isnan(limited["distance"][0]) and limited["triangle"][0] == -1
    assert limited["distance"][1] == 0.3


def test_ray_hits(backend):
    o = np.array([[-2, 0.1, 0.2], [-2, 0.1, 0.2], [-2, 3, 0], [0, 0, 0]])
    d = np.array([[1, 0, 0], [2, 0, 0], [1, 0, 0], [0, 0, 1]])
    first = mc.ray_hits(CUBE, o, d, backend=backend)
    assert first["hit"].tolist() == [True, True, False, True]
    assert first["t"][[0, 1, 3]].tolist() == [1.5, 0.75, 0.5] and np.isnan(first["t"][2])
    assert first["point"][0].tolist() == [-0.5, 0.1, 0.2]
    assert first["front"].tolist() == [True, True, False, False]  # from inside: a back face
    every = mc.ray_hits(CUBE, o, d, hits="all", backend=backend)
    assert every["ray"].tolist() == [0, 0, 1, 1, 3]
    assert every["t"].tolist() == [1.5, 2.5, 0.75, 1.25, 0.5]
    short = mc.ray_hits(CUBE, o, d, max_t=1.0, hits="any", backend=backend)
    assert short["hit"].tolist() == [False, True, False, True]
    assert list(short) == ["hit"]  # as the command line: whichever hit came first is no answer
    with pytest.raises(ValueError, match="directions: row 1 has a zero direction"):
        mc.ray_hits(CUBE, o[:2], [[1, 0, 0], [0, 0, 0]])
    with pytest.raises(ValueError, match='hits must be "first", "any" or "all"'):
        mc.ray_hits(CUBE, o, d, hits="some")


def test_spheres(backend):
    c = mc.sphere_contacts(CUBE, [[2, 0, 0], [0, 0, 0], [0.9, 0, 0]], [0.5, 0.1, 0.4], backend=backend)
    assert c["touches"].tolist() == [False, True, True]
    assert c["gap"].tolist() == pytest.approx([1.0, -0.6, 0.0], abs=1e-15)
    s = mc.sphere_sweeps(CUBE, [[3, 0, 0], [3, 2, 0]], 0.5, [[-4, 0, 0], [-4, 0, 0]], backend=backend)
    assert s["contact"].tolist() == [True, False] and s["decided"].all()
    assert s["toi"][0] == pytest.approx(0.5, abs=1e-8) and np.isnan(s["toi"][1])
    assert s["point"][0] == pytest.approx([0.5, 0, 0], abs=1e-8)
    with pytest.raises(ValueError, match="row 1 has a negative radius"):
        mc.sphere_contacts(CUBE, [[0, 0, 0], [1, 1, 1]], [1, -1])


def test_sphere_touching_lists_each_triangle_as_the_cli(tmp_path, cli):
    # Above the top face (z = 0.5, its two triangles meeting along a diagonal through the
    # centre) at exactly its radius: both touched; a hair less, none; wholly inside: none,
    # though it touches as a solid; at a corner: the six triangles round it (hand-counted).
    centers = [[0, 0, 2], [0, 0, 2], [0, 0, 0], [0.5, 0.5, 0.5]]
    radii = [1.5, np.nextafter(1.5, 0), 0.1, 1e-3]
    t = mc.sphere_touching(CUBE, centers, radii)
    pairs = list(zip(t["sphere"].tolist(), t["triangle"].tolist()))
    assert [p[0] for p in pairs] == [0, 0, 3, 3, 3, 3, 3, 3]
    assert pairs == sorted(pairs)
    assert mc.sphere_contacts(CUBE, centers, radii)["touches"].tolist() == [True, False, True, True]
    rows = tmp_path / "s.npy"
    np.save(rows, np.column_stack([np.array(centers, float), radii]))
    mesh = tmp_path / "cube.stl"
    trimesh.Trimesh(CUBE.vertices, CUBE.faces, process=False).export(mesh)  # rows kept
    cli("spheres", mesh, rows, "--contacts", "--out", tmp_path / "t.csv", "--json")
    table = np.genfromtxt(tmp_path / "t.csv", delimiter=",", names=True, dtype=np.int64)
    assert list(zip(table["sphere"].tolist(), table["triangle"].tolist())) == pairs


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_rows_that_are_not_finite_are_refused(bad):
    """As the command line refuses them: answered, a NaN point came back outside, and one
    with no triangle within reach."""
    row = [[0, 0, 0], [bad, 0, 0]]
    for call in (
        lambda: mc.winding_numbers(CUBE, row),
        lambda: mc.closest_points(CUBE, row),
        lambda: mc.ray_hits(CUBE, row, [[1, 0, 0], [1, 0, 0]]),
        lambda: mc.ray_hits(CUBE, [[0, 0, 0], [0, 0, 0]], row),
        lambda: mc.sphere_contacts(CUBE, row, 0.1),
        lambda: mc.sphere_sweeps(CUBE, [[2, 0, 0], [3, 0, 0]], 0.1, row),
    ):
        with pytest.raises(ValueError, match="row 1 holds .*, not a finite number"):
            call()
    with pytest.raises(ValueError, match="radii: row 0 holds"):
        mc.sphere_contacts(CUBE, [[0, 0, 0]], [bad])
    # Radii of the wrong shape, or none, are named as such (not as a scalar's shape, or NaN).
    with pytest.raises(ValueError, match=r"radii must have shape \(N,\), got \(2, 1\)"):
        mc.sphere_contacts(CUBE, [[0, 0, 0], [2, 0, 0]], np.array([[0.1], [0.2]]))
    with pytest.raises(ValueError, match="radii must be a number or an array of shape"):
        mc.sphere_contacts(CUBE, [[0, 0, 0]], None)
    if bad == np.inf:
        with pytest.raises(ValueError, match="tolerance must be finite"):
            mc.sphere_sweeps(CUBE, [[2, 0, 0]], 0.1, [[1, 0, 0]], tolerance=bad)


def test_a_move_ending_beyond_float64_is_refused(backend):
    """A sphere whose centre plus displacement overflows could only be undecided: refused,
    naming its row, as the command line refuses it; a move from 1e308 to the origin is not."""
    with pytest.raises(ValueError, match="row 1: the move's end"):
        mc.sphere_sweeps(CUBE, [[0, 0, 5], [1.7e308, 0, 0]], 0.5, [[0, 0, -1], [1.7e308, 0, 0]],
                         backend=backend)
    s = mc.sphere_sweeps(CUBE, [[1e308, 0, 0]], 0.5, [[-1e308, 0, 0]], backend=backend)
    assert s["contact"][0] and s["decided"][0]
    assert 1 - 1e-13 < s["toi"][0] <= 1


def test_distances_beyond_float64_are_refused(backend):
    """A point at the largest float64 has a nearest triangle but no distance that float64
    holds: refused by row, as the command line refuses it (it came back NaN and -1, as if
    nothing were within reach, or as inf at a real triangle)."""
    big = np.finfo(float).max
    rows = [[0, 0, 0], [big, big, big]]
    with pytest.raises(ValueError, match="row 1: its distance to the mesh overflows f64"):
        mc.closest_points(CUBE, rows, backend=backend)
    with pytest.raises(ValueError, match="row 1: its distance to the mesh overflows f64"):
        mc.sphere_contacts(CUBE, rows, 0.0, backend=backend)
    # With a limit, the far point is simply not within it.
    limited = mc.closest_points(CUBE, rows, max_distance=10.0, backend=backend)
    assert limited["triangle"][1] == -1 and limited["distance"][0] == 0.5


def test_poses_farther_apart_than_float64_are_refused(backend):
    """As the command line, ``check`` and ``solid_distance`` refuse them: ``poses`` answered
    ``inf`` with triangles and points filled in (a review's helper)."""
    ta, tb = translation(-1.7e308, 0, 0), translation(1.7e308, 0, 0)
    with pytest.raises(ValueError, match="pose 0 places the parts farther apart than the largest f64"):
        mc.poses(CUBE, CUBE, tb[None], transform_a=ta, backend=backend)


def test_poses_equal_one_call_each(backend):
    ts = np.stack([translation(x, 0, 0) for x in (0.5, 1.0, 2.0, 0.0)])
    p = mc.poses(CUBE, CUBE, ts, clearance=0.1, backend=backend)
    assert p["interferes"].tolist() == [True, True, False, True]
    assert p["distance"].tolist() == [0, 0, 1, 0]
    assert p["evidence"][2] is None and p["triangle_a"][0] == -1
    for k, t in enumerate(ts):
        s = mc.solid_distance(CUBE, CUBE, transform_b=t)
        assert s.solid_distance == p["distance"][k] and s.evidence == p["evidence"][k]
        c = mc.check(CUBE, CUBE, transform_b=t, clearance=0.1)
        assert c.clearance_pair_count == p["clearance_pairs"][k]
    assert p["point_a"][2].tolist() == [0.5, -0.5, -0.5] or p["point_a"][2][0] == 0.5
    with pytest.raises(ValueError, match=r"transforms_b\[1\]: invalid pose"):
        mc.poses(CUBE, CUBE, np.stack([np.eye(4), 2 * np.eye(4)]))
    # As the command line reads a poses file: rows of 16, row-major, and a single 4x4.
    rows = mc.poses(CUBE, CUBE, ts.reshape(-1, 16), backend=backend)
    assert rows["distance"].tolist() == p["distance"].tolist()
    one = mc.poses(CUBE, CUBE, ts[2], backend=backend)
    assert one["distance"].tolist() == [1.0]
    with pytest.raises(ValueError, match=r"must have shape \(K, 4, 4\), \(K, 16\) or \(4, 4\), got \(3, 3\)"):
        mc.poses(CUBE, CUBE, np.eye(3))


def test_sweep_first_contact():
    # B from x = 3 to x = -3: its face reaches A's at x = 1, time 1/3.
    path = np.stack([translation(3, 0, 0), translation(-3, 0, 0)])
    r = mc.sweep(CUBE, CUBE, path)
    assert r["contact"] and r["complete"] and r["segment"] == 0
    assert r["time"] == pytest.approx(1 / 3, abs=r["tolerance"])
    assert r["time"] <= 1 / 3 and 0 <= r["distance"] <= r["tolerance"]
    missed = mc.sweep(CUBE, CUBE, np.stack([translation(3, 2, 0), translation(-3, 2, 0)]), times=[0, 1])
    assert not missed["contact"] and missed["min_distance"] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="at least two waypoints"):
        mc.sweep(CUBE, CUBE, path[:1])
    with pytest.raises(ValueError, match="^times needs 2 increasing numbers"):
        mc.sweep(CUBE, CUBE, path, times=[0, 0.5])


def test_sweep_farther_apart_than_float64_is_refused():
    """As the command line and ``poses`` refuse it (a review's helper: a dict came back whose
    ``min_distance_bound`` of inf said no contact could happen)."""
    far = np.stack([translation(1.5e308, 1.5e308, 0), translation(1.5e308, 1.5e308, 1)])
    with pytest.raises(ValueError, match="the path places the parts farther apart than the largest f64"):
        mc.sweep(CUBE, CUBE, far)
    # Through A from 1e308 to -1e308: the move is beyond float64, the poses are not; no step
    # can be bounded, so the path is refused, as the command line refuses it (it had come
    # back "no contact, incomplete" after one step).
    through = np.stack([translation(1e308, 0, 0), translation(-1e308, 0, 0)])
    with pytest.raises(ValueError, match="the move from waypoint 0 to 1 is beyond f64"):
        mc.sweep(CUBE, CUBE, through)


def test_points_on_a_real_mesh_equal_the_cli(tmp_path, cli):
    """inside and closest on the bunny, against the command line's --out columns."""
    m = load_case_mesh("meshes/stanford_bunny.stl")
    lo, hi = np.array(m.info()["bbox_min"]), np.array(m.info()["bbox_max"])
    pts = np.random.default_rng(7).uniform(lo, hi, (300, 3))
    np.save(tmp_path / "p.npy", pts)
    cli("inside", CASES / "meshes/stanford_bunny.stl", tmp_path / "p.npy", "--out", tmp_path / "w.csv", "--json")
    got = mc.winding_numbers(m, pts)
    want = np.genfromtxt(tmp_path / "w.csv", delimiter=",", names=True, dtype=None, encoding="utf-8")
    assert np.array_equal(got["winding"], want["winding"]) and np.array_equal(got["bound"], want["bound"])
    assert want["inside"].dtype == bool and np.array_equal(got["inside"], want["inside"]) and got["inside"].any()
    cli("closest", CASES / "meshes/stanford_bunny.stl", tmp_path / "p.npy", "--out", tmp_path / "c.csv", "--json")
    got = mc.closest_points(m, pts)
    want = np.genfromtxt(tmp_path / "c.csv", delimiter=",", names=True)
    assert np.array_equal(got["distance"], want["distance"]) and np.array_equal(got["triangle"], want["triangle"])
