"""The 22 TPC-H queries (tests/tpch/queries) and their official answers (tests/tpch/answers/sf<SF>), as DuckDB
gives them over the same dbgen-identical data: decimals compare exactly, doubles within 1e-9 relative."""

import math
import pathlib

import psycopg

TPCH = pathlib.Path(__file__).resolve().parents[1] / "tpch"


def statements(text):
    """The statements of a query file, without comments."""
    lines = [line for line in text.splitlines() if not line.strip().startswith("--")]
    return [part.strip() for part in "\n".join(lines).split(";") if part.strip()]


def cell(value):
    if value is None:
        return "NULL"
    return str(value).rstrip()


def same(got, expected):
    got, expected = got.rstrip(), expected.rstrip()
    if got == expected:
        return True
    try:
        a, b = float(got), float(expected)
    except ValueError:
        return False
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def run_query(conninfo, query):
    """Query `query` (1..22) through psycopg: the rows of its statement that returns rows, as text cells."""
    rows = None
    with psycopg.connect(conninfo, autocommit=True) as connection:
        for statement in statements((TPCH / "queries" / f"q{query:02d}.sql").read_text()):
            cursor = connection.execute(statement)
            if cursor.description:
                rows = [[cell(value) for value in row] for row in cursor.fetchall()]
    assert rows is not None, f"Q{query} returned no rows"
    return rows


def assert_official_answer(rows, query, scale_factor):
    name = f"q{query:02d}"
    answer = TPCH / "answers" / f"sf{scale_factor}" / f"{name}.out"
    expected = [line.split("|") for line in answer.read_text().splitlines()[1:] if line]
    assert len(rows) == len(expected), f"{name}: {len(rows)} rows, expected {len(expected)}"
    for index, (got_row, expected_row) in enumerate(zip(rows, expected)):
        assert len(got_row) == len(expected_row), f"{name} row {index}"
        for column, (got, want) in enumerate(zip(got_row, expected_row)):
            assert same(got, want), f"{name} row {index} column {column}: got {got!r}, expected {want!r}"
