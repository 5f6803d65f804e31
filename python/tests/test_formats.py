"""Formats written by another tool (trimesh, at test time) read as trimesh reads them, and the
GLB that `check --glb` writes opens in trimesh with every triangle."""

import warnings
from pathlib import Path

import numpy as np
import pytest
import trimesh
from trimesh.transformations import rotation_matrix, translation_matrix

import meshclash as mc

from conftest import CASES


def scene():
    s = trimesh.Scene()
    box = trimesh.creation.box(extents=[1.0, 2.0, 3.0])
    ball = trimesh.creation.icosphere(subdivisions=2, radius=0.7)
    s.add_geometry(box, node_name="b1", geom_name="box",
                   transform=translation_matrix([5, 0, 0]) @ rotation_matrix(0.4, [0, 1, 1]))
    s.add_geometry(box, node_name="b2", geom_name="box", transform=translation_matrix([0, -3, 1]))
    s.add_geometry(ball, node_name="ball", geom_name="ball",
                   transform=rotation_matrix(1.0, [1, 0, 0]) @ translation_matrix([1, 2, 3]))
    return s


@pytest.mark.parametrize("ext", ["glb", "3mf", "ply"])
def test_files_trimesh_writes_read_as_trimesh_reads_them(tmp_path, ext):
    if ext == "3mf":
        # trimesh writes 3MF with networkx (the scene graph) and lxml.
        pytest.importorskip("networkx", reason="trimesh's 3MF export needs networkx")
        pytest.importorskip("lxml", reason="trimesh's 3MF export needs lxml")
    path = tmp_path / f"scene.{ext}"
    scene().export(path)
    want = trimesh.load(path, force="mesh")
    got = mc.load(path)
    info = got.info()
    assert info["triangles"] == len(want.faces)
    np.testing.assert_allclose(info["bbox_min"], want.bounds[0], rtol=0, atol=1e-6)
    np.testing.assert_allclose(info["bbox_max"], want.bounds[1], rtol=0, atol=1e-6)
    assert info["closed"] and info["oriented"]
    assert info["unit"] == {"glb": "meter", "3mf": "millimeter", "ply": None}[ext]


def test_check_glb_opens_in_trimesh_with_every_triangle(tmp_path, cli):
    torus = CASES / "meshes" / "torus.stl"
    glb = tmp_path / "clash.glb"
    answer = cli("check", torus, torus, "--rotate-b", "90,0,0", "--translate-b", "1.2,0,0",
                 "--backend", "cpu", "--clearance", "0.01", "--glb", glb, "--json")
    assert answer["intersects"]
    s = trimesh.load(glb, force="scene")
    faces = {name: len(g.faces) for name, g in s.geometry.items() if hasattr(g, "faces")}
    n = mc.load(torus).info()["triangles"]
    # A and B, each split into plain, within-clearance and clashing primitives.
    assert sum(faces.values()) == 2 * n, faces
    # The intersection curves come back as a path.
    assert any(not hasattr(g, "faces") for g in s.geometry.values())


def test_parts_declaring_different_units_warn():
    """Coordinates are never converted: a part in millimetres (3MF) against one in metres (GLB)
    gets a UserWarning, as the command line's notice; parts of one unit get none."""
    data = Path(__file__).resolve().parents[2] / "tests" / "data" / "formats"
    mm, m = mc.load(data / "scene.3mf"), mc.load(data / "scene.glb")
    with pytest.warns(UserWarning, match="a declares its unit as millimeter and b as meter"):
        mc.check(mm, m)
    with pytest.warns(UserWarning, match="declares its unit"):
        mc.solid_distance(m, mm)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mc.check(mm, mm)
        # A refused call raises its own error alone (the warning came first, a review found).
        with pytest.raises(ValueError, match="tolerance must be finite"):
            mc.sweep(mm, m, np.stack([np.eye(4)] * 2), tolerance=-1)


def test_a_collision_manager_warns_of_objects_declaring_different_units():
    """The CollisionManager compares its objects as they are, as check does: an object whose
    file declares another unit than one already added gets the same UserWarning; replacing an
    object, or adding one of the same unit or none, gets none."""
    data = Path(__file__).resolve().parents[2] / "tests" / "data" / "formats"
    mm, m = mc.load(data / "scene.3mf"), mc.load(data / "scene.glb")
    assert (mm.unit, m.unit) == ("millimeter", "meter")
    manager = mc.CollisionManager(backend="cpu")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        manager.add_object("housing", mm)
        manager.add_object("housing", m)  # replaced: no other object to differ from
        manager.add_object("shaft", m)
        manager.add_object("arrays", mc.Mesh(m.vertices, m.faces))
    assert mc.Mesh(m.vertices, m.faces).unit is None
    with pytest.warns(UserWarning, match="'bracket' declares its unit as millimeter and 'housing' as meter"):
        manager.add_object("bracket", mm)
