"""Runs a benchmark of this checkout on the code of an older commit.

``python -m bench.before REVISION bench.rules qwirkle --seconds 8`` makes a
temporary git work tree of REVISION, puts this checkout's ``bench/`` in it (so
the same script measures, and prints the same columns), and runs the module
there with this checkout's virtual environment and generated protos; then
removes the work tree. The before/after of a change is then two runs of one
script, one after the other, in one ``make bench``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from bench.fanout import checkout

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    """Runs ``sys.argv[2:]`` as ``python -m ...`` in a work tree of ``sys.argv[1]``."""
    if len(sys.argv) < 3:  # noqa: PLR2004 (a revision and a module)
        sys.exit("usage: python -m bench.before REVISION MODULE [ARGS...]")
    revision, module, *args = sys.argv[1:]
    with checkout(revision) as tree:
        assert tree is not None  # noqa: S101 (a revision was given)
        shutil.rmtree(tree / "bench")
        shutil.copytree(
            ROOT / "bench",
            tree / "bench",
            ignore=shutil.ignore_patterns("node_modules"),
        )
        print(f"# {module} on the code of {revision}", flush=True)
        done = subprocess.run(  # noqa: S603 (our own command)
            [sys.executable, "-m", module, *args], cwd=tree, check=False
        )
    sys.exit(done.returncode)


if __name__ == "__main__":
    main()
