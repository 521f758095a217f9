#!/usr/bin/env python3
"""Writes builtin_routines.inc: PostgreSQL 15's pg_proc and pg_operator rows for the functions, aggregates and
operators Shoal has, which Shoal's pg_proc and pg_operator list and regproc resolves.

Shoal binds its functions by hand (sql/binder), so nothing in its code lists them. This script asks: for each
of PostgreSQL 15's functions, aggregates and operators over types Shoal has, it calls it on a running Shoal
with typed NULL arguments (`SELECT f(NULL::int4, NULL::text)`, `SELECT NULL::int4 + NULL::int4`) and keeps it
when Shoal answers with the result type PostgreSQL declares. Polymorphic signatures are tried with int4 for
their element type. The rows themselves (OIDs, flags, pg_get_function_arguments' text) are PostgreSQL's.

Run it again when Shoal gains a function, from the repository root:
  .venv/bin/python sql/catalog/generate_builtin_routines.py --postgres 'host=/tmp/pg port=5432 user=postgres' \\
      --shoal 'host=127.0.0.1 port=55433 user=shoal dbname=shoal'
tests/integration/test_builtin_routines.py checks the file against both servers, so a stale one fails CI."""

import argparse
import pathlib

import psycopg

OUTPUT = pathlib.Path(__file__).with_name("builtin_routines.inc")

# Pseudo-types a polymorphic signature may use, and the concrete type each is probed with.
ELEMENT = 23  # int4
POLYMORPHIC = {2283: ELEMENT, 2776: ELEMENT, 5077: ELEMENT, 5080: ELEMENT,  # any(compatible)(non)element
               2277: 1007, 5078: 1007,  # anyarray, anycompatiblearray: int4[]
               2276: ELEMENT}  # "any"
# Shoal keeps every OID type as a BIGINT and names and cstring as text, so these results stand for PostgreSQL's (where
# Shoal's pg_type lists the type).
RESULT_STANDS_FOR = {20: {20, 26, 2205, 2206, 24, 4089, 4096}, 25: {25, 19, 18, 2275}}
# Functions that act on the server, not on their arguments: never called, never listed.
SIDE_EFFECTS = {"pg_sleep", "pg_terminate_backend", "pg_cancel_backend", "set_config", "pg_reload_conf",
                "pg_rotate_logfile"}

ROUTINE_QUERY = """
select p.oid, p.proname, p.prokind, p.proretset, p.proisstrict, p.provolatile, p.proparallel, p.provariadic,
       p.pronargs, p.pronargdefaults, p.prorettype, p.proargtypes::oid[], p.prosrc, p.prolang, p.procost, p.prorows,
       pg_get_function_arguments(p.oid), pg_get_function_identity_arguments(p.oid), pg_get_function_result(p.oid)
from pg_proc p where p.pronamespace = 'pg_catalog'::regnamespace and p.prokind in ('f', 'a')
  and not coalesce(p.proargmodes && array['o', 't', 'b']::"char"[], false)  -- no OUT parameters
order by p.oid"""

OPERATOR_QUERY = """
select o.oid, o.oprname, o.oprkind, o.oprleft, o.oprright, o.oprresult, o.oprcom, o.oprnegate,
       o.oprcode::oid, o.oprcanmerge, o.oprcanhash
from pg_operator o where o.oprnamespace = 'pg_catalog'::regnamespace order by o.oid"""


def quote_ident(name):
    return '"' + name.replace('"', '""') + '"'


def concrete(type_oid, shoal_types):
    """The type to probe a parameter or result with, or None when Shoal's pg_type lacks it (clients such as
    sqlsmith look every routine's types up there)."""
    if type_oid not in shoal_types:
        return None
    return POLYMORPHIC.get(type_oid, type_oid)


def probe(shoal, sql, expected):
    try:
        with shoal.cursor() as cursor:
            cursor.execute(sql)
            got = cursor.description[0].type_code
            cursor.fetchall()
    except psycopg.Error:
        shoal.rollback()
        return False
    shoal.rollback()
    return got == expected or expected in RESULT_STANDS_FOR.get(got, ())


def cstring(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


# The input, output, binary and typmod functions of the types Shoal's pg_type lists, which pg_type's typinput,
# typoutput, ... name: listed whether or not Shoal can call them (the binary ones take and give internal
# representations), as pg_type's references must resolve ('array_in'::regproc, which pgjdbc's type cache asks).
TYPE_IO_QUERY = """
select distinct f::oid from pg_type t, unnest(array[t.typinput, t.typoutput, t.typreceive, t.typsend, t.typmodin,
                                                   t.typmodout]::oid[]) as f
where t.oid = any(%s) and f <> 0"""


def routines(postgres, shoal, shoal_types, type_names):
    kept = []
    type_io = {oid for (oid,) in postgres.execute(TYPE_IO_QUERY, [sorted(shoal_types)])}
    for row in postgres.execute(ROUTINE_QUERY):
        (oid, name, kind, returns_set, strict, volatility, parallel, variadic, nargs, ndefaults, result, args,
         source, language, cost, rows, arguments, identity, result_text) = row
        if name in SIDE_EFFECTS:
            continue
        if oid in type_io:
            if result in shoal_types and all(a in shoal_types for a in args):
                kept.append(row)
            continue
        probe_args = [concrete(a, shoal_types) for a in args]
        probe_result = concrete(result, shoal_types)
        if probe_result is None or None in probe_args:
            continue
        if result in POLYMORPHIC and result not in (2283, 2277, 5077, 5078):
            continue
        if variadic:  # a variadic "any" may need its arguments in pairs (json_build_object): give two
            probe_args = probe_args * 2
        if kind == "a" and not args:
            call = f"{quote_ident(name)}(*)"
        else:
            call = quote_ident(name) + "(" + ", ".join(f"NULL::{type_names[a]}" for a in probe_args) + ")"
        # NULLs some functions refuse at run time (json_build_object's keys): then binding it must do.
        if not probe(shoal, f"SELECT {call}", probe_result) and \
                not probe(shoal, f"SELECT {call} WHERE false", probe_result):
            continue
        kept.append(row)
    return kept


def operators(postgres, shoal, shoal_types, type_names):
    kept = []
    for row in postgres.execute(OPERATOR_QUERY):
        oid, name, kind, left, right, result, *_ = row
        operands = [concrete(t, shoal_types) if t else 0 for t in (left, right)]
        probe_result = concrete(result, shoal_types)
        if probe_result is None or None in operands or kind not in ("b", "l"):
            continue
        left_text = f"NULL::{type_names[operands[0]]} " if kind == "b" else ""
        if not probe(shoal, f"SELECT {left_text}OPERATOR(pg_catalog.{name}) NULL::{type_names[operands[1]]}",
                     probe_result):
            continue
        kept.append(row)
    return kept


def probe_all(postgres, shoal):
    """PostgreSQL's routine rows and operator rows (ROUTINE_QUERY's and OPERATOR_QUERY's columns) that Shoal
    answers. `shoal` is a connection outside autocommit: each probe is rolled back."""
    shoal_types = {oid for (oid,) in shoal.execute("SELECT oid FROM pg_type")}
    shoal.rollback()
    type_names = dict(postgres.execute("select oid, format_type(oid, null) from pg_type"))
    kept_routines = routines(postgres, shoal, shoal_types, type_names)
    return kept_routines, operators(postgres, shoal, shoal_types, type_names)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--postgres", required=True, help="libpq connection string of a PostgreSQL 15")
    parser.add_argument("--shoal", required=True, help="libpq connection string of a running Shoal")
    options = parser.parse_args()
    with psycopg.connect(options.postgres, autocommit=True) as postgres, psycopg.connect(options.shoal) as shoal:
        kept_routines, kept_operators = probe_all(postgres, shoal)
    lines = ["// Generated by sql/catalog/generate_builtin_routines.py from PostgreSQL 15 and Shoal: do not edit.",
             "// BuiltinRoutine{oid, name, kind, returnsSet, strict, volatility, parallel, variadic, defaults,",
             "//   result, {argument types}, source, language, cost, rows, arguments, identity arguments, result}",
             "#define SHOAL_ROUTINES \\"]
    for (oid, name, kind, returns_set, strict, volatility, parallel, variadic, nargs, ndefaults, result, args,
         source, language, cost, rows, arguments, identity, result_text) in kept_routines:
        lines.append(f"  {{{oid}, {cstring(name)}, '{kind}', {str(returns_set).lower()}, {str(strict).lower()}, "
                     f"'{volatility}', '{parallel}', {variadic}, {ndefaults}, {result}, "
                     f"{{{', '.join(str(a) for a in args)}}}, {cstring(source)}, {language}, {cost:g}, {rows:g}, "
                     f"{cstring(arguments)}, {cstring(identity)}, {cstring(result_text)}}}, \\")
    lines.append("")
    lines.append("// BuiltinOperator{oid, name, kind, left, right, result, commutator, negator, code, canMerge, "
                 "canHash}")
    lines.append("#define SHOAL_OPERATORS \\")
    for oid, name, kind, left, right, result, commutator, negator, code, merge, hash_ in kept_operators:
        lines.append(f"  {{{oid}, {cstring(name)}, '{kind}', {left}, {right}, {result}, {commutator}, {negator}, "
                     f"{code}, {str(merge).lower()}, {str(hash_).lower()}}}, \\")
    lines.append("")
    OUTPUT.write_text("\n".join(lines) + "\n")
    print(f"{len(kept_routines)} routines, {len(kept_operators)} operators written to {OUTPUT}")


if __name__ == "__main__":
    main()
