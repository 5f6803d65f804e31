"""The shared cases (meshes from public repositories, answers from an exact oracle) through the
Python API, against the command line's JSON on both backends and against the oracle."""

import json

import numpy as np
import pytest
import trimesh

import meshclash as mc
from conftest import CASES, load_case_mesh, matrix_arg, without_run_fields

CHECK_CASES = json.loads((CASES / "cases.json").read_text())["cases"]
SELF_CASES = json.loads((CASES / "self_cases.json").read_text())["self_cases"]
MESHES = sorted(p.name for p in (CASES / "meshes").glob("*.stl"))


def case_id(c):
    return c["name"]


@pytest.mark.parametrize("case", CHECK_CASES, ids=case_id)
def test_check_equals_cli_and_oracle(case, backend, cli):
    a, b = load_case_mesh(case["mesh_a"]), load_case_mesh(case["mesh_b"])
    pa, pb = np.array(case["pose_a"]), np.array(case["pose_b"])
    r = mc.check(a, b, transform_a=pa, transform_b=pb, pairs=True, backend=backend)
    want = cli(
        "check", CASES / case["mesh_a"], CASES / case["mesh_b"],
        "--matrix-a", matrix_arg(pa), "--matrix-b", matrix_arg(pb),
        "--pairs", "--json", "--backend", backend,
    )
    assert r.to_dict() == without_run_fields(want)
    assert r.backend == want["backend"] == backend
    # The attributes are the dict's fields.
    d = r.to_dict()
    assert r.intersects == d["intersects"] and r.pair_count == d["pair_count"]
    assert np.array_equal(r.closest_point_a, d["closest_point_a"])
    assert np.array_equal(r.pairs, np.array([[p["a"], p["b"]] for p in d["pairs"]]).reshape(-1, 2))
    assert np.array_equal(r.curves, np.array(d["curves"]).reshape(-1, 2, 3))
    # The oracle's answer.
    e = case["expect"]
    assert r.intersects == e["intersects"]
    if e["pair_count"] is not None:
        assert r.pair_count == e["pair_count"]
    diag = max(np.linalg.norm(np.ptp(np.array(m.vertices), axis=0)) for m in (a, b))
    assert abs(r.min_distance - e["min_distance"]) <= 1e-6 * (diag + e["min_distance"])


CLEARANCE_CASES = [c for c in CHECK_CASES if c["name"] in (
    "cube_cube_gap_1e-3diag", "torus_halfdonut_barely_intersect", "counter_tray_stacked_gap", "cube_inside_cube_nested",
)]


@pytest.mark.parametrize("case", CLEARANCE_CASES, ids=case_id)
def test_check_clearance_equals_cli(case, backend, cli):
    a, b = load_case_mesh(case["mesh_a"]), load_case_mesh(case["mesh_b"])
    pa, pb = np.array(case["pose_a"]), np.array(case["pose_b"])
    r = mc.check(a, b, pa, pb, clearance=0.01, pairs=True, backend=backend)
    want = cli(
        "check", CASES / case["mesh_a"], CASES / case["mesh_b"],
        "--matrix-a", matrix_arg(pa), "--matrix-b", matrix_arg(pb),
        "--clearance", "0.01", "--pairs", "--json", "--backend", backend,
    )
    assert r.to_dict() == without_run_fields(want)
    assert r.clearance_pair_count == len(want["clearance_pairs"])
    assert r.candidate_pairs == want["candidate_pairs"]
    assert np.array_equal(r.clearance_distances, [p["distance"] for p in want["clearance_pairs"]])
    # Without pairs=True, to_dict() is check --json without --pairs.
    plain = mc.check(a, b, pa, pb, clearance=0.01, backend=backend).to_dict()
    assert "pairs" not in plain and "clearance_pairs" not in plain
    assert plain == {k: v for k, v in r.to_dict().items() if k not in ("pairs", "curves", "clearance_pairs")}


@pytest.mark.parametrize("case", CHECK_CASES, ids=case_id)
def test_solid_distance_equals_cli_quick(case, cli):
    a, b = load_case_mesh(case["mesh_a"]), load_case_mesh(case["mesh_b"])
    pa, pb = np.array(case["pose_a"]), np.array(case["pose_b"])
    s = mc.solid_distance(a, b, pa, pb)
    want = cli(
        "check", CASES / case["mesh_a"], CASES / case["mesh_b"],
        "--matrix-a", matrix_arg(pa), "--matrix-b", matrix_arg(pb), "--quick", "--json",
    )
    assert s.to_dict() == without_run_fields(want)
    assert mc.interferes(a, b, pa, pb) == want["interferes"] == s.interferes
    if case["expect"]["intersects"]:
        assert s.interferes and s.solid_distance == 0.0


@pytest.mark.parametrize("case", SELF_CASES, ids=lambda c: c["mesh"])
def test_self_intersections_equal_cli_and_oracle(case, backend, cli):
    m = load_case_mesh(case["mesh"])
    r = mc.self_intersections(m, pairs=True, backend=backend)
    want = cli("self", CASES / case["mesh"], "--pairs", "--json", "--backend", backend)
    assert r.to_dict() == without_run_fields(want)
    e = case["expect"]
    assert r.self_intersects == e["self_intersects"]
    if e["pair_count"] is not None:
        assert r.pair_count == e["pair_count"]
        assert r.by_kind == {k: v for k, v in e["by_kind"].items() if v}
    assert r.zero_area_triangles == e["zero_area_triangles"]
    assert len(r.pairs) == r.pair_count and len(r.pair_kinds) == r.pair_count


@pytest.mark.parametrize("name", MESHES)
def test_info_equals_cli(name, cli):
    assert load_case_mesh(f"meshes/{name}").info() == cli("info", CASES / "meshes" / name, "--json")


@pytest.mark.parametrize("case", [c for c in CHECK_CASES if c["name"] in (
    "torus_linked_intersect", "soup_crossing_cube", "degenerate_tris_on_cube_face", "teapot_teapot_rot_deep",
)], ids=case_id)
def test_trimesh_and_numpy_inputs_answer_as_the_file(case):
    """trimesh (unprocessed, so that its faces are the file's triangles in order) and plain
    arrays give the file's answers, triangle numbers included."""
    pa, pb = np.array(case["pose_a"]), np.array(case["pose_b"])
    from_files = mc.check(load_case_mesh(case["mesh_a"]), load_case_mesh(case["mesh_b"]), pa, pb, pairs=True)
    ta = trimesh.load(CASES / case["mesh_a"], process=False)
    tb = trimesh.load(CASES / case["mesh_b"], process=False)
    from_trimesh = mc.check(mc.Mesh(ta), tb, pa, pb, pairs=True)
    from_arrays = mc.check(
        mc.Mesh(np.asarray(ta.vertices), np.asarray(ta.faces)),
        mc.Mesh(np.asarray(tb.vertices).tolist(), np.asarray(tb.faces, dtype=np.int32)),
        pa.tolist(), pb, pairs=True,
    )
    assert from_trimesh.to_dict() == from_files.to_dict() == from_arrays.to_dict()
