"""The notebooks run top to bottom on the committed results (without Jupyter)."""
import json
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")
ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name", ["estonian", "slovak"])
def test_notebook_code_runs_on_committed_results(name, monkeypatch):
    nb = json.loads((ROOT / "notebooks" / f"{name}.ipynb").read_text())
    monkeypatch.chdir(ROOT)
    scope = {}
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            exec(compile("".join(cell["source"]), f"{name}.ipynb", "exec"), scope)
