package interop;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.globalindex.GlobalIndexBuilderUtils;
import org.apache.paimon.globalindex.GlobalIndexResult;
import org.apache.paimon.globalindex.GlobalIndexScanner;
import org.apache.paimon.globalindex.GlobalIndexSingletonWriter;
import org.apache.paimon.globalindex.GlobalIndexWriter;
import org.apache.paimon.globalindex.IndexedSplit;
import org.apache.paimon.globalindex.ResultEntry;
import org.apache.paimon.globalindex.btree.BTreeGlobalIndexBuilder;
import org.apache.paimon.globalindex.btree.BTreeIndexMeta;
import org.apache.paimon.globalindex.btree.KeySerializer;
import org.apache.paimon.index.GlobalIndexMeta;
import org.apache.paimon.index.IndexFileMeta;
import org.apache.paimon.io.CompactIncrement;
import org.apache.paimon.io.DataIncrement;
import org.apache.paimon.manifest.IndexManifestEntry;
import org.apache.paimon.options.Options;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.Snapshot;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.SpecialFields;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.sink.TableCommitImpl;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.table.source.TableRead;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.JsonSerdeUtil;
import org.apache.paimon.utils.Pair;
import org.apache.paimon.utils.Range;
import org.apache.paimon.utils.RowRangeIndex;

import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Global index commands (Java Paimon 1.4.2's org.apache.paimon.globalindex, no Spark/Flink).
 *
 * <pre>
 * gindex-eval W db.t @FILTER.json [--read]
 *     GlobalIndexScanner.create(table, null, predicate) (the index files of the latest snapshot
 *     whose field is referenced by the predicate), then scanner.scan(predicate): the evaluator
 *     DataEvolutionBatchScan uses. Prints {"answered":bool,"indexFiles":N,"rowIds":[sorted]};
 *     answered=false (rowIds null) when no index file matches or the index cannot answer.
 *     --read adds the normal read path (ReadBuilder.withFilter -> DataEvolutionBatchScan, which
 *     evaluates the global index itself): "indexedSplits" (how many planned splits are
 *     IndexedSplits, i.e. index-pruned), "scanRowIds" (_ROW_ID of every row the plan returns,
 *     no executeFilter) and "readRowIds" (with executeFilter: the exact answer).
 * gindex-build W db.t COLUMN btree|bitmap [--incremental] [k=v ...]
 *     btree: BTreeGlobalIndexBuilder (as 1.4.2's Spark BTreeIndexTopoBuilder drives it, in one
 *     process): scan() (all rows [0, nextRowId-1], like the 1.4.2 procedure; --incremental:
 *     incrementalScan(), only the row ranges no btree index of COLUMN covers yet)
 *     -> splitByContiguousRowRange -> groupSplitsByRange; per (partition,
 *     contiguous range) the rows (COLUMN, _ROW_ID) are read, sorted by the KeySerializer's
 *     comparator (nulls first, then row id) and fed to buildForSinglePartition, which rotates
 *     files every 1.2 x btree-index.records-per-range rows. bitmap: per contiguous range one
 *     GlobalIndexer "bitmap" writer (a GlobalIndexSingletonWriter, keys in row-id order: 1.4.2's
 *     bitmap global index is the file-index BitmapFileIndex), metas via
 *     GlobalIndexBuilderUtils.toIndexFileMetas. k=v are dynamic table options (table.copy).
 *     One commit (TableCommitImpl, commit user "global-index-TYPE-create-UUID").
 *     Prints {"files":N,"latestSnapshotId":S}.
 * gindex-list W db.t
 *     JSON lines, one per global index entry of the latest snapshot's index manifest:
 *     partition (BinaryRow hex), bucket, index_type, file_name, file_size, row_count,
 *     row_range_start, row_range_end, index_field_id, extra_field_ids, external_path,
 *     index_meta (hex or null), and for btree "java_meta" = how 1.4.2's
 *     BTreeIndexMeta.deserialize reads index_meta (first_key/last_key hex or null, has_nulls,
 *     only_nulls).
 * </pre>
 */
final class GlobalIndexCommands {
    private static final ObjectMapper MAPPER = JsonSerdeUtil.OBJECT_MAPPER_INSTANCE;

    private GlobalIndexCommands() {}

    static void eval(Catalog c, Identifier id, List<String> args, PrintStream out) throws Exception {
        String filter = null;
        boolean read = false;
        for (String a : args) {
            if (a.equals("--read")) {
                read = true;
            } else if (filter == null && !a.startsWith("--")) {
                filter = TableCommands.readArg(a);
            } else {
                throw new PaimonInterop.UsageException("gindex-eval: unexpected argument '" + a + "'");
            }
        }
        if (filter == null) {
            throw new PaimonInterop.UsageException("gindex-eval expects: gindex-eval W db.t @FILTER.json [--read]");
        }
        FileStoreTable t = (FileStoreTable) c.getTable(id);
        Predicate p = TableCommands.predicate(MAPPER.readTree(filter), t.rowType());
        ObjectNode o = MAPPER.createObjectNode();
        Optional<GlobalIndexScanner> scanner = GlobalIndexScanner.create(t, null, p);
        Optional<GlobalIndexResult> result = Optional.empty();
        int files = 0;
        if (scanner.isPresent()) {
            try (GlobalIndexScanner s = scanner.get()) {
                result = s.scan(p);
                if (result.isPresent()) {
                    // materialise while the readers are open
                    o.put("answered", true);
                    o.set("rowIds", ids(result.get().results().iterator()));
                }
            }
            files = countIndexFiles(t, p);
        }
        if (!result.isPresent()) {
            o.put("answered", false);
            o.putNull("rowIds");
        }
        o.put("indexFiles", files);
        if (read) {
            RowType readType = SpecialFields.rowTypeWithRowTracking(t.rowType());
            int rowIdPos = readType.getFieldIndex(SpecialFields.ROW_ID.name());
            ReadBuilder rb = t.newReadBuilder().withFilter(p).withReadType(readType);
            List<Split> splits = rb.newScan().plan().splits();
            int indexed = 0;
            for (Split s : splits) {
                if (s instanceof IndexedSplit) {
                    indexed++;
                }
            }
            o.put("splits", splits.size());
            o.put("indexedSplits", indexed);
            o.set("scanRowIds", readIds(rb.newRead(), splits, rowIdPos));
            o.set("readRowIds", readIds(rb.newRead().executeFilter(), splits, rowIdPos));
        }
        out.println(MAPPER.writeValueAsString(o));
    }

    private static int countIndexFiles(FileStoreTable t, Predicate p) {
        java.util.Set<Integer> ids = new java.util.HashSet<>();
        for (String n : org.apache.paimon.predicate.PredicateVisitor.collectFieldNames(p)) {
            if (t.rowType().containsField(n)) {
                ids.add(t.rowType().getField(n).id());
            }
        }
        Snapshot snap = t.snapshotManager().latestSnapshot();
        if (snap == null) {
            return 0;
        }
        return t.store().newIndexFileHandler()
                .scan(snap, e -> e.indexFile().globalIndexMeta() != null
                        && ids.contains(e.indexFile().globalIndexMeta().indexFieldId()))
                .size();
    }

    private static ArrayNode ids(Iterator<Long> it) {
        List<Long> l = new ArrayList<>();
        it.forEachRemaining(l::add);
        Collections.sort(l);
        ArrayNode a = MAPPER.createArrayNode();
        for (long x : l) {
            a.add(x);
        }
        return a;
    }

    private static ArrayNode readIds(TableRead read, List<Split> splits, int rowIdPos) throws Exception {
        List<Long> l = new ArrayList<>();
        try (RecordReader<InternalRow> reader = read.createReader(splits)) {
            reader.forEachRemaining(row -> l.add(row.getLong(rowIdPos)));
        }
        return ids(l.iterator());
    }

    static void build(Catalog c, Identifier id, List<String> args, PrintStream out) throws Exception {
        if (args.size() < 2) {
            throw new PaimonInterop.UsageException("gindex-build expects: gindex-build W db.t COLUMN btree|bitmap [--incremental] [k=v ...]");
        }
        String column = args.get(0);
        String type = args.get(1).toLowerCase(java.util.Locale.ROOT);
        if (!type.equals("btree") && !type.equals("bitmap")) {
            throw new PaimonInterop.UsageException("gindex-build: index type must be btree or bitmap, got '" + type + "'");
        }
        Map<String, String> dyn = new HashMap<>();
        boolean incremental = false;
        for (String kv : args.subList(2, args.size())) {
            if (kv.equals("--incremental")) {
                incremental = true;
                continue;
            }
            int eq = kv.indexOf('=');
            if (eq <= 0) {
                throw new PaimonInterop.UsageException("gindex-build: option must be k=v, got '" + kv + "'");
            }
            dyn.put(kv.substring(0, eq), kv.substring(eq + 1));
        }
        FileStoreTable t = (FileStoreTable) c.getTable(id);
        if (!dyn.isEmpty()) {
            t = t.copy(dyn);
        }
        if (!t.coreOptions().rowTrackingEnabled()) {
            throw new IllegalArgumentException("table must have row-tracking.enabled=true");
        }
        if (!t.rowType().containsField(column)) {
            throw new IllegalArgumentException("no column '" + column + "' in " + t.rowType());
        }
        DataField field = t.rowType().getField(column);
        RowType readType =
                SpecialFields.rowTypeWithRowId(t.rowType())
                        .project(java.util.Arrays.asList(column, SpecialFields.ROW_ID.name()));

        // the same scan/grouping as 1.4.2's Spark BTreeIndexTopoBuilder
        BTreeGlobalIndexBuilder builder = new BTreeGlobalIndexBuilder(t).withIndexField(column);
        Optional<Pair<RowRangeIndex, List<DataSplit>>> scan =
                incremental ? builder.incrementalScan() : builder.scan();
        List<CommitMessage> msgs = new ArrayList<>();
        if (scan.isPresent()) {
            List<DataSplit> splits = BTreeGlobalIndexBuilder.splitByContiguousRowRange(scan.get().getRight());
            Map<BinaryRow, Map<Range, List<Split>>> groups =
                    BTreeGlobalIndexBuilder.groupSplitsByRange(scan.get().getLeft(), splits);
            for (Map.Entry<BinaryRow, Map<Range, List<Split>>> pe : groups.entrySet()) {
                for (Map.Entry<Range, List<Split>> re : pe.getValue().entrySet()) {
                    List<Object[]> rows = readKeys(t, readType, re.getValue());
                    if (rows.isEmpty()) {
                        continue;
                    }
                    if (type.equals("btree")) {
                        Comparator<Object> kc = KeySerializer.create(field.type()).createComparator();
                        rows.sort((a, b) -> {
                            if (a[0] == null || b[0] == null) {
                                int n = Boolean.compare(a[0] != null, b[0] != null);
                                if (n != 0) {
                                    return n;
                                }
                            } else {
                                int k = kc.compare(a[0], b[0]);
                                if (k != 0) {
                                    return k;
                                }
                            }
                            return Long.compare((Long) a[1], (Long) b[1]);
                        });
                        List<InternalRow> sorted = new ArrayList<>(rows.size());
                        for (Object[] r : rows) {
                            sorted.add(GenericRow.of(r[0], r[1]));
                        }
                        msgs.addAll(builder.buildForSinglePartition(re.getKey(), pe.getKey(), sorted.iterator()));
                    } else {
                        msgs.add(buildBitmap(t, field, re.getKey(), pe.getKey(), rows));
                    }
                }
            }
        }
        int files = 0;
        for (CommitMessage m : msgs) {
            files += ((CommitMessageImpl) m).newFilesIncrement().newIndexFiles().size();
        }
        if (!msgs.isEmpty()) {
            try (TableCommitImpl commit = t.newCommit("global-index-" + type + "-create-" + UUID.randomUUID())) {
                commit.commit(msgs);
            }
        }
        ObjectNode o = MAPPER.createObjectNode();
        o.put("files", files);
        o.put("latestSnapshotId", ((FileStoreTable) c.getTable(id)).snapshotManager().latestSnapshotId());
        out.println(MAPPER.writeValueAsString(o));
    }

    /** (key copy, _ROW_ID) of every row of the splits. */
    private static List<Object[]> readKeys(FileStoreTable t, RowType readType, List<Split> splits) throws Exception {
        List<Object[]> rows = new ArrayList<>();
        InternalRow.FieldGetter getter = InternalRow.createFieldGetter(readType.getTypeAt(0), 0);
        org.apache.paimon.data.serializer.Serializer<Object> copier =
                org.apache.paimon.data.serializer.InternalSerializers.create(readType.getTypeAt(0));
        try (RecordReader<InternalRow> reader =
                t.newReadBuilder().withReadType(readType).newRead().createReader(splits)) {
            reader.forEachRemaining(row -> {
                Object k = getter.getFieldOrNull(row);
                rows.add(new Object[] {k == null ? null : copier.copy(k), row.getLong(1)});
            });
        }
        return rows;
    }

    /** One 1.4.2 "bitmap" global index file over a contiguous range: keys written in row-id order. */
    private static CommitMessage buildBitmap(
            FileStoreTable t, DataField field, Range range, BinaryRow partition, List<Object[]> rows)
            throws Exception {
        rows.sort(Comparator.comparingLong(r -> (Long) r[1]));
        if ((Long) rows.get(0)[1] != range.from
                || (Long) rows.get(rows.size() - 1)[1] != range.to
                || rows.size() != range.to - range.from + 1) {
            throw new IllegalStateException("bitmap: rows of range " + range + " are not contiguous");
        }
        GlobalIndexWriter w = GlobalIndexBuilderUtils.createIndexWriter(
                t, "bitmap", field, t.coreOptions().toConfiguration());
        GlobalIndexSingletonWriter sw = (GlobalIndexSingletonWriter) w;
        for (Object[] r : rows) {
            sw.write(r[0]);
        }
        List<ResultEntry> entries = sw.finish();
        List<IndexFileMeta> metas = GlobalIndexBuilderUtils.toIndexFileMetas(
                t.fileIO(), t.store().pathFactory().globalIndexFileFactory(), t.coreOptions(),
                range, field.id(), "bitmap", entries);
        return new CommitMessageImpl(partition, 0, null, DataIncrement.indexIncrement(metas),
                CompactIncrement.emptyIncrement());
    }

    static void list(Catalog c, Identifier id, PrintStream out) throws Exception {
        FileStoreTable t = (FileStoreTable) c.getTable(id);
        Snapshot snap = t.snapshotManager().latestSnapshot();
        if (snap == null) {
            return;
        }
        List<IndexManifestEntry> entries =
                t.store().newIndexFileHandler().scan(snap, e -> e.indexFile().globalIndexMeta() != null);
        List<String> lines = new ArrayList<>();
        for (IndexManifestEntry e : entries) {
            IndexFileMeta f = e.indexFile();
            GlobalIndexMeta g = f.globalIndexMeta();
            ObjectNode o = MAPPER.createObjectNode();
            o.put("partition", hex(org.apache.paimon.utils.SerializationUtils.serializeBinaryRow(e.partition())));
            o.put("bucket", e.bucket());
            o.put("index_type", f.indexType());
            o.put("file_name", f.fileName());
            o.put("file_size", f.fileSize());
            o.put("row_count", f.rowCount());
            o.put("row_range_start", g.rowRangeStart());
            o.put("row_range_end", g.rowRangeEnd());
            o.put("index_field_id", g.indexFieldId());
            if (g.extraFieldIds() == null) {
                o.putNull("extra_field_ids");
            } else {
                ArrayNode a = o.putArray("extra_field_ids");
                for (int x : g.extraFieldIds()) {
                    a.add(x);
                }
            }
            o.put("external_path", f.externalPath());
            o.put("index_meta", g.indexMeta() == null ? null : hex(g.indexMeta()));
            if (f.indexType().equals("btree") && g.indexMeta() != null) {
                ObjectNode m = o.putObject("java_meta");
                try {
                    BTreeIndexMeta bm = BTreeIndexMeta.deserialize(g.indexMeta());
                    m.put("first_key", bm.getFirstKey() == null ? null : hex(bm.getFirstKey()));
                    m.put("last_key", bm.getLastKey() == null ? null : hex(bm.getLastKey()));
                    m.put("has_nulls", bm.hasNulls());
                    m.put("only_nulls", bm.onlyNulls());
                } catch (RuntimeException ex) {
                    m.put("error", ex.getClass().getName() + ": " + ex.getMessage());
                }
            }
            lines.add(MAPPER.writeValueAsString(o));
        }
        Collections.sort(lines);
        for (String l : lines) {
            out.println(l);
        }
    }

    private static String hex(byte[] b) {
        StringBuilder sb = new StringBuilder(b.length * 2);
        for (byte x : b) {
            sb.append(String.format("%02x", x & 0xff));
        }
        return sb.toString();
    }
}
