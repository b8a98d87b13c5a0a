package interop;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.Blob;
import org.apache.paimon.data.BlobDescriptor;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalArray;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.InternalVector;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.SpecialFields;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataTypeRoot;
import org.apache.paimon.types.RowType;
import org.apache.paimon.types.VectorType;
import org.apache.paimon.utils.JsonSerdeUtil;
import org.apache.paimon.utils.UriReader;

import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.BufferedReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * BLOB commands (docs/blob-layout.md; tests/interop/blob_gen.py).
 *
 * <pre>
 * blob-write W db.t [--cols a,b] [--opt k=v]... ROWS.jsonl [ROWS2.jsonl ...]
 *     like de-write (one commit, one BatchTableWrite per ROWS file, --cols = withWriteType),
 *     --opt = dynamic table options (table.copy). A BLOB column value is null or an object:
 *     {"file": "/abs/path"} (the file's bytes, Blob.fromData), {"b64": "..."} (Blob.fromData),
 *     {"descriptor": {"uri": u, "offset": o, "length": n}} (Blob.fromDescriptor with the
 *     table's FileIO). Other columns are in the canonical encoding (Canon).
 * blob-read W db.t [--projection a,b] [--snapshot N] [--opt k=v]... [--descriptor]
 *     reads the columns (all, or the projection) plus _ROW_ID, _SEQUENCE_NUMBER; one JSON object
 *     per row in read order. A BLOB value is printed as {"len": n, "sha256": hex} (a VECTOR as a
 *     JSON list, FLOAT/DOUBLE elements as exact decimals); with
 *     --descriptor (dynamic option blob-as-descriptor=true) also
 *     {"class", "descriptor": hex of toDescriptor().serialize(), "uri", "offset", "length"}.
 * </pre>
 */
final class BlobCommands {
    private static final ObjectMapper MAPPER = JsonSerdeUtil.OBJECT_MAPPER_INSTANCE;

    private BlobCommands() {}

    private static void opt(Map<String, String> dyn, String kv) {
        int eq = kv.indexOf('=');
        if (eq <= 0) {
            throw new PaimonInterop.UsageException("--opt expects k=v, got '" + kv + "'");
        }
        dyn.put(kv.substring(0, eq), kv.substring(eq + 1));
    }

    static void write(Catalog c, Identifier id, List<String> args, PrintStream out) throws Exception {
        String cols = null;
        Map<String, String> dyn = new HashMap<>();
        List<String> files = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            String o = args.get(i);
            if (o.equals("--cols") && i + 1 < args.size()) {
                cols = args.get(++i);
            } else if (o.equals("--opt") && i + 1 < args.size()) {
                opt(dyn, args.get(++i));
            } else if (o.startsWith("--")) {
                throw new PaimonInterop.UsageException("blob-write: unknown option '" + o + "'");
            } else {
                files.add(o);
            }
        }
        if (files.isEmpty()) {
            throw new PaimonInterop.UsageException("blob-write expects ROWS.jsonl files");
        }
        FileStoreTable t = (FileStoreTable) c.getTable(id);
        if (!dyn.isEmpty()) {
            t = t.copy(dyn);
        }
        RowType writeType = t.rowType();
        if (cols != null) {
            List<String> want = Arrays.asList(cols.split(","));
            List<String> names = new ArrayList<>();
            for (String n : writeType.getFieldNames()) {
                if (want.contains(n)) {
                    names.add(n);
                }
            }
            writeType = writeType.project(names);
        }
        UriReader uris = UriReader.fromFile(t.fileIO());
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
                    write.write(decodeRow(MAPPER.readTree(line), writeType, uris));
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

    private static GenericRow decodeRow(JsonNode v, RowType t, UriReader uris) throws Exception {
        GenericRow row = new GenericRow(t.getFieldCount());
        for (int i = 0; i < t.getFieldCount(); i++) {
            DataField f = t.getFields().get(i);
            JsonNode x = v.get(f.name());
            if (x == null || x.isNull()) {
                row.setField(i, null);
            } else if (f.type().getTypeRoot() == DataTypeRoot.BLOB) {
                row.setField(i, decodeBlob(x, uris));
            } else {
                row.setField(i, Canon.decode(x, f.type()));
            }
        }
        return row;
    }

    private static Blob decodeBlob(JsonNode x, UriReader uris) throws Exception {
        if (x.has("file")) {
            return Blob.fromData(Files.readAllBytes(Paths.get(x.get("file").asText())));
        }
        if (x.has("b64")) {
            return Blob.fromData(Base64.getDecoder().decode(x.get("b64").asText()));
        }
        if (x.has("descriptor")) {
            JsonNode d = x.get("descriptor");
            return Blob.fromDescriptor(
                    uris,
                    new BlobDescriptor(
                            d.get("uri").asText(), d.get("offset").asLong(), d.get("length").asLong()));
        }
        throw new IllegalArgumentException("blob value must be {file|b64|descriptor}: " + x);
    }

    static void read(Catalog c, Identifier id, List<String> args, PrintStream out) throws Exception {
        Map<String, String> dyn = new HashMap<>();
        String projection = null;
        boolean descriptor = false;
        for (int i = 0; i < args.size(); i++) {
            String o = args.get(i);
            if (o.equals("--snapshot") && i + 1 < args.size()) {
                dyn.put("scan.snapshot-id", args.get(++i));
            } else if (o.equals("--projection") && i + 1 < args.size()) {
                projection = args.get(++i);
            } else if (o.equals("--opt") && i + 1 < args.size()) {
                opt(dyn, args.get(++i));
            } else if (o.equals("--descriptor")) {
                descriptor = true;
                dyn.put("blob-as-descriptor", "true");
            } else {
                throw new PaimonInterop.UsageException("blob-read: unknown option '" + o + "'");
            }
        }
        Table t = c.getTable(id);
        if (!dyn.isEmpty()) {
            t = t.copy(dyn);
        }
        RowType rt = t.rowType();
        if (projection != null) {
            rt = rt.project(Arrays.asList(projection.split(",")));
        }
        RowType readType = SpecialFields.rowTypeWithRowTracking(rt);
        ReadBuilder rb = t.newReadBuilder().withReadType(readType);
        StringBuilder sb = new StringBuilder();
        final boolean desc = descriptor;
        try (RecordReader<InternalRow> reader = rb.newRead().createReader(rb.newScan().plan().splits())) {
            reader.forEachRemaining(
                    row -> {
                        sb.setLength(0);
                        sb.append('{');
                        for (int i = 0; i < readType.getFieldCount(); i++) {
                            DataField f = readType.getFields().get(i);
                            if (i > 0) {
                                sb.append(',');
                            }
                            Canon.str(sb, f.name());
                            sb.append(':');
                            if (f.type().getTypeRoot() == DataTypeRoot.BLOB) {
                                blob(sb, row.isNullAt(i) ? null : row.getBlob(i), desc);
                            } else if (f.type().getTypeRoot() == DataTypeRoot.VECTOR) {
                                vector(sb, row.isNullAt(i) ? null : row.getVector(i), (VectorType) f.type());
                            } else {
                                Canon.value(
                                        sb,
                                        InternalRow.createFieldGetter(f.type(), i).getFieldOrNull(row),
                                        f.type());
                            }
                        }
                        sb.append('}');
                        out.println(sb);
                    });
        }
    }

    /** A vector as a JSON list; FLOAT/DOUBLE elements as exact decimal doubles, others canonical. */
    private static void vector(StringBuilder sb, InternalVector v, VectorType t) {
        if (v == null) {
            sb.append("null");
            return;
        }
        DataTypeRoot et = t.getElementType().getTypeRoot();
        InternalArray.ElementGetter g = InternalArray.createElementGetter(t.getElementType());
        sb.append('[');
        for (int j = 0; j < v.size(); j++) {
            if (j > 0) {
                sb.append(',');
            }
            if (v.isNullAt(j)) {
                sb.append("null");
            } else if (et == DataTypeRoot.FLOAT) {
                sb.append(new java.math.BigDecimal((double) v.getFloat(j)).toPlainString());
            } else if (et == DataTypeRoot.DOUBLE) {
                sb.append(new java.math.BigDecimal(v.getDouble(j)).toPlainString());
            } else {
                Canon.value(sb, g.getElementOrNull(v, j), t.getElementType());
            }
        }
        sb.append(']');
    }

    private static void blob(StringBuilder sb, Blob b, boolean desc) {
        if (b == null) {
            sb.append("null");
            return;
        }
        byte[] data = b.toData();
        sb.append("{\"len\":").append(data.length).append(",\"sha256\":\"").append(sha256(data)).append('"');
        if (desc) {
            sb.append(",\"class\":\"").append(b.getClass().getSimpleName()).append('"');
            try {
                BlobDescriptor d = b.toDescriptor();
                sb.append(",\"descriptor\":\"").append(hex(d.serialize())).append('"');
                sb.append(",\"uri\":");
                Canon.str(sb, d.uri());
                sb.append(",\"offset\":").append(d.offset()).append(",\"length\":").append(d.length());
            } catch (RuntimeException e) {
                sb.append(",\"descriptorError\":");
                Canon.str(sb, e.getClass().getSimpleName() + ": " + e.getMessage());
            }
        }
        sb.append('}');
    }

    static String sha256(byte[] data) {
        try {
            return hex(MessageDigest.getInstance("SHA-256").digest(data));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static String hex(byte[] b) {
        StringBuilder s = new StringBuilder(b.length * 2);
        for (byte x : b) {
            s.append(String.format("%02x", x & 0xff));
        }
        return s.toString();
    }
}
