"""DESIGN.md: imports flow one way; `rules` stays pure (no cv2, no numpy, no I/O, no other
package of the project)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ["rules", "video", "calibration", "vision", "referee", "synth", "live"]
ALLOWED = {  # what each package may import from the project
    "rules": {"rules"},
    "video": {"rules", "video"},
    "calibration": {"rules", "video", "calibration"},
    "vision": {"rules", "video", "calibration", "vision"},
    "synth": {"rules", "video", "calibration", "synth"},
    "referee": set(PACKAGES) - {"live"},
    "live": set(PACKAGES),  # the live mode sits on top: it uses the referee
}
IO_NAMES = {"open", "input", "print"}


def imported_modules(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


def test_imports_flow_one_way():
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            for name in imported_modules(path):
                top = name.split(".")[0]
                if top in PACKAGES:
                    assert top in ALLOWED[package], f"{path.relative_to(ROOT)} imports {name}"


def test_rules_uses_only_the_standard_library_and_does_no_io():
    stdlib = set(sys.stdlib_module_names)
    for path in (ROOT / "rules").rglob("*.py"):
        for name in imported_modules(path):
            top = name.split(".")[0]
            assert top in stdlib or top == "rules", f"{path.name} imports {name}"
            assert top not in {"os", "io", "pathlib", "subprocess", "socket"}, path.name
        tree = ast.parse(path.read_text(encoding="utf-8"))
        calls = {n.func.id for n in ast.walk(tree)
                 if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
        assert not calls & IO_NAMES, f"{path.name} calls {calls & IO_NAMES}"
