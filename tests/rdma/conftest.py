import pathlib
import sys

# The integration tests' cluster helper and TPC-H answer checks serve here too.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "integration"))
