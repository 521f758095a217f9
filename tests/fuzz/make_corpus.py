#!/usr/bin/env python3
"""Writes the text seeds of the fuzzers from the repository's own tests; run it again when they change.

- corpus/schema.sql: the TPC-H tables and every table, view and schema tests/sql/logic creates, which the
  coordinator of the pgwire and SQL fuzzers holds (worker_less_coordinator.cpp);
- corpus/sql_front_end/: each statement of tests/sql/logic and each TPC-H query, one per file;
- corpus/pgwire/: client sessions over those statements: simple and extended protocol, parameters in text
  and binary, COPY, SSL and cancel requests, startup packets.

The binary seeds come from the fuzzers themselves (README.md, "Seeds"). Files are named by the SHA-1 of their
content, as libFuzzer names what it adds, so that running this again changes nothing when the tests did not.
"""

import hashlib
import pathlib
import random
import re
import struct
import sys

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(REPO / "tests" / "integration"))
from postgres_oracle import TPCH_SCHEMA  # noqa: E402

MAX_SEED_BYTES = 3000
CREATES = re.compile(r"^\s*CREATE\s+(?:OR\s+REPLACE\s+)?(TABLE|VIEW|SCHEMA)\s+(?:IF\s+NOT\s+EXISTS\s+)?([\w.\"]+)",
                     re.IGNORECASE)


def logic_statements():
    """Every statement and query of tests/sql/logic, in file order."""
    for path in sorted((REPO / "tests" / "sql" / "logic").glob("*.test")):
        lines = path.read_text().splitlines()
        i = 0
        while i < len(lines):
            if lines[i].startswith(("statement ", "query ")):
                body = []
                i += 1
                while i < len(lines) and lines[i].strip() and lines[i] != "----":
                    body.append(lines[i])
                    i += 1
                if body:
                    yield "\n".join(body)
            i += 1


def schema(statements):
    """TPC-H, then the first CREATE of each relation the logic tests make (later ones replace it there)."""
    seen = set()
    out = list(TPCH_SCHEMA)
    for statement in statements:
        match = CREATES.match(statement)
        if not match or " AS SELECT" in statement.upper() and match.group(1).upper() == "TABLE":
            continue
        name = match.group(2).lower()
        if name in seen:
            continue
        seen.add(name)
        out.append(statement)
    return ";\n".join(out) + ";\n"


def write_corpus(directory, seeds):
    directory.mkdir(parents=True, exist_ok=True)
    wanted = {hashlib.sha1(seed).hexdigest(): seed for seed in seeds if len(seed) <= MAX_SEED_BYTES}
    for old in directory.iterdir():
        if old.name not in wanted:
            old.unlink()
    for name, seed in wanted.items():
        (directory / name).write_bytes(seed)
    return len(wanted)


def message(kind, body=b""):
    return kind + struct.pack("!I", len(body) + 4) + body


def cstring(text):
    return text.encode() + b"\0"


def startup(user="shoal", protocol=196608, **options):
    body = struct.pack("!I", protocol) + cstring("user") + cstring(user) + cstring("database") + cstring("shoal")
    for key, value in options.items():
        body += cstring(key) + cstring(value)
    body += b"\0"
    return struct.pack("!I", len(body) + 4) + body


def extended(sql, parameters=(), formats=(), parameter_types=(), row_limits=(0,), name=""):
    """Parse, Bind, Describe, an Execute per row limit (a portal run in pieces), and Sync of one statement."""
    parse = cstring(name) + cstring(sql) + struct.pack("!h", len(parameter_types))
    parse += b"".join(struct.pack("!I", oid) for oid in parameter_types)
    bind = cstring("") + cstring(name) + struct.pack("!h", len(formats))
    bind += b"".join(struct.pack("!h", f) for f in formats) + struct.pack("!h", len(parameters))
    for value in parameters:
        bind += struct.pack("!i", -1) if value is None else struct.pack("!i", len(value)) + value
    bind += struct.pack("!h", 1) + struct.pack("!h", 0)
    executes = b"".join(message(b"E", b"\0" + struct.pack("!i", limit)) for limit in row_limits)
    return message(b"P", parse) + message(b"B", bind) + message(b"D", b"P\0") + executes + message(b"S")


def pgwire_sessions(statements):
    sessions = []
    terminate = message(b"X")
    for sql in statements:
        sessions.append(b"\0" + message(b"Q", cstring(sql)) + terminate)
    for sql in statements[: len(statements) // 2]:
        sessions.append(b"\0" + extended(sql, row_limits=(2, 0)) + terminate)
    sessions += [
        b"\0" + extended("SELECT $1::int + $2", [b"1", b"41"]) + terminate,
        b"\0" + extended("SELECT $1::bigint * 2, $2::text", [struct.pack("!q", 21), b"x"], formats=[1, 0],
                         parameter_types=[20, 25]) + terminate,
        b"\0" + extended("SELECT $1::numeric, $2::date, $3::timestamptz", [b"1.5", b"2024-02-29", None]) + terminate,
        b"\0" + extended("SELECT $1", [struct.pack("!d", 2.5)], formats=[1], parameter_types=[701]) + terminate,
        b"\0" + extended("SELECT n_name FROM nation WHERE n_nationkey = $1", [b"3"], name="s1") +
        message(b"D", b"Ss1\0") + message(b"C", b"Ss1\0") + message(b"S") + terminate,
        b"\0" + message(b"Q", cstring("BEGIN; SELECT 1; COMMIT")) + message(b"Q", cstring("SHOW ALL")) + terminate,
        b"\0" + message(b"Q", cstring("COPY nation FROM STDIN")) + message(b"d", b"1\tX\t2\tc\n") + message(b"c") +
        terminate,
        b"\0" + message(b"Q", cstring("COPY nation FROM STDIN")) + message(b"f", cstring("client gave up")) + terminate,
        b"\0" + message(b"Q", cstring("COPY (SELECT 1, 'a') TO STDOUT WITH (FORMAT csv)")) + terminate,
        b"\0" + message(b"Q", cstring("PREPARE p(int) AS SELECT $1 + 1; EXECUTE p(41); DEALLOCATE p")) + terminate,
        b"\0" + message(b"Q", cstring("DECLARE c CURSOR WITH HOLD FOR SELECT * FROM pg_class; FETCH 2 FROM c")) +
        terminate,
        b"\0" + message(b"H") + message(b"S") + message(b"Q", cstring("")) + terminate,
        b"\1" + startup() + message(b"Q", cstring("SELECT current_user")) + terminate,
        b"\1" + startup(options="-c search_path=pg_catalog --DateStyle=ISO") + terminate,
        b"\1" + startup(application_name="psql", client_encoding="UTF8") + message(b"Q", cstring("SELECT 1")),
        b"\1" + startup(user="nobody") + terminate,
        b"\1" + startup(protocol=131072),
        b"\1" + startup(replication="database"),
        b"\1" + struct.pack("!II", 8, 80877103) + startup() + terminate,  # SSLRequest, then in plaintext
        b"\1" + struct.pack("!II", 8, 80877104) + startup() + terminate,  # GSSENCRequest
        b"\1" + struct.pack("!IIii", 16, 80877102, 1000, 12345),  # CancelRequest
    ]
    return sessions


def main():
    statements = list(logic_statements())
    (HERE / "corpus").mkdir(exist_ok=True)
    (HERE / "corpus" / "schema.sql").write_text(schema(statements))
    queries = [p.read_text() for p in sorted((REPO / "tests" / "tpch" / "queries").glob("*.sql"))]
    sql_count = write_corpus(HERE / "corpus" / "sql_front_end", [s.encode() for s in statements + queries])
    # The pgwire seeds need not repeat every statement: a fixed sample of them, and the TPC-H queries.
    sample = random.Random(7).sample(statements, min(150, len(statements))) + queries
    wire_count = write_corpus(HERE / "corpus" / "pgwire", pgwire_sessions(sample))
    print(f"schema.sql, {sql_count} SQL seeds, {wire_count} pgwire seeds")


if __name__ == "__main__":
    main()
