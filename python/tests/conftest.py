"""Shared fixtures: the shared test cases, the command line to compare with, the backends."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

import meshclash as mc

ROOT = Path(__file__).resolve().parents[2]
CASES = Path(os.environ.get("MESHCLASH_CASES", ROOT.parent / "shared" / "cases"))


def _binary():
    """The meshclash command line: $MESHCLASH_BIN, else the newest one cargo built here, else
    built now."""
    if os.environ.get("MESHCLASH_BIN"):
        return os.environ["MESHCLASH_BIN"]
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    built = [p for p in (target / "release" / "meshclash", target / "debug" / "meshclash") if p.exists()]
    if not built:
        subprocess.run(["cargo", "build", "--quiet", "--bin", "meshclash"], cwd=ROOT, check=True)
        built = [target / "debug" / "meshclash"]
    return str(max(built, key=lambda p: p.stat().st_mtime))


@pytest.fixture(scope="session")
def cli():
    """Run the command line; its JSON (stdout) for exit 0, else (code, stderr)."""
    exe = _binary()
    env = dict(os.environ)

    def run(*args, json_out=True):
        p = subprocess.run([exe, *map(str, args)], capture_output=True, text=True, env=env)
        if not json_out:
            return p.returncode, p.stderr
        assert p.returncode == 0, p.stderr
        return json.loads(p.stdout)

    return run


def gpu_available():
    try:
        mc.backend("gpu")
        return True
    except RuntimeError:
        return False


@pytest.fixture(params=["cpu", "gpu"])
def backend(request):
    """Each backend; the GPU skips where there is none, unless MESHCLASH_REQUIRE_GPU=1 (CI)."""
    if request.param == "gpu" and not gpu_available():
        if os.environ.get("MESHCLASH_REQUIRE_GPU") == "1":
            pytest.fail("MESHCLASH_REQUIRE_GPU=1 but no GPU adapter could be set up")
        pytest.skip("no GPU adapter (set MESHCLASH_REQUIRE_GPU=1 to fail instead)")
    return request.param


_loaded = {}


def load_case_mesh(rel):
    """A shared mesh, loaded and prepared once per session (its GPU uploads kept with it)."""
    if rel not in _loaded:
        _loaded[rel] = mc.load(CASES / rel)
    return _loaded[rel]


def matrix_arg(m):
    return ",".join(repr(float(x)) for row in m for x in row)


def without_run_fields(d):
    """A CLI answer less what depends on who answered and when."""
    return {k: v for k, v in d.items() if k not in ("backend", "adapter", "timings_ms")}


def which(name):
    return shutil.which(name)
