"""notebooks/analysis.ipynb runs top to bottom (nbclient) on a tiny run made here."""

from __future__ import annotations

from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "analysis.ipynb"


def test_the_analysis_notebook_runs_on_a_tiny_run(tmp_path, monkeypatch, tiny_run):
    run = tiny_run
    monkeypatch.setenv("TW_RUN_DIR", str(run))
    monkeypatch.setenv("TW_RATING_GAMES", "16")
    monkeypatch.setenv("TW_RATING_SIMULATIONS", "1")
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(
        notebook, timeout=180, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()  # raises CellExecutionError on the first failing cell
    outputs = [out for cell in notebook.cells if cell.cell_type == "code" for out in cell.get("outputs", [])]
    kinds = {kind for out in outputs for kind in out.get("data", {})}
    text = "".join(out.get("text", "") for out in outputs if out.get("output_type") == "stream")
    assert "image/png" in kinds and "image/svg+xml" in kinds
    assert "ratings (Elo, random = 0)" in text and "run/g1@1" in text
    assert "shown: 2" in text
    assert (run / "ratings" / "results.sqlite").exists() and (run / "ratings" / "ratings.json").exists()
    # The notebook in the repository carries no outputs.
    stored = nbformat.read(NOTEBOOK, as_version=4)
    assert all(not cell.get("outputs") for cell in stored.cells if cell.cell_type == "code")
