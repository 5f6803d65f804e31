"""``CollisionManager``: trimesh's collision manager, with meshclash answering.

The method names, arguments and returns are those of ``trimesh.collision.CollisionManager``;
the answers differ from FCL's where FCL is wrong:

- Solid semantics: a part entirely inside another collides with it, and its distance to it is
  0. FCL tests surfaces only (for meshes trimesh does not find convex), so a part swallowed by
  another does not collide and has a positive distance.
- Exact: every triangle pair is decided with exact predicates, touching included; FCL's float
  test misses or invents contacts between near-touching triangles.

Meshes are prepared once (``add_object`` makes a ``Mesh`` of a trimesh, or takes a ``Mesh``)
and stay prepared, and on the GPU once a GPU query has used them, across calls. A trimesh
given to a query is prepared once while its data is unchanged; any other object with
``.vertices`` and ``.faces``, on every call.
"""

import collections
import sys
import warnings
import weakref

import numpy as np

from . import _meshclash
from ._meshclash import Mesh

__all__ = ["CollisionManager", "ContactData", "DistanceData"]

# Meshes made of trimesh objects: id(obj) -> (weak reference to obj, obj's hash when prepared,
# Mesh). trimesh's hash follows every edit of its data, so an entry is reused only while the
# object is unchanged; an edit replaces the object's one entry, and the entry goes when the
# object does. Only trimesh objects are kept: another object's hash need not follow its data
# (a plain object's is its identity), so it is prepared anew on every call. Not a
# WeakKeyDictionary: that needs a key's hash to stay fixed, and trimesh's changes.
_prepared = {}


def _is_trimesh(mesh):
    trimesh = sys.modules.get("trimesh")  # not imported: then mesh is no trimesh object
    return trimesh is not None and isinstance(mesh, trimesh.Trimesh)


def _forget(key, ref):
    """A kept trimesh object is gone: drop its entry (unless the id already names another's)."""
    kept = _prepared.get(key)
    if kept is not None and kept[0] is ref:
        del _prepared[key]


def _as_mesh(mesh):
    if isinstance(mesh, Mesh):
        return mesh
    if not _is_trimesh(mesh):
        return Mesh(mesh)
    key, digest = id(mesh), hash(mesh)
    kept = _prepared.get(key)
    if kept is not None and kept[0]() is mesh and kept[1] == digest:
        return kept[2]
    made = Mesh(mesh)
    _prepared[key] = (weakref.ref(mesh, lambda ref: _forget(key, ref)), digest, made)
    return made


def _unit(mesh):
    """The unit ``mesh``'s file declares, as one name for its spellings ("mm", "millimeters"),
    or None."""
    return None if mesh.unit is None else _meshclash._unit_name(mesh.unit)


def _warn_units(name, unit, other, other_unit, stacklevel=3):
    warnings.warn(
        f"{name!r} declares its unit as {unit} and {other!r} as {other_unit}; units are not "
        "converted, and a transform cannot scale: convert one to the other's unit",
        UserWarning,
        stacklevel=stacklevel,
    )


def _unit_normal(mesh, transform, triangle):
    """The unit normal of ``mesh``'s triangle (a row of its faces) placed by ``transform``."""
    p = mesh.vertices[mesh.faces[triangle]] @ transform[:3, :3].T
    n = np.cross(p[1] - p[0], p[2] - p[0])
    length = np.linalg.norm(n)
    return n / length if length > 0 else n


def _nearest_triangle(mesh, transform, point):
    """The triangle of ``mesh`` (placed by ``transform``) nearest ``point`` (world)."""
    found = _meshclash.closest_points(mesh, np.asarray([point]), transform, backend="cpu")
    return int(found["triangle"][0])


def _contact(a, ta, b, tb, backend):
    """One contact of two interfering parts, as ``(triangle_a, triangle_b, point, normal)``:
    the first intersecting triangle pair (a point of their intersection, B's triangle's
    normal), or, for a part inside the other, the vertex found inside with each part's
    triangle nearest it. None if they do not interfere."""
    found = _meshclash.contacts(a, ta, b, tb, backend)
    return _completed(found[0], a, ta, b, tb) if found else None


def _completed(contact, a, ta, b, tb):
    """A contact of ``_meshclash.contacts`` with its triangles and normal found where a part is
    inside the other (there the surfaces do not meet: the triangles are those nearest the
    vertex found inside)."""
    ia, ib, point, normal = contact
    if ia is None:
        ia, ib = _nearest_triangle(a, ta, point), _nearest_triangle(b, tb, point)
        normal = _unit_normal(b, tb, ib)
    return ia, ib, point, normal


class ContactData:
    """One contact between two objects, as trimesh's ``ContactData``: an intersecting triangle
    pair, or a part inside another.

    ``names``: the two objects' names (a set); ``index(name)``: that object's triangle (a row
    of its faces); ``point``: a point of the pair's intersection; ``normal``: the unit normal
    of the second object's triangle. For a part inside another, where no surfaces meet, the
    point is the inner part's vertex found inside and the triangles are each part's nearest
    that point.

    ``depth`` is always None, unlike trimesh's float: meshclash computes no penetration depth,
    and a made-up number (0.0 would say "touching") would pass silently through code that
    compares it.
    """

    def __init__(self, names, triangles, point, normal):
        self.names = set(names)
        self._inds = {names[0]: triangles[0], names[1]: triangles[1]}
        self._point = point
        self._normal = normal

    @property
    def point(self):
        return self._point

    @property
    def normal(self):
        return self._normal

    @property
    def depth(self):
        """None: meshclash computes no penetration depth (see the class docstring)."""
        return None

    def index(self, name):
        return self._inds[name]

    def __repr__(self):
        return f"ContactData(names={self.names!r}, point={self._point!r})"


class DistanceData:
    """The nearest pair, as trimesh's ``DistanceData``: ``names``, ``distance``,
    ``index(name)`` (the triangle with the closest point, a row of that object's faces) and
    ``point(name)`` (the closest point, world coordinates, a (3,) array).

    For objects that interfere the distance is 0 and both names have the same point, a point
    the two solids share: where the surfaces meet, a point of the first intersecting triangle
    pair (``check``'s first pair), whose triangles are the indices; for a part inside the
    other, the inner part's vertex found inside, and each object's triangle nearest it.
    ``result`` is the ``SolidDistanceResult`` it was made of.
    """

    def __init__(self, names, result, contact=None):
        self.names = set(names)
        self._distance = result.solid_distance
        if result.interferes:
            ia, ib, p, _ = contact
            self._inds = {names[0]: ia, names[1]: ib}
            self._points = {names[0]: p, names[1]: p.copy()}
        else:
            self._inds = {names[0]: result.triangle_a, names[1]: result.triangle_b}
            self._points = {names[0]: result.closest_point_a, names[1]: result.closest_point_b}
        self.result = result

    @property
    def distance(self):
        return self._distance

    def index(self, name):
        return self._inds[name]

    def point(self, name):
        return self._points[name]

    def __repr__(self):
        return f"DistanceData(names={self.names!r}, distance={self._distance!r})"


def _returns(result, extra):
    """trimesh's convention: the answer alone, or a tuple with what was asked for."""
    if not extra:
        return result
    return (result, *extra)


class CollisionManager:
    """A set of named, placed meshes to test against each other, one mesh, or another manager;
    trimesh's ``CollisionManager`` interface.

    Unlike FCL (which trimesh's manager uses), a part entirely inside another collides with it
    (solid semantics), and contacts are exact: touching counts, near misses do not.

    ``backend``: "auto", "cpu", "gpu" or a ``Backend``. Yes/no answers and distances are found
    on the CPU whatever the backend (they stop at the first evidence, in microseconds); the
    contact lists of ``return_data`` come from ``check`` on the backend. Meshes stay prepared,
    and on the GPU once used there, across calls. Transforms are 4x4 rigid matrices, checked
    as ``--matrix`` is (``ValueError`` otherwise).
    """

    def __init__(self, backend="auto"):
        if not (backend is None or isinstance(backend, (str, _meshclash.Backend))):
            # As every query's `backend=` (a review's helper: here a TypeError of PyO3's, there
            # a ValueError).
            raise TypeError('backend must be "auto", "cpu", "gpu" or a Backend')
        self._backend = backend if isinstance(backend, _meshclash.Backend) else _meshclash.backend(backend)
        # name -> (Mesh, 4x4 float64 transform), in the order added.
        self._objs = {}
        # Each unit the objects' files declare (as one name: "mm" is "millimeter") -> how many.
        self._units = collections.Counter()

    @property
    def backend(self):
        return self._backend

    def add_object(self, name, mesh, transform=None):
        """Add (or replace) the object ``name``: ``mesh`` (a ``Mesh``, or anything with
        ``.vertices`` and ``.faces``) placed by ``transform`` (4x4, None for the identity).
        Returns the prepared ``Mesh``."""
        transform = _meshclash.rigid_transform(transform)
        mesh = _as_mesh(mesh)
        if name in self._objs:
            self._count_unit(self._objs[name][0], -1)
        clash = self._unit_clash(mesh, self, skip=name)
        self._objs[name] = (mesh, transform)
        self._count_unit(mesh, 1)
        if clash:
            _warn_units(name, mesh.unit, *clash)
        return mesh

    def _count_unit(self, mesh, k):
        unit = _unit(mesh)
        if unit is not None:
            self._units[unit] += k
            if self._units[unit] == 0:
                del self._units[unit]

    @staticmethod
    def _unit_clash(mesh, manager, skip=None):
        """An object of ``manager`` (but ``skip``) whose file declares another unit than
        ``mesh``'s: ``(name, unit)``, or None. Objects whose units differ are compared as they
        are, which is almost never meant: check's warning. The units counted first, so that a
        query costs no look at every object unless they differ."""
        unit = _unit(mesh)
        if unit is None or all(u == unit for u in manager._units):
            return None
        for other, (m, _) in manager._objs.items():
            if other != skip and _unit(m) not in (None, unit):
                return other, m.unit
        return None

    def _warn_units_other(self, other_manager):
        """The warning where an object here and one of ``other_manager`` declare different
        units (names may repeat across managers)."""
        if len(set(self._units) | set(other_manager._units)) < 2:
            return
        for name, (mesh, _) in self._objs.items():
            clash = self._unit_clash(mesh, other_manager)
            if clash:
                _warn_units(name, mesh.unit, *clash, stacklevel=4)
                return

    def remove_object(self, name):
        """Remove the object ``name`` (``ValueError`` if there is none)."""
        if name not in self._objs:
            raise ValueError(f"{name} not in collision manager!")
        self._count_unit(self._objs.pop(name)[0], -1)

    def set_transform(self, name, transform):
        """Place the object ``name`` by ``transform`` (4x4) instead."""
        if name not in self._objs:
            raise ValueError(f"{name} not in collision manager!")
        self._objs[name] = (self._objs[name][0], _meshclash.rigid_transform(transform))

    def _lists(self, skip=None):
        names = [n for n in self._objs if skip is None or n != skip]
        return names, [self._objs[n][0] for n in names], [self._objs[n][1] for n in names]

    def _contacts(self, pair_names, a, ta, b, tb):
        return [
            ContactData(pair_names, (ia, ib), point, normal)
            for ia, ib, point, normal in (
                _completed(c, a, ta, b, tb) for c in _meshclash.contacts(a, ta, b, tb, self._backend)
            )
        ]

    def in_collision_single(self, mesh, transform=None, return_names=False, return_data=False):
        """Does ``mesh`` (placed by ``transform``) collide with any object of the manager.

        Returns ``is_collision``, then the set of names of the objects it collides with (if
        ``return_names``), then a list of ``ContactData`` (if ``return_data``; the mesh is
        named "__external" in them)."""
        mesh, transform = _as_mesh(mesh), _meshclash.rigid_transform(transform)
        clash = self._unit_clash(mesh, self)
        if clash:
            _warn_units("__external", mesh.unit, *clash)
        names, meshes, transforms = self._lists()
        want = return_names or return_data
        pairs = _meshclash.interfering_pairs(
            [mesh], [transform], meshes, transforms, not want, self._backend
        )
        extra = []
        if return_names:
            extra.append({names[j] for _, j in pairs})
        if return_data:
            extra.append(
                [
                    c
                    for _, j in pairs
                    for c in self._contacts(("__external", names[j]), mesh, transform, meshes[j], transforms[j])
                ]
            )
        return _returns(bool(pairs), extra)

    def in_collision_internal(self, return_names=False, return_data=False):
        """Does any pair of the manager's objects collide.

        Returns ``is_collision``, then the set of colliding pairs as name tuples in sorted
        order (if ``return_names``), then a list of ``ContactData`` (if ``return_data``)."""
        names, meshes, transforms = self._lists()
        want = return_names or return_data
        pairs = _meshclash.interfering_pairs(meshes, transforms, None, None, not want, self._backend)
        extra = []
        if return_names:
            extra.append({tuple(sorted((names[i], names[j]))) for i, j in pairs})
        if return_data:
            extra.append(
                [
                    c
                    for i, j in pairs
                    for c in self._contacts((names[i], names[j]), meshes[i], transforms[i], meshes[j], transforms[j])
                ]
            )
        return _returns(bool(pairs), extra)

    def in_collision_other(self, other_manager, return_names=False, return_data=False):
        """Does any object of this manager collide with any of ``other_manager``.

        Returns ``is_collision``, then the set of colliding pairs as (name here, name there)
        (if ``return_names``), then a list of ``ContactData`` (if ``return_data``)."""
        self._warn_units_other(other_manager)
        names, meshes, transforms = self._lists()
        onames, omeshes, otransforms = other_manager._lists()
        want = return_names or return_data
        pairs = _meshclash.interfering_pairs(meshes, transforms, omeshes, otransforms, not want, self._backend)
        extra = []
        if return_names:
            extra.append({(names[i], onames[j]) for i, j in pairs})
        if return_data:
            extra.append(
                [
                    c
                    for i, j in pairs
                    for c in self._contacts((names[i], onames[j]), meshes[i], transforms[i], omeshes[j], otransforms[j])
                ]
            )
        return _returns(bool(pairs), extra)

    def min_distance_single(self, mesh, transform=None, return_name=False, return_data=False):
        """The distance from ``mesh`` (placed by ``transform``) to the nearest object of the
        manager, as solids: 0 when it collides with one (inside one included).

        Returns the distance (``inf`` for an empty manager), then the nearest object's name (if
        ``return_name``), then a ``DistanceData`` (if ``return_data``; the mesh is named
        "__external" in it)."""
        mesh, transform = _as_mesh(mesh), _meshclash.rigid_transform(transform)
        clash = self._unit_clash(mesh, self)
        if clash:
            _warn_units("__external", mesh.unit, *clash)
        names, meshes, transforms = self._lists()
        best = _meshclash.nearest_pair([mesh], [transform], meshes, transforms, self._backend)
        pair = lambda i, j: (("__external", names[j]), (mesh, transform, meshes[j], transforms[j]))  # noqa: E731
        return self._distance_returns(best, pair, return_name, return_data, single=True)

    def min_distance_internal(self, name=None, return_names=False, return_data=False):
        """The distance between the nearest two objects of the manager (or, with ``name``,
        between that object and the nearest other), as solids: 0 when some collide.

        Returns the distance (``inf`` with fewer than two objects), then the two names in
        sorted order (if ``return_names``), then a ``DistanceData`` (if ``return_data``)."""
        if name is not None:
            if name not in self._objs:
                raise ValueError(f"{name} not in collision manager!")
            names, meshes, transforms = self._lists(skip=name)
            mesh, transform = self._objs[name]
            best = _meshclash.nearest_pair([mesh], [transform], meshes, transforms, self._backend)
            pair = lambda i, j: ((name, names[j]), (mesh, transform, meshes[j], transforms[j]))  # noqa: E731
        else:
            names, meshes, transforms = self._lists()
            best = _meshclash.nearest_pair(meshes, transforms, None, None, self._backend)
            pair = lambda i, j: ((names[i], names[j]), (meshes[i], transforms[i], meshes[j], transforms[j]))  # noqa: E731
        return self._distance_returns(best, pair, return_names, return_data, sort_names=True)

    def min_distance_other(self, other_manager, return_names=False, return_data=False):
        """The distance between the nearest object of this manager and of ``other_manager``, as
        solids: 0 when some collide.

        Returns the distance, then (name here, name there) (if ``return_names``), then a
        ``DistanceData`` (if ``return_data``)."""
        self._warn_units_other(other_manager)
        names, meshes, transforms = self._lists()
        onames, omeshes, otransforms = other_manager._lists()
        best = _meshclash.nearest_pair(meshes, transforms, omeshes, otransforms, self._backend)
        pair = lambda i, j: ((names[i], onames[j]), (meshes[i], transforms[i], omeshes[j], otransforms[j]))  # noqa: E731
        return self._distance_returns(best, pair, return_names, return_data)

    def _distance_returns(self, best, pair, return_names, return_data, sort_names=False, single=False):
        """``pair(i, j)``: the names of the nearest pair, and its ``(a, transform_a, b,
        transform_b)``."""
        extra = []
        if best is None:
            # No pair: no names, in the shape trimesh gives them (a pair of None), so that
            # `a, b = names` still unpacks.
            distance, names, data = np.inf, (None, None), None
        else:
            i, j, result = best
            distance = result.solid_distance
            names, parts = pair(i, j)
            data = None
            if return_data:
                # Interfering parts: a point they share, from the first contact (a check).
                contact = _contact(*parts, self._backend) if result.interferes else None
                if result.interferes and contact is None:  # not expected: both are exact
                    contact = _completed((None, None, result.evidence_point, None), *parts)
                data = DistanceData(names, result, contact)
            if sort_names:
                names = tuple(sorted(names))
        if return_names:
            # min_distance_single names one object; the others, two.
            extra.append(names[1] if single else names)
        if return_data:
            extra.append(data)
        return _returns(distance, extra)
