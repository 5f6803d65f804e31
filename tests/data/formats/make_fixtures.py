"""Writes the format fixtures in this folder and their expected values (expected.json).

The scene files are written by trimesh (another tool's writers); the expected triangle counts,
bounds, areas and volumes are trimesh's own, computed from the scene it wrote. Hand-made files
(a 3MF with components in a second model part, big-endian PLY, glTF with a data URI and with an
external buffer) come with hand-worked expectations in the Rust tests. Run with trimesh 4.x+:
    python make_fixtures.py
"""
import base64, json, struct, zipfile
import numpy as np
import trimesh
from trimesh.transformations import rotation_matrix, translation_matrix

def scene():
    s = trimesh.Scene()
    box = trimesh.creation.box(extents=[1.0, 2.0, 3.0])
    ball = trimesh.creation.icosphere(subdivisions=1, radius=0.5)
    t1 = translation_matrix([10, 0, 0]) @ rotation_matrix(np.pi / 6, [0, 0, 1])
    t2 = translation_matrix([0, -4, 1]) @ rotation_matrix(np.pi / 3, [1, 1, 0])
    s.add_geometry(box, node_name="box1", geom_name="box", transform=t1)
    s.add_geometry(box, node_name="box2", geom_name="box", transform=t2)
    s.add_geometry(ball, node_name="ball", geom_name="ball",
                   transform=translation_matrix([2, 2, 2]))
    return s

def summary(mesh):
    # The signed volume as the plain sum over triangles (divergence theorem about the origin):
    # trimesh's `volume` takes another route for an open mesh such as the bunny.
    t = mesh.triangles
    signed = np.einsum("ij,ij->i", t[:, 0], np.cross(t[:, 1], t[:, 2])).sum() / 6.0
    return {"triangles": int(len(mesh.faces)),
            "bounds": mesh.bounds.tolist(),
            "area": float(mesh.area),
            "volume": float(signed)}

expected = {}
s = scene()
for name in ["scene.glb", "scene.3mf"]:
    s.export(name)
    back = trimesh.load(name, force="scene")
    expected[name] = summary(back.to_geometry())
    expected[name]["written_by"] = f"trimesh {trimesh.__version__}"
for enc in ["ascii", "binary"]:
    name = f"ball_{enc}.ply"
    ball = trimesh.creation.icosphere(subdivisions=2, radius=2.0)
    ball.export(name, encoding=enc)
    expected[name] = summary(trimesh.load(name))
    expected[name]["written_by"] = f"trimesh {trimesh.__version__}"
# A shared original, read by trimesh as it is (no merging, no repair).
bunny = "../../../../shared/cases/originals/trimesh/bunny.ply"
expected["shared:originals/trimesh/bunny.ply"] = summary(trimesh.load(bunny, process=False))
with open("expected.json", "w") as f:
    json.dump(expected, f, indent=1, sort_keys=True)
    f.write("\n")

# Hand-made files below; their expectations are worked by hand in tests/formats.rs.
# A unit cube [0,1]^3 as 8 vertices and 12 outward triangles.
V = [(0,0,0),(1,0,0),(1,1,0),(0,1,0),(0,0,1),(1,0,1),(1,1,1),(0,1,1)]
T = [(0,2,1),(0,3,2),(4,5,6),(4,6,7),(0,1,5),(0,5,4),(1,2,6),(1,6,5),(2,3,7),(2,7,6),(3,0,4),(3,4,7)]

# PLY, big endian, with an extra vertex property and an extra element to read past.
with open("cube_big_endian.ply", "wb") as f:
    f.write(b"ply\nformat binary_big_endian 1.0\ncomment hand-made\n"
            b"element vertex 8\nproperty double x\nproperty double y\nproperty double z\n"
            b"property uchar red\nelement face 6\nproperty list uchar int vertex_indices\n"
            b"element edge 1\nproperty int vertex1\nproperty int vertex2\nend_header\n")
    for v in V:
        f.write(struct.pack(">dddB", *v, 200))
    # Quads, outward, fanned from their first vertex by the reader into 12 triangles.
    for quad in [(0,3,2,1),(4,5,6,7),(0,1,5,4),(1,2,6,5),(2,3,7,6),(3,0,4,7)]:
        f.write(struct.pack(">B4i", 4, *quad))
    f.write(struct.pack(">2i", 0, 1))

def model_xml(objects, build, unit=None, extra_ns=""):
    u = f' unit="{unit}"' if unit else ""
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<model xmlns="http://schemas.microsoft.com/3dmanufacturing/core/2015/02"{extra_ns}{u}>'
            f'<resources>{objects}</resources><build>{build}</build></model>')

def mesh_object(oid):
    vs = "".join(f'<vertex x="{x}" y="{y}" z="{z}"/>' for x, y, z in V)
    ts = "".join(f'<triangle v1="{a}" v2="{b}" v3="{c}"/>' for a, b, c in T)
    return f'<object id="{oid}" type="model"><mesh><vertices>{vs}</vertices><triangles>{ts}</triangles></mesh></object>'

RELS = ('<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        '<Relationship Target="/3D/main.model" Id="rel0" Type="http://schemas.microsoft.com/3dmanufacturing/2013/01/3dmodel"/></Relationships>')
TYPES = ('<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
         '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
         '<Default Extension="model" ContentType="application/vnd.ms-package.3dmanufacturing-3dmodel+xml"/></Types>')
P = ' xmlns:p="http://schemas.microsoft.com/3dmanufacturing/production/2015/06"'
# main.model: object 2 = the cube (from parts.model, object 7) scaled by 2 and moved +10 in x,
# plus a cube of its own moved +5 in z; build: object 2 at the identity and again moved -20 in y.
main = model_xml(
    mesh_object(1) +
    '<object id="2" type="model"><components>'
    '<component objectid="7" p:path="/3D/parts.model" transform="2 0 0 0 2 0 0 0 2 10 0 0"/>'
    '<component objectid="1" transform="1 0 0 0 1 0 0 0 1 0 0 5"/>'
    '</components></object>',
    '<item objectid="2"/><item objectid="2" transform="1 0 0 0 1 0 0 0 1 0 -20 0"/>',
    unit="inch", extra_ns=P)
parts = model_xml(mesh_object(7), "")
# The same package stored uncompressed: the seed of the 3MF fuzzing, whose mutations then
# reach the XML instead of only breaking the deflate streams.
for name, method in [("components.3mf", zipfile.ZIP_DEFLATED), ("components_stored.3mf", zipfile.ZIP_STORED)]:
    with zipfile.ZipFile(name, "w", method) as z:
        z.writestr("[Content_Types].xml", TYPES)
        z.writestr("_rels/.rels", RELS)
        z.writestr("3D/main.model", main)
        z.writestr("3D/parts.model", parts)

# glTF: the cube with a data URI buffer, placed by TRS (scale 2, +1 in y); and the same
# document with its buffer in a file beside it, the node given as a matrix (a mirror in x).
pos = b"".join(struct.pack("<3f", *v) for v in V)
idx = b"".join(struct.pack("<3H", *t) for t in T)
buf = pos + idx
def gltf(uri, node):
    return {"asset": {"version": "2.0", "generator": "meshclash make_fixtures.py"},
            "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [node],
            "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
            "buffers": [{"byteLength": len(buf), "uri": uri}],
            "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": len(pos)},
                            {"buffer": 0, "byteOffset": len(pos), "byteLength": len(idx)}],
            "accessors": [{"bufferView": 0, "componentType": 5126, "count": 8, "type": "VEC3",
                           "min": [0, 0, 0], "max": [1, 1, 1]},
                          {"bufferView": 1, "componentType": 5123, "count": 36, "type": "SCALAR"}]}
with open("cube_data_uri.gltf", "w") as f:
    uri = "data:application/octet-stream;base64," + base64.b64encode(buf).decode()
    json.dump(gltf(uri, {"mesh": 0, "scale": [2, 2, 2], "translation": [0, 1, 0]}), f)
with open("cube external.bin", "wb") as f:
    f.write(buf)
with open("cube_external.gltf", "w") as f:
    mirror = [-1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
    json.dump(gltf("cube%20external.bin", {"mesh": 0, "matrix": mirror}), f)
