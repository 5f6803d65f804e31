"""meshclash: clash detection between triangle meshes, for numpy and trimesh users.

Exact answers (Shewchuk's predicates on float64), from the CPU or the GPU (wgpu), equal to
the last bit. A ``Mesh`` is prepared once and kept, on the GPU too, across calls::

    import meshclash, numpy as np, trimesh
    a = meshclash.Mesh(trimesh.load("bracket.stl"))
    b = meshclash.load("housing.stl")  # or .obj, .ply, .3mf, .gltf, .glb
    pose = np.eye(4)
    pose[:3, 3] = (10, 0, 0)  # where b is placed: a 4x4 rigid transform
    r = meshclash.check(a, b, transform_b=pose, clearance=0.5)
    r.interferes, r.min_distance, r.pairs

See docs/python.md in the repository.
"""

from ._meshclash import (
    Backend,
    CheckResult,
    Mesh,
    SelfResult,
    SolidDistanceResult,
    __version__,
    backend,
    check,
    closest_points,
    inside,
    interferes,
    load,
    poses,
    ray_hits,
    self_intersections,
    solid_distance,
    sphere_contacts,
    sphere_sweeps,
    sphere_touching,
    sweep,
    winding_numbers,
)
from .collision import CollisionManager, ContactData, DistanceData

__all__ = [
    "Backend",
    "CheckResult",
    "CollisionManager",
    "ContactData",
    "DistanceData",
    "Mesh",
    "SelfResult",
    "SolidDistanceResult",
    "__version__",
    "backend",
    "check",
    "closest_points",
    "inside",
    "interferes",
    "load",
    "poses",
    "ray_hits",
    "self_intersections",
    "solid_distance",
    "sphere_contacts",
    "sphere_sweeps",
    "sphere_touching",
    "sweep",
    "winding_numbers",
]
