import pathlib
import sys

# The TPC-H answers helper is shared with tests/integration.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "integration"))
