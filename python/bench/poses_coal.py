"""Side by side: Coal 3 (FCL's successor) and `meshclash poses` on the same random poses of the
shared stanford_bunny around igea (the poses issue's benchmark). Coal: collide, then distance
when apart, on one thread (it has no batch call), OBBRSS trees built before timing. meshclash:
the CLI's `timings_ms.total`, the query alone (loading, preparing and writing excluded).

    python python/bench/poses_coal.py [POSES] [MESHCLASH_BIN]

Needs `pip install coal trimesh numpy`. Prints both times and how many poses the two agree
interfere on, and the largest distance difference where both say apart.
"""

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import coal
import numpy as np
import trimesh

ROOT = Path(__file__).resolve().parents[2]
MESHES = ROOT.parent / "shared" / "cases" / "meshes"


def random_poses(k, a, b, seed=7):
    """Rotations uniform in Euler angles, B's centre within ±(0.75 A's + 0.5 B's diagonal)."""
    rng = np.random.default_rng(seed)
    reach = np.linalg.norm(a.extents) * 0.75 + np.linalg.norm(b.extents) * 0.5
    out = np.zeros((k, 4, 4))
    for i in range(k):
        m = trimesh.transformations.euler_matrix(*np.radians(rng.uniform(0, 360, 3)), "sxyz")
        centre = a.bounds.mean(axis=0) + rng.uniform(-reach, reach, 3)
        m[:3, 3] = centre - m[:3, :3] @ b.bounds.mean(axis=0)
        out[i] = m
    return out


def coal_model(mesh):
    m = coal.BVHModelOBBRSS()
    m.beginModel(len(mesh.faces), len(mesh.vertices))
    m.addVertices(np.asarray(mesh.vertices, dtype=float))
    m.addTriangles(np.asarray(mesh.faces, dtype=np.int64))
    m.endModel()
    return m


def run_coal(a, b, poses):
    ma, mb = coal_model(a), coal_model(b)
    ident = coal.Transform3s()
    creq, dreq = coal.CollisionRequest(), coal.DistanceRequest()
    hits, dists = [], []
    t = time.perf_counter()
    for m in poses:
        tb = coal.Transform3s(m[:3, :3].copy(), m[:3, 3].copy())
        cres = coal.CollisionResult()
        hit = coal.collide(ma, ident, mb, tb, creq, cres) > 0
        d = 0.0
        if not hit:
            dres = coal.DistanceResult()
            d = coal.distance(ma, ident, mb, tb, dreq, dres)
        hits.append(hit)
        dists.append(d)
    return time.perf_counter() - t, np.array(hits), np.array(dists)


def run_meshclash(binary, poses):
    with tempfile.TemporaryDirectory() as tmp:
        npy, out = Path(tmp) / "poses.npy", Path(tmp) / "out.json"
        np.save(npy, poses)
        args = [binary, "poses", str(MESHES / "igea.stl"), str(MESHES / "stanford_bunny.stl")]
        res = subprocess.run(args + [str(npy), "--json", "--out", str(out)],
                             check=True, capture_output=True, text=True)
        summary = json.loads(res.stdout)
        rows = json.loads(out.read_text())
    hits = np.array([r["interferes"] for r in rows])
    dists = np.array([r["distance"] for r in rows])
    return summary["timings_ms"]["total"] / 1e3, hits, dists


def main():
    k = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    binary = sys.argv[2] if len(sys.argv) > 2 else str(ROOT / "target" / "release" / "meshclash")
    a = trimesh.load(MESHES / "igea.stl")
    b = trimesh.load(MESHES / "stanford_bunny.stl")
    poses = random_poses(k, a, b)
    tc, hc, dc = run_coal(a, b, poses)
    tm, hm, dm = run_meshclash(binary, poses)
    both_apart = ~hc & ~hm
    print(f"{k} poses: coal {tc:.2f} s (1 thread), meshclash {tm:.2f} s "
          f"({tc / tm:.1f}x), interfering coal {hc.sum()} meshclash {hm.sum()}, "
          f"disagree {(hc != hm).sum()}, largest distance difference "
          f"{np.abs(dc - dm)[both_apart].max():.3g}")


if __name__ == "__main__":
    main()
