"""Calling overhead: the same `check` of two prepared 100k-triangle meshes from Python and from
Rust (examples/check_overhead.rs), on the same backend, alternating runs.

    python python/bench/overhead.py [--backend cpu|gpu] [--calls 30] [--rounds 3]

Writes two linked tori (100 000 triangles each) as STL to a temporary folder, then per round:
the Rust example's calls, then the same calls through `meshclash.check`. Prints the medians and
the ratio. A benchmark, not a test: run it on a quiet machine.
"""

import argparse
import json
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

import meshclash as mc

ROOT = Path(__file__).resolve().parents[2]


def torus(big_r, r, nu, nv):
    """A torus of 2 nu nv triangles, as a triangle soup (nu nv quads, two triangles each)."""
    u = 2 * np.pi * np.arange(nu) / nu
    v = 2 * np.pi * np.arange(nv) / nv
    uu, vv = np.meshgrid(u, v, indexing="ij")
    rr = big_r + r * np.cos(vv)
    verts = np.stack([rr * np.cos(uu), rr * np.sin(uu), r * np.sin(vv)], axis=-1).reshape(-1, 3)
    i, j = np.meshgrid(np.arange(nu), np.arange(nv), indexing="ij")
    idx = lambda a, b: (a % nu) * nv + (b % nv)  # noqa: E731
    q = [idx(i, j), idx(i + 1, j), idx(i + 1, j + 1), idx(i, j + 1)]
    faces = np.concatenate([np.stack([q[0], q[1], q[2]], -1), np.stack([q[0], q[2], q[3]], -1)]).reshape(-1, 3)
    return verts, faces


def write_stl(path, verts, faces):
    tris = verts[faces].astype(np.float32)
    rec = np.zeros(len(tris), dtype=[("n", "<f4", 3), ("v", "<f4", (3, 3)), ("attr", "<u2")])
    rec["v"] = tris
    with open(path, "wb") as f:
        f.write(b"\0" * 80)
        f.write(np.uint32(len(tris)).tobytes())
        f.write(rec.tobytes())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--backend", default="cpu", choices=["cpu", "gpu"])
    ap.add_argument("--calls", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()

    tmp = Path(tempfile.mkdtemp())
    verts, faces = torus(1.0, 0.3, 250, 200)
    write_stl(tmp / "a.stl", verts, faces)
    write_stl(tmp / "b.stl", verts, faces)
    subprocess.run(
        ["cargo", "build", "--release", "--quiet", "--example", "check_overhead"], cwd=ROOT, check=True
    )
    exe = ROOT / "target" / "release" / "examples" / "check_overhead"

    a, b = mc.load(tmp / "a.stl"), mc.load(tmp / "b.stl")
    backend = mc.backend(args.backend)
    # B turned 90 degrees about x and moved along x by 1.5: its tube crosses A's twice (a clash
    # review's usual call); moved by 100: far apart, the query itself takes microseconds, so
    # what is left is the cost of calling.
    for shift in (1.5, 100.0):
        pose_b = np.array([[1, 0, 0, shift], [0, 0, -1, 0.03], [0, 1, 0, 0.02], [0, 0, 0, 1]], dtype=float)
        measure(exe, tmp, a, b, pose_b, backend, args)


def measure(exe, tmp, a, b, pose_b, backend, args):
    matrix = ",".join(repr(float(x)) for x in pose_b.ravel())
    for _ in range(3):  # warm-up, as the Rust side's (the GPU uploads happen here)
        r = mc.check(a, b, transform_b=pose_b, backend=backend)
    rust, python = [], []
    for _ in range(args.rounds):
        out = subprocess.run(
            [str(exe), str(tmp / "a.stl"), str(tmp / "b.stl"), matrix, backend.kind, str(args.calls)],
            check=True, capture_output=True, text=True,
        )
        got = json.loads(out.stdout)
        assert got["pairs"] == r.pair_count, (got["pairs"], r.pair_count)
        rust += got["ms"]
        for _ in range(args.calls):
            t = time.perf_counter()
            mc.check(a, b, transform_b=pose_b, backend=backend)
            python.append((time.perf_counter() - t) * 1e3)

    mr, mp = statistics.median(rust), statistics.median(python)
    print(f"{len(a)} triangles per mesh, B at x = {pose_b[0, 3]}: {r.pair_count} intersecting pairs, "
          f"min distance {r.min_distance:.3g}, backend {backend.name}")
    print(f"rust   median {mr:8.3f} ms  min {min(rust):8.3f} ms  ({len(rust)} calls)")
    print(f"python median {mp:8.3f} ms  min {min(python):8.3f} ms  ({len(python)} calls)")
    print(f"python / rust: {mp / mr:.3f} (median), {min(python) / min(rust):.3f} (min); "
          f"python - rust: {(mp - mr) * 1e3:.1f} us (median)")


if __name__ == "__main__":
    main()
