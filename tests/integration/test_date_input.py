"""Story: drivers send dates in more than one shape. pgjdbc's setDate sends '1995-03-15 +00', its setTimestamp
on a date column '1995-03-15 00:00:00+00'; others send ISO 8601 with a 'T'. A date column takes each as
PostgreSQL 15's date input does: the time and zone are read, checked and dropped; BC is honoured."""

import pytest

from postgres_oracle import answer, shoal_conninfo

INPUTS = [
    "1995-03-15 +00", "1995-03-15 00:00:00+00", "1995-03-15T10:11:12.5-07:30", "1995-03-15 BC +00",
    "0044-03-15 00:00:00+00 BC", "1995-03-15 10:00 Z", "1995-03-15 UTC", "1995-03-15 AD", "1995-03-15 24:00:00",
    " 1995-03-15 ", "1995-03-15 25:00", "1995-03-15 x", "1995-03-15 +25", "1995-03-15 10:61", "1995-03-15 10",
    "1995-03-15+00", "1995-03-15-07", "1995-03-15 24:00:01",
]


@pytest.mark.parametrize("text", INPUTS)
def test_date_input_reads_as_postgresql(cluster, postgres, text):
    sql = f"SELECT '{text}'::date::text"  # as text: Python's dates have no BC
    assert answer(shoal_conninfo(cluster), sql) == answer(postgres.conninfo(), sql)
