package interop;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.predicate.PredicateBuilder;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.table.source.TableRead;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.JsonSerdeUtil;

import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.BufferedReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Table data commands (rows in the canonical JSON encoding, see {@link Canon}):
 *
 * <pre>
 * table-write W db.t ROWS.jsonl [--overwrite] [--partition @SPEC.json]
 *     one BatchTableWrite + one commit; --overwrite overwrites the whole table, or with
 *     --partition only the partition {col: canonical value} in SPEC.json. Prints
 *     {"rows":N,"latestSnapshotId":S}.
 * table-read W db.t [--filter @F.json] [--exact] [--snapshot N] [--projection a,b] [--ordered]
 *     one canonical JSON object per row; lines sorted by byte value unless --ordered.
 *     --filter is only pushed down (withFilter: Java prunes partitions/files/row groups by
 *     stats and returns every row of what remains); --exact adds executeFilter().
 * </pre>
 *
 * Filter JSON: {"op":"eq|ne|lt|le|gt|ge","col":c,"value":v}, {"op":"isnull|notnull","col":c},
 * {"op":"in|notin","col":c,"values":[...]}, {"op":"startswith","col":c,"value":s},
 * {"op":"between","col":c,"from":lo,"to":hi} (PredicateBuilder.between, both ends inclusive),
 * {"and":[...]}, {"or":[...]}.
 */
final class TableCommands {
    private static final ObjectMapper MAPPER = JsonSerdeUtil.OBJECT_MAPPER_INSTANCE;

    private TableCommands() {}

    static String readArg(String a) throws Exception {
        if (a.startsWith("@")) {
            return new String(Files.readAllBytes(Paths.get(a.substring(1))), StandardCharsets.UTF_8);
        }
        return a;
    }

    static void write(Catalog c, Identifier id, String rowsFile, List<String> opts, PrintStream out)
            throws Exception {
        boolean overwrite = false;
        Map<String, String> partition = null;
        for (int i = 0; i < opts.size(); i++) {
            String o = opts.get(i);
            if (o.equals("--overwrite")) {
                overwrite = true;
            } else if (o.equals("--partition") && i + 1 < opts.size()) {
                JsonNode spec = MAPPER.readTree(readArg(opts.get(++i)));
                partition = new LinkedHashMap<>();
                String defaultName =
                        ((FileStoreTable) c.getTable(id)).coreOptions().partitionDefaultName();
                for (java.util.Iterator<Map.Entry<String, JsonNode>> it = spec.fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> e = it.next();
                    partition.put(e.getKey(), Canon.partitionString(e.getValue(), defaultName));
                }
            } else {
                throw new PaimonInterop.UsageException("table-write: unknown option '" + o + "'");
            }
        }
        if (partition != null && !overwrite) {
            throw new PaimonInterop.UsageException("table-write: --partition needs --overwrite");
        }
        FileStoreTable t = (FileStoreTable) c.getTable(id);
        RowType rowType = t.rowType();
        BatchWriteBuilder wb = t.newBatchWriteBuilder();
        if (overwrite) {
            wb = partition == null ? wb.withOverwrite() : wb.withOverwrite(partition);
        }
        long n = 0;
        List<CommitMessage> msgs;
        try (BatchTableWrite write = wb.newWrite();
                BufferedReader in = Files.newBufferedReader(Paths.get(rowsFile), StandardCharsets.UTF_8)) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.trim().isEmpty()) {
                    continue;
                }
                write.write(Canon.decodeRow(MAPPER.readTree(line), rowType));
                n++;
            }
            msgs = write.prepareCommit();
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

    static void read(Catalog c, Identifier id, List<String> opts, PrintStream out) throws Exception {
        String filter = null;
        boolean exact = false;
        boolean ordered = false;
        String snapshot = null;
        String projection = null;
        for (int i = 0; i < opts.size(); i++) {
            String o = opts.get(i);
            boolean hasNext = i + 1 < opts.size();
            if (o.equals("--filter") && hasNext) {
                filter = readArg(opts.get(++i));
            } else if (o.equals("--exact")) {
                exact = true;
            } else if (o.equals("--ordered")) {
                ordered = true;
            } else if (o.equals("--snapshot") && hasNext) {
                snapshot = opts.get(++i);
            } else if (o.equals("--projection") && hasNext) {
                projection = opts.get(++i);
            } else {
                throw new PaimonInterop.UsageException("table-read: unknown option '" + o + "'");
            }
        }
        Table t = c.getTable(id);
        if (snapshot != null) {
            Map<String, String> dyn = new HashMap<>();
            dyn.put("scan.snapshot-id", snapshot);
            t = t.copy(dyn);
        }
        RowType rowType = t.rowType();
        ReadBuilder rb = t.newReadBuilder();
        if (filter != null) {
            rb = rb.withFilter(predicate(MAPPER.readTree(filter), rowType));
        }
        RowType outType = rowType;
        if (projection != null) {
            String[] names = projection.split(",");
            int[] idx = new int[names.length];
            for (int i = 0; i < names.length; i++) {
                idx[i] = rowType.getFieldIndex(names[i]);
                if (idx[i] < 0) {
                    throw new IllegalArgumentException("no column '" + names[i] + "' in " + rowType);
                }
            }
            rb = rb.withProjection(idx);
            outType = rowType.project(idx);
        }
        List<Split> splits = rb.newScan().plan().splits();
        TableRead read = rb.newRead();
        if (exact) {
            read = read.executeFilter();
        }
        List<String> lines = new ArrayList<>();
        StringBuilder sb = new StringBuilder();
        final RowType ot = outType;
        try (RecordReader<InternalRow> reader = read.createReader(splits)) {
            reader.forEachRemaining(
                    row -> {
                        sb.setLength(0);
                        Canon.row(sb, row, ot);
                        lines.add(sb.toString());
                    });
        }
        if (!ordered) {
            Collections.sort(lines);
        }
        for (String l : lines) {
            out.println(l);
        }
    }

    static Predicate predicate(JsonNode f, RowType rowType) {
        if (f.has("and") || f.has("or")) {
            boolean and = f.has("and");
            List<Predicate> ps = new ArrayList<>();
            for (JsonNode x : f.get(and ? "and" : "or")) {
                ps.add(predicate(x, rowType));
            }
            return and ? PredicateBuilder.and(ps) : PredicateBuilder.or(ps);
        }
        PredicateBuilder pb = new PredicateBuilder(rowType);
        String col = f.get("col").asText();
        int idx = rowType.getFieldIndex(col);
        if (idx < 0) {
            throw new IllegalArgumentException("filter: no column '" + col + "' in " + rowType);
        }
        DataType type = rowType.getTypeAt(idx);
        String op = f.get("op").asText();
        switch (op) {
            case "eq":
                return pb.equal(idx, Canon.decode(f.get("value"), type));
            case "ne":
                return pb.notEqual(idx, Canon.decode(f.get("value"), type));
            case "lt":
                return pb.lessThan(idx, Canon.decode(f.get("value"), type));
            case "le":
                return pb.lessOrEqual(idx, Canon.decode(f.get("value"), type));
            case "gt":
                return pb.greaterThan(idx, Canon.decode(f.get("value"), type));
            case "ge":
                return pb.greaterOrEqual(idx, Canon.decode(f.get("value"), type));
            case "isnull":
                return pb.isNull(idx);
            case "notnull":
                return pb.isNotNull(idx);
            case "startswith":
                return pb.startsWith(idx, Canon.decode(f.get("value"), type));
            case "between":
                return pb.between(idx, Canon.decode(f.get("from"), type), Canon.decode(f.get("to"), type));
            case "in":
            case "notin":
                {
                    List<Object> vals = new ArrayList<>();
                    for (JsonNode v : f.get("values")) {
                        vals.add(Canon.decode(v, type));
                    }
                    return op.equals("in") ? pb.in(idx, vals) : pb.notIn(idx, vals);
                }
            default:
                throw new PaimonInterop.UsageException("filter: unknown op '" + op + "'");
        }
    }
}
