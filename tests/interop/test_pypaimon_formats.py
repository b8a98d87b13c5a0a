"""Data files in a format paimonc does not read: pypaimon writes a table with
file.format=orc (as old Java tables do, orc being Java's default before
schema version 3); paimonc plans it but reading fails with
"unsupported file format 'orc'" naming the data file, never "corrupt".
"""

import os

import pytest

pa = pytest.importorskip("pyarrow")
pypaimon = pytest.importorskip("pypaimon")
pytest.importorskip("pyarrow.orc")

import paimonc  # noqa: E402

SCHEMA = pa.schema([pa.field("id", pa.int64()), pa.field("v", pa.string())])


def test_orc_data_files_are_unsupported_not_corrupt(tmp_path):
    wh = str(tmp_path / "wh")
    pp = pypaimon.CatalogFactory.create({"warehouse": wh})
    pp.create_database("db", False)
    pp.create_table("db.t", pypaimon.Schema.from_pyarrow_schema(SCHEMA, options={"file.format": "orc"}), False)
    t = pp.get_table("db.t")
    wb = t.new_batch_write_builder()
    w = wb.new_write()
    cm = wb.new_commit()
    w.write_arrow(pa.table({"id": [1, 2, 3], "v": ["a", "b", "c"]}, schema=SCHEMA))
    cm.commit(w.prepare_commit())
    w.close()
    cm.close()
    orc = [f for _, _, fs in os.walk(os.path.join(wh, "db.db", "t")) for f in fs if f.endswith(".orc")]
    assert len(orc) == 1

    pc = paimonc.CatalogFactory.create({"warehouse": wh}).get_table("db.t")
    rb = pc.new_read_builder()
    splits = rb.new_scan().plan().splits()
    assert sum(s.row_count for s in splits) == 3
    # the error surfaces from the Arrow stream: pyarrow's ArrowNotImplementedError
    # (ENOSYS), a NotImplementedError like paimonc.UnsupportedError
    with pytest.raises(NotImplementedError) as e:
        rb.new_read().to_arrow(splits)
    msg = str(e.value)
    assert "unsupported file format 'orc'" in msg and orc[0] in msg, msg
    assert "corrupt" not in msg.lower()
