"""Inputs: numpy and trimesh meshes, where float64 is rounded, triangle numbers, transforms,
errors with the command line's messages, and the GIL released during queries."""

import ast
import inspect
import re
import sys
import threading
import time
import warnings
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import trimesh

import meshclash as mc
from conftest import CASES, load_case_mesh


def box(lo, hi):
    """An axis-aligned box as (vertices, faces), faces outward, hand-written."""
    (x0, y0, z0), (x1, y1, z1) = lo, hi
    v = np.array([[x, y, z] for x in (x0, x1) for y in (y0, y1) for z in (z0, z1)], dtype=float)
    f = np.array([
        [0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5],  # x0 (rows 0, 1), x1 (rows 2, 3)
        [0, 4, 5], [0, 5, 1], [2, 3, 7], [2, 7, 6],  # y0, y1
        [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3],  # z0, z1
    ])
    return v, f


def translation(x, y, z):
    t = np.eye(4)
    t[:3, 3] = (x, y, z)
    return t


def test_hand_worked_distance_and_closest_points():
    # Two unit cubes 0.5 apart along x: distance 0.5, closest points on the facing faces.
    a = mc.Mesh(*box((0, 0, 0), (1, 1, 1)))
    r = mc.check(a, a, transform_b=translation(1.5, 0, 0))
    assert not r.intersects and not r.interferes and r.containment is None
    assert r.min_distance == 0.5
    assert r.closest_point_a[0] == 1.0 and r.closest_point_b[0] == 1.5
    assert np.array_equal(r.separation, r.closest_point_a - r.closest_point_b)
    assert r.triangle_a in (2, 3) and r.triangle_b in (0, 1)  # the x1 and x0 faces
    s = mc.solid_distance(a, a, transform_b=translation(1.5, 0, 0))
    assert s.solid_distance == 0.5 and s.evidence is None and s.triangle_a in (2, 3)
    assert not mc.interferes(a, a, transform_b=translation(1.5, 0, 0))
    # Touching faces intersect (a shared point is an intersection).
    assert mc.check(a, a, transform_b=translation(1, 0, 0)).intersects


def test_swallowed_box_interferes_without_intersecting():
    big, small = mc.Mesh(*box((0, 0, 0), (4, 4, 4))), mc.Mesh(*box((1, 1, 1), (2, 2, 2)))
    r = mc.check(big, small)
    assert not r.intersects and r.interferes and r.containment == "b_in_a"
    assert r.min_distance == 1.0
    assert mc.interferes(small, big)
    s = mc.solid_distance(small, big)
    assert s.solid_distance == 0.0 and s.evidence == "vertex_of_a_in_b"
    assert s.evidence_vertex is not None and np.all((s.evidence_point >= 1) & (s.evidence_point <= 2))


def test_triangle_numbers_are_rows_of_the_callers_faces():
    """Welding renumbers vertices, never triangles: an unwelded soup, its faces shuffled and
    with duplicate vertices, answers with the caller's rows."""
    va, fa = box((0, 0, 0), (1, 1, 1))
    vb, fb = box((0.5, 0.5, 0.5), (1.5, 1.5, 1.5))
    base = mc.check(mc.Mesh(va, fa), mc.Mesh(vb, fb), pairs=True)
    assert base.pair_count > 0
    # Soup: three vertices of its own per triangle, then the triangles shuffled.
    order = np.random.default_rng(1).permutation(len(fa))
    soup_v = va[fa[order]].reshape(-1, 3)
    soup_f = np.arange(len(soup_v)).reshape(-1, 3)
    m = mc.Mesh(soup_v, soup_f)
    assert len(m.vertices) == 8 and len(m) == 12  # welded
    shuffled = mc.check(m, mc.Mesh(vb, fb), pairs=True)
    got = {(int(order[i]), int(j)) for i, j in shuffled.pairs}
    assert got == {(int(i), int(j)) for i, j in base.pairs}
    # The mesh's faces, rows in the caller's order, name the same corners.
    assert np.array_equal(m.vertices[m.faces], va[fa[order]])


def test_float64_is_rounded_to_float32_once():
    v, f = box((0, 0, 0), (0.1, 0.1, 0.1))
    m = mc.Mesh(v, f)
    assert m.vertices.dtype == np.float64
    assert np.array_equal(m.vertices.max(axis=0), [np.float32(0.1)] * 3)
    assert m.info()["bbox_max"] == [float(np.float32(0.1))] * 3
    # Two float64 vertices one float32 apart no more are welded into one.
    v2 = np.vstack([v, v[7] + 1e-12])
    f2 = np.vstack([f, [[8, 0, 1]]])
    assert len(mc.Mesh(v2, f2).vertices) == 8
    # Poses stay float64: a translation of 1e-9 moves the part by 1e-9.
    a = mc.Mesh(*box((0, 0, 0), (1, 1, 1)))
    assert mc.check(a, a, transform_b=translation(1 + 1e-9, 0, 0)).min_distance == pytest.approx(1e-9, rel=1e-6)


def test_any_integer_and_float_dtypes():
    v, f = box((0, 0, 0), (1, 1, 1))
    want = mc.Mesh(v, f).info()
    for vt in (np.float32, np.float64, np.int64):
        for ft in (np.int32, np.uint32, np.int64, np.uint64, np.int16):
            assert mc.Mesh(v.astype(vt), f.astype(ft)).info() == want
    assert mc.Mesh(v.tolist(), f.tolist()).info() == want
    # Non-contiguous views.
    assert mc.Mesh(np.asfortranarray(v), f[:, :]).info() == want
    assert mc.Mesh(trimesh.Trimesh(v, f, process=False)).info() == want


def test_load_equals_arrays_of_the_file():
    m = load_case_mesh("meshes/torus.stl")
    # The source is a str, as the stub says: the path given, or what the mesh was made of.
    assert m.source == str(CASES / "meshes/torus.stl") and type(m.source) is str
    assert mc.Mesh(*box((0, 0, 0), (1, 1, 1))).source == "<arrays>"
    assert mc.Mesh(trimesh.creation.box()).source == "<Trimesh>"
    t = trimesh.load(CASES / "meshes/torus.stl", process=False)
    assert mc.Mesh(t).info() == m.info()
    assert np.array_equal(mc.Mesh(t).vertices[mc.Mesh(t).faces], m.vertices[m.faces])
    # A bytes path, as open() takes one (a review's helper: refused).
    assert mc.load(bytes(CASES / "meshes/torus.stl")).info() == m.info()


@pytest.mark.parametrize("vertices, faces, message", [
    (np.zeros((3, 2)), [[0, 1, 2]], r"vertices must have shape \(N, 3\), got \(3, 2\)"),
    (np.eye(3), [[0, 1, 3]], "face 0 refers to vertex 3, but there are 3 vertices"),
    (np.eye(3), [[0, -1, 2]], "face 0 refers to vertex -1"),
    # uint64 indices from 2^63 on, named as given (not wrapped to negative int64).
    (np.eye(3), np.array([[0, 1, 2**63 + 5]], dtype=np.uint64), "face 0 refers to vertex 9223372036854775813, "),
    (np.eye(3), np.array([[2**64 - 1, 1, 2]], dtype=np.uint64), "face 0 refers to vertex 18446744073709551615, "),
    (np.eye(3), [[0.0, 1.0, 2.0]], "faces must be integers"),
    (np.eye(3), [[True, False, True]], "faces must be integers"),
    (np.eye(3), [0, 1, 2], r"faces must have shape \(N, 3\), got \(3,\)"),
    ([[0, 0, np.nan], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]], r"vertex 0 has a non-finite coordinate \(NaN\)"),
    ([[0, 0, 1e39], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]], "beyond float32's range"),
    (np.eye(3), np.zeros((0, 3), dtype=int), "<arrays>: the mesh has no triangles"),
])
def test_bad_meshes_raise_value_error(vertices, faces, message):
    with pytest.raises(ValueError, match=message):
        mc.Mesh(vertices, faces)


def test_not_a_mesh():
    with pytest.raises(ValueError, match="with .vertices and .faces, got int"):
        mc.Mesh(3)
    with pytest.raises(ValueError, match="with .vertices and .faces"):
        mc.check(3, 4)
    # Vertices alone, or a path, are named as what they are (it said "got ndarray").
    with pytest.raises(ValueError, match=r"needs its faces too: Mesh\(vertices, faces\)"):
        mc.Mesh(np.eye(3))
    with pytest.raises(ValueError, match=r"read by meshclash.load\(path\)"):
        mc.Mesh(str(CASES / "meshes/torus.stl"))


def test_an_object_whose_vertices_fail_raises_its_own_error():
    """Only a missing attribute makes an object "not a mesh": the error a property raises (a
    mesh loaded lazily that fails) reaches the caller as it is."""

    class Lazy:
        faces = [[0, 1, 2]]

        @property
        def vertices(self):
            raise RuntimeError("the file behind this mesh is gone")

    with pytest.raises(RuntimeError, match="the file behind this mesh is gone"):
        mc.Mesh(Lazy())


@pytest.mark.parametrize("points, message", [
    (np.array([[0.5 + 1j, 0.5, 0.5]]), "points must be an array of real numbers, got dtype complex128"),
    (np.array([[True, False, True]]), "points must be an array of real numbers, got dtype bool"),
    ([["0.5", "0.5", "0.5"]], "points must be an array of real numbers, got dtype <U3"),
    (np.ma.masked_array([[0.5] * 3, [9.0] * 3], mask=[[0] * 3, [1] * 3]), "points: a masked array with masked values"),
])
def test_points_numpy_would_change_quietly_are_refused(points, message):
    """numpy's asarray(float64) drops an imaginary part, reads True as 1 and "0.5" as 0.5, and
    unmasks a masked array: such rows were answered as those values (a hunt's helper)."""
    cube = mc.Mesh(*box((0, 0, 0), (1, 1, 1)))
    with pytest.raises(ValueError, match=re.escape(message)):
        mc.inside(cube, points)
    # A masked array with nothing masked is its values; integers and objects holding numbers
    # are numbers.
    plain = [[0.5, 0.5, 0.5]]
    for ok in (np.ma.masked_array(plain), np.array([[1, 0, 0]]), np.array(plain, dtype=object),
               np.array([[Fraction(1, 2), Decimal("0.5"), 0.5]], dtype=object)):
        assert mc.inside(cube, ok).tolist() == [ok.tolist()[0] == [0.5, 0.5, 0.5]]


@pytest.mark.parametrize("held, name", [
    ("0.5", "str"), (True, "bool"), (np.True_, "bool"), (0.5 + 0j, "complex"), (b"0.5", "bytes"),
])
def test_object_arrays_and_vertices_refuse_what_typed_arrays_refuse(held, name):
    """An object array skipped the dtype check (a review's helper: strings were parsed and
    booleans read as 0 and 1), and vertices took complex, boolean and string arrays."""
    cube = mc.Mesh(*box((0, 0, 0), (1, 1, 1)))
    rows = np.array([[0.5, held, 0.5]], dtype=object)
    with pytest.raises(ValueError, match=f"points must be an array of real numbers, got an object array holding {name}"):
        mc.inside(cube, rows)
    v, f = box((0, 0, 0), (1, 1, 1))
    bad = v.astype(object)
    bad[0, 0] = held
    with pytest.raises(ValueError, match=f"vertices must be an array of real numbers, got an object array holding {name}"):
        mc.Mesh(bad, f)
    for typed, dtype in ((v + 0j, "complex128"), (v > 0.5, "bool"), (v.astype(str), "<U32")):
        with pytest.raises(ValueError, match=re.escape(f"vertices must be an array of real numbers, got dtype {dtype}")):
            mc.Mesh(typed, f)


RIGID = np.eye(4)


@pytest.mark.parametrize("transform, message", [
    (np.diag([2.0, 1, 1, 1]), "not orthonormal.*scaling and shear are not supported"),
    (np.diag([-1.0, 1, 1, 1]), r"reflection \(determinant −1\)"),
    (np.eye(3), r"must have shape \(4, 4\), got \(3, 3\)"),
    (np.r_[np.eye(4)[:3], [[0, 0, 1, 1]]], "last row must be 0,0,0,1"),
    (np.full((4, 4), np.nan), "non-finite entry"),
])
def test_bad_transforms_raise_value_error_with_the_cli_message(transform, message, cli):
    a = mc.Mesh(*box((0, 0, 0), (1, 1, 1)))
    with pytest.raises(ValueError, match=message) as e:
        mc.check(a, a, transform_b=transform)
    if np.shape(transform) == (4, 4) and np.isfinite(transform).all():
        # The command line's message for the same matrix, after "meshclash: " and the option
        # it names (Python names its parameter instead).
        path = CASES / "meshes/cube_trimesh.stl"
        code, err = cli("check", path, path, "--matrix-b", ",".join(map(str, np.ravel(transform))), json_out=False)
        assert code == 2
        said = err.strip().removeprefix("meshclash: ").replace("--matrix-b: ", "")
        assert str(e.value) == "transform_b: " + said
    for f in (mc.interferes, mc.solid_distance):
        with pytest.raises(ValueError, match=message):
            f(a, a, transform_a=transform)


def test_bad_arguments():
    a = mc.Mesh(*box((0, 0, 0), (1, 1, 1)))
    with pytest.raises(ValueError, match="^clearance must be a finite distance >= 0, got -1"):
        mc.check(a, a, clearance=-1.0)
    with pytest.raises(ValueError, match="backend must be cpu, gpu or auto"):
        mc.check(a, a, backend="tpu")
    with pytest.raises(ValueError, match="farther apart than the largest f64"):
        mc.check(a, a, transform_a=translation(-1.7e308, 0, 0), transform_b=translation(1.7e308, 0, 0))


def test_arrays_held_in_no_memory_raise_memory_error():
    # np.broadcast_to holds 2**40 rows in none; copying them aborted the interpreter (a hunt's
    # helper). Each copy now asks for its room first, and Python gets a MemoryError.
    v, f = box((0, 0, 0), (1, 1, 1))
    a = mc.Mesh(v, f)
    n = 2**40
    rows = np.broadcast_to(np.zeros(3), (n, 3))
    calls = {
        "vertices": lambda: mc.Mesh(rows, f),
        "faces": lambda: mc.Mesh(v, np.broadcast_to(np.array([0, 1, 3]), (n, 3))),
        "origins": lambda: mc.ray_hits(a, rows, rows, backend="cpu"),
        "centers": lambda: mc.sphere_contacts(a, rows, 1.0, backend="cpu"),
        "transforms_b": lambda: mc.poses(a, a, np.broadcast_to(np.eye(4), (n, 4, 4)), backend="cpu"),
    }
    for what, call in calls.items():
        with pytest.raises(MemoryError, match=f"{what}: {n} rows do not fit in memory"):
            call()
    # Radii longer than the centres are refused by their lengths, before they are copied.
    with pytest.raises(ValueError, match="as many rows, got 1 and 1099511627776"):
        mc.sphere_contacts(a, np.zeros((1, 3)), np.broadcast_to(np.ones(1), (n,)), backend="cpu")


@pytest.mark.parametrize("name", ["torus_truncated.stl", "tray_bottom_ascii_truncated.stl", "trimesh_stl_empty_ascii.stl", "trimesh_stl_empty_bin.stl"])
def test_broken_files_raise_value_error_with_the_cli_message(name, cli):
    path = CASES / "broken" / name
    if not path.exists():
        pytest.skip(f"{path} is not in this copy of the shared cases")
    code, err = cli("info", path, json_out=False)
    assert code == 2
    with pytest.raises(ValueError) as e:
        mc.load(path)
    assert str(e.value) == err.strip().removeprefix("meshclash: ")


def test_files_that_cannot_be_read_raise_os_error(tmp_path, cli):
    missing = tmp_path / "missing.stl"
    with pytest.raises(FileNotFoundError) as e:
        mc.load(missing)
    code, err = cli("info", missing, json_out=False)
    assert code == 2 and str(e.value) == err.strip().removeprefix("meshclash: ")
    with pytest.raises(OSError):
        mc.load(tmp_path)
    (tmp_path / "a.xyz").write_text("solid")
    with pytest.raises(ValueError, match="unknown mesh format"):
        mc.load(tmp_path / "a.xyz")


def test_backends_are_shared_and_named(backend):
    b = mc.backend(backend)
    assert b.kind == backend and b.name == backend
    assert mc.backend(backend).adapter == b.adapter
    # Two calls give two equal handles (docs/python.md), hashed alike; another kind differs.
    assert mc.backend(backend) == b and hash(mc.backend(backend)) == hash(b)
    assert b != mc.backend("auto") and b != backend
    assert (b.adapter is None) == (backend == "cpu")
    a = mc.Mesh(*box((0, 0, 0), (1, 1, 1)))
    r = mc.check(a, a, transform_b=translation(0.5, 0, 0), backend=b)
    assert r.backend == backend and r.adapter == b.adapter and r.timings_ms["total"] >= 0


def test_gil_is_released_during_queries():
    """Another Python thread runs while a query does: the query holds no GIL.

    Counted, not timed (the cores may be busy with other work): the switch interval is made
    longer than the test, so the main thread gives the GIL away only where it releases it (the
    queries), and the counting thread releases it at every step (a sleep), so that the main
    thread takes it back as soon as a query returns. The count's growth from a query's start to
    its end is then what the thread did while the query ran: none if queries held the GIL."""
    a = load_case_mesh("meshes/stanford_bunny.stl")
    b = load_case_mesh("meshes/bunny_lowres.stl")
    done = threading.Event()
    count = [0]

    def counting():
        while not done.is_set():
            count[0] += 1
            time.sleep(1e-4)  # the GIL released, long enough for the main thread to take it

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1000.0)
    t = threading.Thread(target=counting)
    during = []
    try:
        t.start()
        for _ in range(5):  # each about 0.1 s on 2 cores
            before = count[0]
            r = mc.check(a, b, clearance=1e-3, backend="cpu")
            during.append(count[0] - before)
        # The control: with no query (no GIL released), the thread does not run at all.
        before = count[0]
        sum(range(10**6))
        idle = count[0] - before
    finally:
        done.set()
        t.join()
        sys.setswitchinterval(interval)
    assert r.pair_count > 0
    assert idle == 0 and sum(during) > 0, (idle, during)


def test_backend_defaults_to_auto_as_documented():
    fs = [mc.check, mc.interferes, mc.solid_distance, mc.self_intersections, mc.winding_numbers, mc.inside,
          mc.closest_points, mc.ray_hits, mc.sphere_contacts, mc.sphere_sweeps]
    for f in fs:
        assert inspect.signature(f).parameters["backend"].default == "auto", f.__name__
    # None is "auto" too, everywhere a backend is asked for (a review's helper: not in
    # backend() nor CollisionManager).
    a = mc.Mesh(*box((0, 0, 0), (1, 1, 1)))
    assert mc.check(a, a, backend=None).backend == mc.check(a, a).backend == mc.backend("auto").name
    assert mc.backend(None) == mc.backend("auto") == mc.backend()
    manager = mc.CollisionManager(backend=None)
    assert manager.backend == mc.backend("auto")


def test_unbounded_defaults_read_as_infinity():
    """The signatures said max_distance=Ellipsis and max_t=Ellipsis (a review's helper), which
    no call can pass: they are infinity."""
    assert inspect.signature(mc.closest_points).parameters["max_distance"].default == float("inf")
    assert inspect.signature(mc.ray_hits).parameters["max_t"].default == float("inf")


def test_first_info_of_one_mesh_from_several_threads_returns():
    """Two threads' first ``info()`` of one mesh hung the process (a review's helper): one waited
    to take the GIL back inside the edges' one-time initializer while the other, holding the
    GIL, waited on that initializer. Run in a child process so that a hang fails the test
    (after a minute) rather than hanging the suite."""
    code = (
        "import threading, trimesh, meshclash as mc\n"
        "for _ in range(20):\n"
        "    m = mc.Mesh(trimesh.creation.torus(1.0, 0.3, major_sections=200, minor_sections=100))\n"
        "    bar = threading.Barrier(4)\n"
        "    out = []\n"
        "    def go():\n"
        "        bar.wait()\n"
        "        out.append(m.info()['boundary_edges'])\n"
        "    ts = [threading.Thread(target=go) for _ in range(4)]\n"
        "    [t.start() for t in ts]\n"
        "    [t.join() for t in ts]\n"
        "    assert out == [0, 0, 0, 0], out\n"
        "print('ok')\n"
    )
    import subprocess

    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr


def test_the_stubs_name_every_function_argument_as_the_module_takes_it():
    """_meshclash.pyi (what type checkers and editors read) against the functions themselves:
    the same arguments in the same order (`poses` lacked `backend`, a hunt's helper found)."""
    from meshclash import _meshclash

    stubs = ast.parse(Path(mc.__file__).with_name("_meshclash.pyi").read_text())
    functions = [n for n in stubs.body if isinstance(n, ast.FunctionDef)]
    assert len(functions) >= 19
    for f in functions:
        runtime = list(inspect.signature(getattr(_meshclash, f.name)).parameters)
        assert runtime == [a.arg for a in f.args.args + f.args.kwonlyargs], f.name


def test_a_mesh_float32_holds_coarsely_for_its_size_warns():
    """A 0.4 m column at UTM coordinates in metres: float32, as meshes are stored, holds it to
    0.5 (the spacing in [2^22, 2^23)), which the command line's notice and this UserWarning say;
    the same column at the origin gets none."""
    far = box((450123.456, 5400789.012, 0.0), (450123.856, 5400789.412, 3.0))
    with pytest.warns(UserWarning, match=r"holds them only to 5.000e-1"):
        m = mc.Mesh(*far)
    assert np.ptp(m.vertices[:, 1]) == 0.5  # 0.4 wide as given
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mc.Mesh(*box((0.0, 0.0, 0.0), (0.4, 0.4, 3.0)))


def test_a_clearance_of_minus_zero_is_zero():
    """As the command line echoes it (a review's helper saw "clearance -0" there)."""
    a = mc.Mesh(*box((0, 0, 0), (1, 1, 1)))
    r = mc.check(a, a, transform_b=translation(2, 0, 0), clearance=-0.0)
    assert r.clearance == 0.0 and np.copysign(1.0, r.clearance) == 1.0
    assert r.clearance_pair_count == 0


@pytest.mark.parametrize("flag", [True, False, np.bool_(True)])
def test_a_boolean_is_no_distance(flag):
    """Python takes True for 1.0: `clearance=True` (meant as "report the clearance") would
    have been a clearance of 1, and `max_t=False` a limit of 0. Every real-number argument
    refuses booleans."""
    a = mc.Mesh(*box((0, 0, 0), (1, 1, 1)))
    o, d = np.zeros((1, 3)), np.array([[1.0, 0.0, 0.0]])
    calls = [
        lambda: mc.check(a, a, transform_b=translation(2, 0, 0), clearance=flag),
        lambda: mc.closest_points(a, o, max_distance=flag),
        lambda: mc.ray_hits(a, o, d, max_t=flag),
        lambda: mc.sphere_sweeps(a, o, [0.1], d, tolerance=flag),
        lambda: mc.sweep(a, a, [translation(2, 0, 0), translation(3, 0, 0)], tolerance=flag),
        lambda: mc.poses(a, a, [translation(2, 0, 0)], clearance=flag),
        lambda: mc.sweep(a, a, [translation(2, 0, 0), translation(3, 0, 0)], times=[0.0, flag]),
        lambda: mc.check(a, a, transform_b=translation(2, 0, 0), clearance=np.array(flag)),
    ]
    for call in calls:
        with pytest.raises(TypeError, match="got a bool"):
            call()
