"""Story: a client that reads pg_proc and pg_operator (psql's \\df, sqlsmith, pgjdbc's type cache) finds there
PostgreSQL 15's rows for exactly the functions, aggregates and operators Shoal answers, and 'name'::regproc
finds them as on PostgreSQL 15.

sql/catalog/builtin_routines.inc holds those rows, written by sql/catalog/generate_builtin_routines.py, which
calls each of PostgreSQL's functions and operators on Shoal with typed NULLs. The first test runs that probe
again against the cluster and the scratch PostgreSQL: a function Shoal gains or loses without the file being
regenerated fails it."""

import importlib.util

import psycopg
import pytest

from cluster import REPO_ROOT
from postgres_oracle import answer

GENERATOR = REPO_ROOT / "sql" / "catalog" / "generate_builtin_routines.py"


def load_generator():
    spec = importlib.util.spec_from_file_location("generate_builtin_routines", GENERATOR)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def servers(cluster, postgres):
    shoal = f"host=127.0.0.1 port={cluster.port} user=shoal dbname=shoal connect_timeout=10"
    return shoal, postgres.conninfo()


def test_pg_proc_and_pg_operator_list_exactly_what_shoal_answers(servers):
    shoal, oracle = servers
    generator = load_generator()
    with psycopg.connect(oracle, autocommit=True) as postgres, psycopg.connect(shoal) as connection:
        routines, operators = generator.probe_all(postgres, connection)
        listed_routines = {oid for (oid,) in connection.execute("SELECT oid FROM pg_proc")}
        listed_operators = {oid for (oid,) in connection.execute("SELECT oid FROM pg_operator")}
    probed_routines = {row[0] for row in routines}
    probed_operators = {row[0] for row in operators}
    # upper(text), count(*), string_agg(text, text); int4 + int4, text = text
    assert {871, 2803, 3538} <= probed_routines and {551, 98} <= probed_operators
    assert listed_routines - probed_routines == set(), "listed, but Shoal does not answer them (regenerate)"
    assert probed_routines - listed_routines == set(), "Shoal answers them, but pg_proc lacks them (regenerate)"
    assert listed_operators == probed_operators


ROUTINE_COLUMNS = ("oid, proname, pronamespace, prokind, proretset, proisstrict, provolatile, proparallel, "
                   "provariadic, pronargs, pronargdefaults, prorettype, proargtypes::text, prosrc, prolang, "
                   "pg_get_function_arguments(oid), pg_get_function_identity_arguments(oid), "
                   "pg_get_function_result(oid), pg_function_is_visible(oid)")
OPERATOR_COLUMNS = ("oid, oprname, oprnamespace, oprkind, oprcanmerge, oprcanhash, oprleft, oprright, oprresult, "
                    "oprcom, oprnegate, oprcode::oid")


@pytest.mark.parametrize("table, columns", [("pg_proc", ROUTINE_COLUMNS), ("pg_operator", OPERATOR_COLUMNS)])
def test_each_row_is_postgresqls(servers, table, columns):
    shoal, oracle = servers
    kind, names, shoal_rows = answer(shoal, f"SELECT {columns} FROM pg_catalog.{table} ORDER BY oid")
    assert kind == "rows" and shoal_rows
    oids = ", ".join(str(row[0]) for row in shoal_rows)
    assert answer(oracle, f"SELECT {columns} FROM pg_catalog.{table} WHERE oid IN ({oids}) ORDER BY oid") == (
        "rows", names, shoal_rows)


# Names with the same overloads on both servers: PostgreSQL has more overloads of some names Shoal has
# ('upper'::regproc is ambiguous there, as upper(anyrange) exists).
@pytest.mark.parametrize("sql", [
    "SELECT 'replace'::regproc::oid, 'pg_catalog.version'::regproc::oid",
    "SELECT 'replace'::regproc, 'quote_ident'::regproc::text",
    "SELECT 'char_length'::regproc",  # 42725: char_length(text) and char_length(character)
    "SELECT 'nosuch'::regproc",
    "SELECT 'public.replace'::regproc",
    "SELECT to_regproc('nosuch'), to_regproc('replace')::oid",
    "SELECT proname, oid::regproc::text FROM pg_proc WHERE proname IN ('replace', 'version', 'quote_ident') "
    "ORDER BY oid",
    "SELECT count(*) FROM pg_proc p JOIN pg_type t ON t.oid = p.prorettype WHERE p.proname = 'char_length'",
    "SELECT p.proname FROM pg_proc p WHERE p.prokind = 'a' AND p.proname IN ('sum', 'max', 'string_agg') "
    "AND p.pronargs = 1 AND p.proargtypes[0] = 'int4'::regtype ORDER BY 1",
    "SELECT oprname, oprresult::regtype::text FROM pg_operator WHERE oprleft = 'int4'::regtype "
    "AND oprright = 'int4'::regtype AND oprname IN ('+', '<', '=') ORDER BY 1",
])
def test_regproc_and_routine_lookups_answer_as_on_postgresql(servers, sql):
    shoal, oracle = servers
    assert answer(shoal, sql) == answer(oracle, sql)


def test_information_schema_routines_describes_each_routine_as_postgresql(servers):
    """information_schema.routines, every column, for each routine Shoal lists (PostgreSQL lists all of its own);
    the catalog columns name each server's own database."""
    shoal, oracle = servers
    with psycopg.connect(shoal, autocommit=True) as connection:
        ours = connection.execute("SELECT * FROM information_schema.routines ORDER BY specific_name").fetchall()
    assert len(ours) == len(answer(shoal, "SELECT oid FROM pg_proc")[2])
    with psycopg.connect(oracle, autocommit=True) as connection:
        theirs = connection.execute("SELECT * FROM information_schema.routines WHERE specific_name = ANY(%s) "
                                    "ORDER BY specific_name", ([row[2] for row in ours],)).fetchall()
        database = connection.execute("SELECT current_database()").fetchone()[0]
    catalogs = {0, 3, 28}  # specific_catalog, routine_catalog, type_udt_catalog
    assert [tuple("shoal" if i in catalogs and cell == database else cell for i, cell in enumerate(row))
            for row in theirs] == ours
