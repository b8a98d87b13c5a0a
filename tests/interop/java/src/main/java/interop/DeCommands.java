package interop;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.SpecialFields;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.JsonSerdeUtil;

import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.BufferedReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Data-evolution (row tracking) commands, rows in the canonical JSON encoding ({@link Canon}).
 *
 * <pre>
 * de-read W db.t [--snapshot N]
 *     reads the table (at snapshot N: scan.snapshot-id, with that snapshot's schema) with the
 *     read type SpecialFields.rowTypeWithRowTracking(rowType): every column, then _ROW_ID and
 *     _SEQUENCE_NUMBER; one canonical JSON object per row, in read order.
 * de-write W db.t [--cols a,b,...] ROWS.jsonl [ROWS2.jsonl ...]
 *     one commit; one BatchTableWrite per ROWS file (so several writes per commit), each
 *     with withWriteType(rowType.project(cols)) when --cols is given (a partial-column append:
 *     the files' _WRITE_COLS are the columns, the others read as null; the columns are put
 *     in table order). Rows are decoded with the write type. Prints {"rows":N,"latestSnapshotId":S}.
 * </pre>
 *
 * Java Paimon 1.4.2 has no update-by-row-id or delete-by-row-id in its table API (those are
 * Spark/Flink procedures), so there are no such commands.
 */
final class DeCommands {
    private static final ObjectMapper MAPPER = JsonSerdeUtil.OBJECT_MAPPER_INSTANCE;

    private DeCommands() {}

    static void read(Catalog c, Identifier id, List<String> opts, PrintStream out) throws Exception {
        String snapshot = null;
        for (int i = 0; i < opts.size(); i++) {
            String o = opts.get(i);
            if (o.equals("--snapshot") && i + 1 < opts.size()) {
                snapshot = opts.get(++i);
            } else {
                throw new PaimonInterop.UsageException("de-read: unknown option '" + o + "'");
            }
        }
        Table t = c.getTable(id);
        if (snapshot != null) {
            Map<String, String> dyn = new HashMap<>();
            dyn.put("scan.snapshot-id", snapshot);
            t = t.copy(dyn);
        }
        RowType readType = SpecialFields.rowTypeWithRowTracking(t.rowType());
        ReadBuilder rb = t.newReadBuilder().withReadType(readType);
        StringBuilder sb = new StringBuilder();
        try (RecordReader<InternalRow> reader = rb.newRead().createReader(rb.newScan().plan().splits())) {
            reader.forEachRemaining(
                    row -> {
                        sb.setLength(0);
                        Canon.row(sb, row, readType);
                        out.println(sb);
                    });
        }
    }

    static void write(Catalog c, Identifier id, List<String> args, PrintStream out) throws Exception {
        String cols = null;
        List<String> files = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            String o = args.get(i);
            if (o.equals("--cols") && i + 1 < args.size()) {
                cols = args.get(++i);
            } else if (o.startsWith("--")) {
                throw new PaimonInterop.UsageException("de-write: unknown option '" + o + "'");
            } else {
                files.add(o);
            }
        }
        if (files.isEmpty()) {
            throw new PaimonInterop.UsageException("de-write expects: de-write W db.t [--cols a,b] ROWS.jsonl...");
        }
        FileStoreTable t = (FileStoreTable) c.getTable(id);
        RowType writeType = t.rowType();
        if (cols != null) {
            // in table order: Java 1.4.2's partition extractor fails (ClassCastException in
            // RowPartitionKeyExtractor) when the write type lists the columns in another order
            List<String> want = java.util.Arrays.asList(cols.split(","));
            for (String n : want) {
                if (writeType.getFieldIndex(n) < 0) {
                    throw new IllegalArgumentException("de-write: no column '" + n + "' in " + writeType);
                }
            }
            List<String> names = new ArrayList<>();
            for (String n : writeType.getFieldNames()) {
                if (want.contains(n)) {
                    names.add(n);
                }
            }
            writeType = writeType.project(names);
        }
        BatchWriteBuilder wb = t.newBatchWriteBuilder();
        List<CommitMessage> msgs = new ArrayList<>();
        long n = 0;
        for (String f : files) {
            try (BatchTableWrite write = wb.newWrite();
                    BufferedReader in = Files.newBufferedReader(Paths.get(f), StandardCharsets.UTF_8)) {
                if (cols != null) {
                    write.withWriteType(writeType);
                }
                String line;
                while ((line = in.readLine()) != null) {
                    if (line.trim().isEmpty()) {
                        continue;
                    }
                    write.write(Canon.decodeRow(MAPPER.readTree(line), writeType));
                    n++;
                }
                msgs.addAll(write.prepareCommit());
            }
        }
        try (BatchTableCommit commit = wb.newCommit()) {
            commit.commit(msgs);
        }
        Long latest = ((FileStoreTable) c.getTable(id)).snapshotManager().latestSnapshotId();
        ObjectNode o = MAPPER.createObjectNode();
        o.put("rows", n);
        o.put("latestSnapshotId", latest);
        out.println(MAPPER.writeValueAsString(o));
    }
}
