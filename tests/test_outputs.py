"""Experiments' results files are written whole or not at all (experiments/outputs.py)."""
import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from experiments.outputs import save_figure, write_csv, write_json, write_text  # noqa: E402


def _figure():
    fig, ax = plt.subplots(figsize=(2, 2))
    ax.plot([0, 1], [1, 0])
    return fig


WRITERS = {  # by the suffix of the file each writes
    "txt": (lambda p: write_text(p, "new\n"), lambda p: p.read_text() == "new\n"),
    "json": (lambda p: write_json(p, {"rows": [1, 2]}), lambda p: json.loads(p.read_text()) == {"rows": [1, 2]}),
    "csv": (lambda p: write_csv(pd.DataFrame({"a": [1, 2], "b": ["x", "y"]}), p),
            lambda p: pd.read_csv(p).to_dict("list") == {"a": [1, 2], "b": ["x", "y"]}),
    "png": (lambda p: save_figure(_figure(), p, dpi=50), lambda p: p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"),
    "svg": (lambda p: save_figure(_figure(), p), lambda p: b"<svg" in p.read_bytes()),
}


@pytest.mark.parametrize("kind", WRITERS)
def test_each_writer_writes_the_whole_file(tmp_path, kind):
    write, check = WRITERS[kind]
    path = tmp_path / f"out.{kind}"
    write(path)
    assert check(path)
    assert [p.name for p in tmp_path.iterdir()] == [path.name]
    plt.close("all")


@pytest.mark.parametrize("kind", WRITERS)
def test_a_failed_write_keeps_the_old_file_whole(tmp_path, kind, disk_full):
    write, _ = WRITERS[kind]
    path = tmp_path / f"out.{kind}"
    path.write_bytes(b"the rows measured so far")
    with disk_full(), pytest.raises(OSError, match="disk full"):
        write(path)
    assert path.read_bytes() == b"the rows measured so far"
    assert [p.name for p in tmp_path.iterdir()] == [path.name]
    plt.close("all")


def test_a_chart_path_without_a_suffix_is_refused_by_name(tmp_path):
    path = tmp_path / "chart"
    with pytest.raises(ValueError, match=r"chart.*no suffix"):
        save_figure(_figure(), path)
    assert not path.exists()
    plt.close("all")


def test_a_resumable_study_keeps_its_rows_when_saving_fails(tmp_path, disk_full):
    # experiments.seats saves its rows after every finished field; a failed save must not lose the earlier ones
    from experiments import seats

    path = tmp_path / "seats.json"
    seats._save(path, [{"game": "russian", "gain": 0.001}])
    with disk_full(), pytest.raises(OSError):
        seats._save(path, [{"game": "russian", "gain": 0.001}, {"game": "russian", "gain": 0.002}])
    assert seats._load(path) == [{"game": "russian", "gain": 0.001}]
