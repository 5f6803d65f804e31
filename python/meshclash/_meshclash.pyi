"""Type stubs of the Rust extension meshclash._meshclash (re-exported by meshclash)."""

from os import PathLike
from typing import Any, Literal, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

__version__: str

ArrayLike = npt.ArrayLike
# A kind's name or a Backend; None means "auto" (the default) too.
BackendArg = Union[Literal["auto", "cpu", "gpu"], "Backend", None]

class Mesh:
    """A triangle mesh, welded and prepared once. Coordinates are stored as float32 (float64
    input is rounded once, here); triangle i is row i of the caller's faces."""

    def __init__(self, vertices: Any, faces: Optional[ArrayLike] = None) -> None: ...
    @property
    def vertices(self) -> npt.NDArray[np.float64]: ...
    @property
    def faces(self) -> npt.NDArray[np.int64]: ...
    @property
    def source(self) -> str:
        """The path it was loaded from, or "<arrays>" / "<Trimesh>" (what it was made of)."""
    @property
    def unit(self) -> Optional[str]:
        """The unit its file declares, or None."""
    def info(self) -> dict[str, Any]: ...
    def __len__(self) -> int: ...

def load(path: Union[str, bytes, PathLike[str], PathLike[bytes]]) -> Mesh: ...

class Backend:
    @property
    def kind(self) -> Literal["auto", "cpu", "gpu"]: ...
    @property
    def name(self) -> Literal["cpu", "gpu"]: ...
    @property
    def adapter(self) -> Optional[dict[str, Any]]: ...
    @property
    def fallback_reason(self) -> Optional[str]: ...

def backend(kind: Optional[Literal["auto", "cpu", "gpu"]] = "auto") -> Backend: ...

class CheckResult:
    intersects: bool
    interferes: bool
    containment: Optional[Literal["a_in_b", "b_in_a"]]
    containment_certain: bool
    pair_count: int
    touching_pair_count: int
    piercing_pair_count: int
    min_distance: float
    closest_point_a: npt.NDArray[np.float64]
    closest_point_b: npt.NDArray[np.float64]
    separation: npt.NDArray[np.float64]
    triangle_a: int
    triangle_b: int
    clearance: Optional[float]
    clearance_pair_count: Optional[int]
    candidate_pairs: dict[str, Optional[int]]
    pairs: npt.NDArray[np.int64]
    pair_classes: list[Optional[Literal["point", "segment", "area"]]]
    pair_coplanar: npt.NDArray[np.bool_]
    pair_touching: npt.NDArray[np.bool_]
    curves: npt.NDArray[np.float64]
    clearance_pairs: Optional[npt.NDArray[np.int64]]
    clearance_distances: Optional[npt.NDArray[np.float64]]
    clearance_intersects: Optional[npt.NDArray[np.bool_]]
    backend: Literal["cpu", "gpu"]
    adapter: Optional[dict[str, Any]]
    timings_ms: dict[str, float]
    def to_dict(self) -> dict[str, Any]: ...

class SolidDistanceResult:
    interferes: bool
    solid_distance: float
    distance: float
    evidence: Optional[Literal["surfaces_meet", "vertex_of_a_in_b", "vertex_of_b_in_a"]]
    containment_certain: bool
    evidence_vertex: Optional[int]
    evidence_point: Optional[npt.NDArray[np.float64]]
    closest_point_a: Optional[npt.NDArray[np.float64]]
    closest_point_b: Optional[npt.NDArray[np.float64]]
    separation: Optional[npt.NDArray[np.float64]]
    triangle_a: Optional[int]
    triangle_b: Optional[int]
    def to_dict(self) -> dict[str, Any]: ...

class SelfResult:
    self_intersects: bool
    pair_count: int
    by_kind: dict[str, int]
    zero_area_triangles: int
    candidate_pairs: int
    pairs: npt.NDArray[np.int64]
    pair_kinds: list[str]
    backend: Literal["cpu", "gpu"]
    adapter: Optional[dict[str, Any]]
    timings_ms: dict[str, float]
    def to_dict(self) -> dict[str, Any]: ...

MeshArg = Union[Mesh, Any]

def check(
    a: MeshArg,
    b: MeshArg,
    transform_a: Optional[ArrayLike] = None,
    transform_b: Optional[ArrayLike] = None,
    clearance: Optional[float] = None,
    pairs: bool = False,
    backend: BackendArg = "auto",
) -> CheckResult: ...
def interferes(
    a: MeshArg,
    b: MeshArg,
    transform_a: Optional[ArrayLike] = None,
    transform_b: Optional[ArrayLike] = None,
    backend: BackendArg = "auto",
) -> bool: ...
def solid_distance(
    a: MeshArg,
    b: MeshArg,
    transform_a: Optional[ArrayLike] = None,
    transform_b: Optional[ArrayLike] = None,
    backend: BackendArg = "auto",
) -> SolidDistanceResult: ...
def self_intersections(mesh: MeshArg, pairs: bool = False, backend: BackendArg = "auto") -> SelfResult: ...

# Batch queries: dicts of arrays, one row per input row (NaN, -1 or False where missing).
Columns = dict[str, Any]

def winding_numbers(
    mesh: MeshArg, points: ArrayLike, transform: Optional[ArrayLike] = None, backend: BackendArg = "auto"
) -> Columns: ...
def inside(
    mesh: MeshArg, points: ArrayLike, transform: Optional[ArrayLike] = None, backend: BackendArg = "auto"
) -> npt.NDArray[np.bool_]: ...
def closest_points(
    mesh: MeshArg,
    points: ArrayLike,
    transform: Optional[ArrayLike] = None,
    max_distance: float = ...,
    signed: bool = False,
    backend: BackendArg = "auto",
) -> Columns: ...
def ray_hits(
    mesh: MeshArg,
    origins: ArrayLike,
    directions: ArrayLike,
    transform: Optional[ArrayLike] = None,
    max_t: float = ...,
    hits: Literal["first", "any", "all"] = "first",
    backend: BackendArg = "auto",
) -> Columns: ...
def sphere_contacts(
    mesh: MeshArg,
    centers: ArrayLike,
    radii: ArrayLike,
    transform: Optional[ArrayLike] = None,
    backend: BackendArg = "auto",
) -> Columns: ...
def sphere_touching(
    mesh: MeshArg,
    centers: ArrayLike,
    radii: ArrayLike,
    transform: Optional[ArrayLike] = None,
) -> Columns: ...
def sphere_sweeps(
    mesh: MeshArg,
    centers: ArrayLike,
    radii: ArrayLike,
    displacements: ArrayLike,
    transform: Optional[ArrayLike] = None,
    tolerance: Optional[float] = None,
    backend: BackendArg = "auto",
) -> Columns: ...
def poses(
    a: MeshArg,
    b: MeshArg,
    transforms_b: ArrayLike,
    transform_a: Optional[ArrayLike] = None,
    clearance: Optional[float] = None,
    backend: BackendArg = "auto",
) -> Columns: ...
def sweep(
    a: MeshArg,
    b: MeshArg,
    path: ArrayLike,
    transform_a: Optional[ArrayLike] = None,
    times: Optional[Sequence[float]] = None,
    tolerance: Optional[float] = None,
) -> dict[str, Any]: ...

# Used by meshclash.CollisionManager.
def rigid_transform(transform: Optional[ArrayLike]) -> npt.NDArray[np.float64]: ...
def interfering_pairs(
    meshes_a: Sequence[MeshArg],
    transforms_a: Sequence[ArrayLike],
    meshes_b: Optional[Sequence[MeshArg]],
    transforms_b: Optional[Sequence[ArrayLike]],
    first_only: bool,
    backend: BackendArg,
) -> list[tuple[int, int]]: ...
def nearest_pair(
    meshes_a: Sequence[MeshArg],
    transforms_a: Sequence[ArrayLike],
    meshes_b: Optional[Sequence[MeshArg]],
    transforms_b: Optional[Sequence[ArrayLike]],
    backend: BackendArg,
) -> Optional[tuple[int, int, SolidDistanceResult]]: ...
def contacts(
    a: MeshArg, transform_a: ArrayLike, b: MeshArg, transform_b: ArrayLike, backend: BackendArg
) -> list[tuple[Optional[int], Optional[int], npt.NDArray[np.float64], Optional[npt.NDArray[np.float64]]]]: ...
