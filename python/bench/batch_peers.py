"""Side by side on the shared igea.stl (the rays/points issue's benchmark): Embree 4 through
Open3D's `RaycastingScene.cast_rays`, Open3D's `compute_closest_points`, libigl's
`fast_winding_number` (where installed), and `meshclash ray`, `closest` and `inside` on the same
rows. meshclash: the CLI's `timings_ms.total`, the query alone (loading, preparing and writing
excluded); peers: the call alone, their scene built before the timer; each the best of 3.

    python python/bench/batch_peers.py [RAYS] [POINTS] [MESHCLASH_BIN] [BACKEND]

Rays: origins in the mesh's box and directions on the sphere, both Halton sequences (the ones
`examples/batch_queries.rs` casts); points: the same origins. Needs `pip install open3d-cpu
numpy` (open3d-cpu needs Debian's libusb-1.0-0), optionally `libigl`. Prints each time, the
ratio, and whether the answers agree (rays hit and missed alike, the same triangle where the
two hit; the distances to the nearest point within 1e-6 of the mesh's size; inside alike).
"""

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import open3d as o3d

ROOT = Path(__file__).resolve().parents[2]
MESH = ROOT.parent / "shared" / "cases" / "meshes" / "igea.stl"


def halton(n, base):
    i = np.arange(1, n + 1, dtype=np.int64)
    f, r = np.ones(n), np.zeros(n)
    while (i > 0).any():
        f /= base
        r += f * (i % base)
        i //= base
    return r


def rows(n, lo, hi):
    origins = lo + (hi - lo) * np.stack([halton(n, 2), halton(n, 3), halton(n, 5)], 1)
    u, phi = 2 * halton(n, 7) - 1, 2 * np.pi * halton(n, 11)
    r = np.sqrt(1 - u * u)
    return origins, np.stack([r * np.cos(phi), r * np.sin(phi), u], 1)


def best(f, repeat=3):
    out, times = None, []
    for _ in range(repeat):
        t = time.perf_counter()
        out = f()
        times.append((time.perf_counter() - t) * 1e3)
    return out, min(times)


def meshclash(binary, command, rows_file, out, backend, *extra):
    times = []
    for _ in range(3):
        run = subprocess.run(
            [binary, command, str(MESH), rows_file, "--out", out, "--json", "--backend", backend, *extra],
            check=True, capture_output=True, text=True,
        )
        times.append(json.loads(run.stdout)["timings_ms"]["total"])
    return np.load(out), min(times)


def report(name, ours, theirs, peer, agree):
    print(f"{name}: meshclash {ours:.0f} ms, {peer} {theirs:.0f} ms ({theirs / ours:.2f}x), {agree}")


def main():
    n_rays = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    n_points = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
    binary = sys.argv[3] if len(sys.argv) > 3 else str(ROOT / "target" / "release" / "meshclash")
    backend = sys.argv[4] if len(sys.argv) > 4 else "cpu"
    mesh = o3d.t.io.read_triangle_mesh(str(MESH))
    v = mesh.vertex.positions.numpy().astype(np.float64)
    lo, hi = v.min(0), v.max(0)
    scene = o3d.t.geometry.RaycastingScene()
    scene.add_triangles(mesh)
    size = np.linalg.norm(hi - lo)
    with tempfile.TemporaryDirectory() as tmp:
        o, d = rows(n_rays, lo, hi)
        np.save(f"{tmp}/rays.npy", np.hstack([o, d]))
        embree, t_embree = best(lambda: scene.cast_rays(o3d.core.Tensor(np.hstack([o, d]).astype(np.float32))))
        ours, t_ours = meshclash(binary, "ray", f"{tmp}/rays.npy", f"{tmp}/hits.npy", backend)
        theirs = np.isfinite(embree["t_hit"].numpy())
        both = ours["hit"] & theirs
        same = (ours["triangle"][both] == embree["primitive_ids"].numpy()[both]).mean()
        report(f"rays, first hit, {n_rays}", t_ours, t_embree, "Embree",
               f"hits {ours['hit'].sum()} / {theirs.sum()}, same triangle on {same:.4%} of common hits")

        points = o[:n_points]
        np.save(f"{tmp}/points.npy", points)
        query = o3d.core.Tensor(points.astype(np.float32))
        near, t_near = best(lambda: scene.compute_closest_points(query))
        ours, t_ours = meshclash(binary, "closest", f"{tmp}/points.npy", f"{tmp}/closest.npy", backend)
        gap = np.abs(np.linalg.norm(near["points"].numpy() - points, axis=1) - ours["distance"]).max()
        report(f"closest points, {n_points}", t_ours, t_near, "Open3D",
               f"distances within {gap / size:.1e} of the size")

        ours, t_ours = meshclash(binary, "inside", f"{tmp}/points.npy", f"{tmp}/inside.npy", backend)
        try:
            import igl
        except ImportError:
            print(f"inside, {n_points}: meshclash {t_ours:.0f} ms (libigl not installed)")
            return
        vs, fs = np.asarray(v), mesh.triangle.indices.numpy().astype(np.int64)
        w, t_igl = best(lambda: igl.fast_winding_number(vs, fs, points))
        agree = ((w > 0.5) == ours["inside"]).mean()
        report(f"inside, {n_points}", t_ours, t_igl, "libigl", f"inside alike on {agree:.4%}")


if __name__ == "__main__":
    main()
