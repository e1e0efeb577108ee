"""The install from pyproject.toml carries every package and data file the code imports.

CI installs pvsim non-editable (``pip install ".[test]"``), so a package left out of
``[tool.setuptools] packages`` works in a developer's editable checkout and fails there.
"""
from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _config() -> dict:
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["tool"]["setuptools"]


def test_every_package_in_the_tree_is_installed():
    declared = set(_config()["packages"])
    found = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for top in ("simcore", "strategies", "experiments")
        for init in (ROOT / top).rglob("__init__.py")
        if "__pycache__" not in init.parts
    }
    assert found - declared == set(), f"packages missing from pyproject.toml: {sorted(found - declared)}"
    assert declared - found == set(), f"pyproject.toml names packages that do not exist: {sorted(declared - found)}"


def test_every_shipped_data_file_matches_a_package_data_pattern():
    data = _config().get("package-data", {})
    for package, patterns in data.items():
        base = ROOT.joinpath(*package.split("."))
        for pattern in patterns:
            assert list(base.glob(pattern)), f"package-data {package}: {pattern} matches no file"
    for npz in list((ROOT / "simcore").rglob("*.npz")) + list((ROOT / "strategies").rglob("*.npz")):
        package_dir = npz.parent
        while not (package_dir / "__init__.py").exists():
            package_dir = package_dir.parent
        package = ".".join(package_dir.relative_to(ROOT).parts)
        rel = npz.relative_to(package_dir).as_posix()
        assert any(Path(rel).match(p) for p in data.get(package, ())), \
            f"{npz.relative_to(ROOT)} is not installed: no package-data pattern of {package} matches {rel}"
