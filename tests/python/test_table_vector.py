"""VECTOR columns (stored as Parquet lists) through the table path: paimonc
writes and reads them back as fixed_size_list, pypaimon reads paimonc's and
paimonc reads pypaimon's, including null vectors."""
import numpy as np
import pyarrow as pa

import paimonc


def _table(n, dim, seed, nulls):
    rng = np.random.default_rng(seed)
    vals = pa.array(rng.random(n * dim, dtype=np.float32))
    mask = pa.array([nulls and i % 3 == 1 for i in range(n)]) if nulls else None
    emb = pa.FixedSizeListArray.from_arrays(vals, dim, mask=mask)
    return pa.table({"id": pa.array(range(n), pa.int64()), "emb": emb,
                     "split": pa.array(["train" if i % 2 else "val" for i in range(n)])})


def _schema():
    return pa.schema([("id", pa.int64()), ("emb", pa.list_(pa.float32(), 8)), ("split", pa.string())])


def test_vector_round_trip_both_peers(tmp_path):
    import pypaimon
    wh = str(tmp_path / "w")
    cat = paimonc.CatalogFactory.create({"warehouse": wh})
    cat.create_database("d", True)
    cat.create_table("d.t", paimonc.Schema.from_pyarrow_schema(_schema(), partition_keys=["split"]), False)
    t = cat.get_table("d.t")
    assert str(t.fields[1].type) == "VECTOR<FLOAT, 8>"
    data = pa.concat_tables([_table(50, 8, 1, False), _table(40, 8, 2, True)])
    data = data.set_column(0, "id", pa.array(range(data.num_rows), pa.int64()))
    wb = t.new_batch_write_builder()
    with wb.new_write() as w, wb.new_commit() as c:
        w.write_arrow(data)
        c.commit(w.prepare_commit())
    rb = t.new_read_builder()
    got = rb.new_read().to_arrow(rb.new_scan().plan().splits()).sort_by("id")
    assert got.schema.field("emb").type == pa.list_(pa.float32(), 8)
    assert got.column("emb").to_pylist() == data.column("emb").to_pylist()

    pt = pypaimon.CatalogFactory.create({"warehouse": wh}).get_table("d.t")
    prb = pt.new_read_builder()
    theirs = prb.new_read().to_arrow(prb.new_scan().plan().splits()).sort_by("id")
    assert theirs.column("emb").to_pylist() == data.column("emb").to_pylist()


def test_paimonc_reads_pypaimon_vectors(tmp_path):
    import pypaimon
    wh = str(tmp_path / "w")
    pc = pypaimon.CatalogFactory.create({"warehouse": wh})
    pc.create_database("d", True)
    pc.create_table("d.t", pypaimon.Schema.from_pyarrow_schema(_schema(), partition_keys=["split"]), False)
    pt = pc.get_table("d.t")
    data = _table(30, 8, 3, False)  # pypaimon 2.1.0 cannot write null vectors (pyarrow refuses them)
    wb = pt.new_batch_write_builder()
    w = wb.new_write()
    w.write_arrow(data)
    wb.new_commit().commit(w.prepare_commit())
    w.close()
    t = paimonc.CatalogFactory.create({"warehouse": wh}).get_table("d.t")
    rb = t.new_read_builder()
    got = rb.new_read().to_arrow(rb.new_scan().plan().splits()).sort_by("id")
    assert got.column("emb").to_pylist() == data.column("emb").to_pylist()
