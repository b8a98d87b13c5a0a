package interop;

import org.apache.paimon.Snapshot;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.BinaryVector;
import org.apache.paimon.data.BlobData;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericArray;
import org.apache.paimon.data.GenericMap;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.data.variant.GenericVariant;
import org.apache.paimon.options.Options;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.schema.SchemaManager;
import org.apache.paimon.schema.TableSchema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.types.ArrayType;
import org.apache.paimon.types.CharType;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypeJsonParser;
import org.apache.paimon.types.DecimalType;
import org.apache.paimon.types.MapType;
import org.apache.paimon.types.MultisetType;
import org.apache.paimon.types.RowType;
import org.apache.paimon.types.VarCharType;
import org.apache.paimon.types.BinaryType;
import org.apache.paimon.types.VarBinaryType;
import org.apache.paimon.types.VectorType;
import org.apache.paimon.utils.JsonSerdeUtil;

import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Command-line bridge that lets paimon-c tests drive real Java Paimon on a local warehouse.
 *
 * <p>Exit codes: 0 ok, 1 Paimon (or I/O) error with a message on stderr, 2 usage error. Output of
 * every command goes to stdout; logging goes to stderr. See README.md for the command list.
 */
public final class PaimonInterop {

    private static final ObjectMapper MAPPER = JsonSerdeUtil.OBJECT_MAPPER_INSTANCE;

    /** Wrong arguments: exit code 2. */
    static final class UsageException extends RuntimeException {
        UsageException(String message) {
            super(message);
        }
    }

    private static final String USAGE =
            String.join(
                    "\n",
                    "usage: PaimonInterop <command> [args]",
                    "  create-db W db",
                    "  create W db.t schema.json",
                    "  schema W db.t [schemaId]",
                    "  describe W db.t [schemaId]",
                    "  alter W db.t changes.json",
                    "  list-dbs W",
                    "  list-tables W db",
                    "  drop W db.t",
                    "  snapshots W db.t",
                    "  write-demo W db.t N",
                    "  tag W db.t name [snapshotId]",
                    "  tags W db.t",
                    "  table-write W db.t ROWS.jsonl [--overwrite] [--partition @SPEC.json]",
                    "  table-read W db.t [--filter @F.json] [--exact] [--snapshot N] [--projection a,b] [--ordered]",
                    "  de-read W db.t [--snapshot N]      (DE read: all columns + _ROW_ID, _SEQUENCE_NUMBER)",
                    "  de-write W db.t [--cols a,b] ROWS.jsonl...   (one commit, one BatchTableWrite per file)",
                    "  blob-write W db.t [--cols a,b] [--opt k=v]... ROWS.jsonl...   (BLOB values {file|b64|descriptor})",
                    "  blob-read W db.t [--projection a,b] [--snapshot N] [--opt k=v]... [--descriptor]",
                    "  gindex-eval W db.t @FILTER.json [--read]   (GlobalIndexScanner row ids; --read: also the scan's)",
                    "  gindex-build W db.t COLUMN btree|bitmap [--incremental] [k=v ...]   (Java 1.4.2's own global index build + commit)",
                    "  gindex-list W db.t   (global index entries of the latest snapshot's index manifest)",
                    "  parse-type SQL-TYPE|TYPE-JSON   (prints {sql: toString(), json: type JSON})",
                    "  batch            (commands from stdin, one per line; '### <rc>' after each)");

    private final PrintStream out;

    private PaimonInterop(PrintStream out) {
        this.out = out;
    }

    public static void main(String[] args) {
        PrintStream out =
                new PrintStream(
                        new java.io.FileOutputStream(java.io.FileDescriptor.out),
                        false,
                        StandardCharsets.UTF_8);
        PaimonInterop app = new PaimonInterop(out);
        int rc;
        if (args.length == 1 && args[0].equals("batch")) {
            rc = app.batch();
        } else {
            rc = app.run(args);
        }
        out.flush();
        System.err.flush();
        System.exit(rc);
    }

    /** Runs commands read from stdin; returns 0 when the input was read, whatever the results. */
    private int batch() {
        try (BufferedReader in =
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                String trimmed = line.trim();
                if (trimmed.isEmpty() || trimmed.startsWith("#")) {
                    continue;
                }
                String[] args = trimmed.split("\\s+");
                int rc = args[0].equals("batch") ? usage("batch cannot be nested") : run(args);
                out.flush();
                System.err.flush();
                out.println("### " + rc);
                out.flush();
            }
            return 0;
        } catch (Exception e) {
            System.err.println("ERROR: reading stdin: " + e);
            return 1;
        }
    }

    private int usage(String message) {
        System.err.println("usage error: " + message);
        System.err.println(USAGE);
        return 2;
    }

    private int run(String[] args) {
        if (args.length == 0) {
            return usage("no command");
        }
        try {
            dispatch(args);
            return 0;
        } catch (UsageException e) {
            return usage(e.getMessage());
        } catch (Throwable t) {
            Throwable root = t;
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            System.err.println("ERROR: " + t.getClass().getName() + ": " + t.getMessage());
            if (root != t) {
                System.err.println(
                        "CAUSE: " + root.getClass().getName() + ": " + root.getMessage());
            }
            t.printStackTrace(System.err);
            return 1;
        }
    }

    private static void need(String[] args, int min, int max, String form) {
        if (args.length < min || args.length > max) {
            throw new UsageException(args[0] + " expects: " + form);
        }
    }

    private void dispatch(String[] a) throws Exception {
        switch (a[0]) {
            case "create-db":
                need(a, 3, 3, "create-db W db");
                try (Catalog c = catalog(a[1])) {
                    c.createDatabase(a[2], true);
                }
                break;
            case "create":
                need(a, 4, 4, "create W db.t schema.json");
                cmdCreate(a[1], ident(a[2]), a[3]);
                break;
            case "schema":
                need(a, 3, 4, "schema W db.t [schemaId]");
                try (Catalog c = catalog(a[1])) {
                    out.println(JsonSerdeUtil.toJson(storedSchema(c, ident(a[2]), a)));
                }
                break;
            case "describe":
                need(a, 3, 4, "describe W db.t [schemaId]");
                try (Catalog c = catalog(a[1])) {
                    out.println(MAPPER.writeValueAsString(describe(storedSchema(c, ident(a[2]), a))));
                }
                break;
            case "alter":
                need(a, 4, 4, "alter W db.t changes.json");
                cmdAlter(a[1], ident(a[2]), a[3]);
                break;
            case "list-dbs":
                need(a, 2, 2, "list-dbs W");
                try (Catalog c = catalog(a[1])) {
                    List<String> dbs = new ArrayList<>(c.listDatabases());
                    Collections.sort(dbs);
                    dbs.forEach(out::println);
                }
                break;
            case "list-tables":
                need(a, 3, 3, "list-tables W db");
                try (Catalog c = catalog(a[1])) {
                    List<String> ts = new ArrayList<>(c.listTables(a[2]));
                    Collections.sort(ts);
                    ts.forEach(out::println);
                }
                break;
            case "drop":
                need(a, 3, 3, "drop W db.t");
                try (Catalog c = catalog(a[1])) {
                    c.dropTable(ident(a[2]), false);
                }
                break;
            case "snapshots":
                need(a, 3, 3, "snapshots W db.t");
                cmdSnapshots(a[1], ident(a[2]));
                break;
            case "write-demo":
                need(a, 4, 4, "write-demo W db.t N");
                cmdWriteDemo(a[1], ident(a[2]), parseLong(a[3], "N"));
                break;
            case "tag":
                need(a, 4, 5, "tag W db.t name [snapshotId]");
                try (Catalog c = catalog(a[1])) {
                    Table t = c.getTable(ident(a[2]));
                    if (a.length == 5) {
                        t.createTag(a[3], parseLong(a[4], "snapshotId"));
                    } else {
                        t.createTag(a[3]);
                    }
                }
                break;
            case "rollback":
                need(a, 5, 5, "rollback W db.t snapshot|tag ID");
                try (Catalog c = catalog(a[1])) {
                    Table t = c.getTable(ident(a[2]));
                    if (a[3].equals("snapshot")) {
                        t.rollbackTo(parseLong(a[4], "snapshotId"));
                    } else {
                        t.rollbackTo(a[4]);
                    }
                }
                break;
            case "delete-tag":
                need(a, 4, 4, "delete-tag W db.t name");
                try (Catalog c = catalog(a[1])) {
                    c.getTable(ident(a[2])).deleteTag(a[3]);
                }
                break;
            case "expire":
                need(a, 7, 7, "expire W db.t retainMin retainMax timeRetainedMillis maxDeletes");
                try (Catalog c = catalog(a[1])) {
                    Table t = c.getTable(ident(a[2]));
                    org.apache.paimon.options.ExpireConfig cfg =
                            org.apache.paimon.options.ExpireConfig.builder()
                                    .snapshotRetainMin((int) parseLong(a[3], "retainMin"))
                                    .snapshotRetainMax((int) parseLong(a[4], "retainMax"))
                                    .snapshotTimeRetain(
                                            java.time.Duration.ofMillis(
                                                    parseLong(a[5], "timeRetainedMillis")))
                                    .snapshotMaxDeletes((int) parseLong(a[6], "maxDeletes"))
                                    .build();
                    long t0 = System.nanoTime();
                    int n = t.newExpireSnapshots().config(cfg).expire();
                    long ms = (System.nanoTime() - t0) / 1000000;
                    System.out.println("{\"expired\":" + n + ",\"millis\":" + ms + "}");
                }
                break;
            case "expire-partitions":
                // expire-partitions W db.t [K=V...]: the table copied with the options (and a check
                // interval of 0), store().newPartitionExpire(user, table).expire(Long.MAX_VALUE);
                // prints the expired partition specs, one per line
                if (a.length < 3) {
                    throw new UsageException("expire-partitions expects: expire-partitions W db.t [K=V...]");
                }
                try (Catalog c = catalog(a[1])) {
                    java.util.Map<String, String> dyn = new java.util.HashMap<>();
                    for (int i = 3; i < a.length; i++) {
                        int eq = a[i].indexOf('=');
                        dyn.put(a[i].substring(0, eq), a[i].substring(eq + 1));
                    }
                    dyn.put("partition.expiration-check-interval", "0 s");
                    org.apache.paimon.table.FileStoreTable t =
                            ((org.apache.paimon.table.FileStoreTable) c.getTable(ident(a[2]))).copy(dyn);
                    org.apache.paimon.operation.PartitionExpire pe =
                            t.store().newPartitionExpire(java.util.UUID.randomUUID().toString(), t);
                    java.util.List<java.util.Map<String, String>> done = pe.expire(Long.MAX_VALUE);
                    if (done != null) {
                        for (java.util.Map<String, String> m : done) {
                            StringBuilder sb = new StringBuilder();
                            for (java.util.Map.Entry<String, String> e : m.entrySet()) {
                                if (sb.length() > 0) {
                                    sb.append('/');
                                }
                                sb.append(e.getKey()).append('=').append(e.getValue());
                            }
                            out.println(sb);
                        }
                    }
                }
                break;
            case "create-branch":
                if (a.length < 4 || a.length > 5) {
                    throw new UsageException("create-branch expects: create-branch W db.t NAME [TAG]");
                }
                try (Catalog c = catalog(a[1])) {
                    Table t = c.getTable(ident(a[2]));
                    if (a.length == 5) {
                        t.createBranch(a[3], a[4]);
                    } else {
                        t.createBranch(a[3]);
                    }
                }
                break;
            case "fast-forward":
                need(a, 4, 4, "fast-forward W db.t NAME");
                try (Catalog c = catalog(a[1])) {
                    c.getTable(ident(a[2])).fastForward(a[3]);
                }
                break;
            case "branches":
                need(a, 3, 3, "branches W db.t");
                try (Catalog c = catalog(a[1])) {
                    org.apache.paimon.table.FileStoreTable t =
                            (org.apache.paimon.table.FileStoreTable) c.getTable(ident(a[2]));
                    out.println(String.join(",", t.branchManager().branches()));
                }
                break;
            case "compact":
                if (a.length < 3) {
                    throw new UsageException("compact expects: compact W db.t [KEY=VALUE...]");
                }
                try (Catalog c = catalog(a[1])) {
                    CompactCommands.compact(c, ident(a[2]), Arrays.asList(a).subList(3, a.length), out);
                }
                break;
            case "tags":
                need(a, 3, 3, "tags W db.t");
                cmdTags(a[1], ident(a[2]));
                break;
            case "table-write":
                if (a.length < 4) {
                    throw new UsageException(
                            "table-write expects: table-write W db.t ROWS.jsonl [--overwrite] [--partition @SPEC.json]");
                }
                try (Catalog c = catalog(a[1])) {
                    TableCommands.write(c, ident(a[2]), a[3], Arrays.asList(a).subList(4, a.length), out);
                }
                break;
            case "table-read":
                if (a.length < 3) {
                    throw new UsageException(
                            "table-read expects: table-read W db.t [--filter @F.json] [--exact] [--snapshot N] [--projection a,b] [--ordered]");
                }
                try (Catalog c = catalog(a[1])) {
                    TableCommands.read(c, ident(a[2]), Arrays.asList(a).subList(3, a.length), out);
                }
                break;
            case "de-read":
                if (a.length < 3) {
                    throw new UsageException("de-read expects: de-read W db.t [--snapshot N]");
                }
                try (Catalog c = catalog(a[1])) {
                    DeCommands.read(c, ident(a[2]), Arrays.asList(a).subList(3, a.length), out);
                }
                break;
            case "de-write":
                if (a.length < 4) {
                    throw new UsageException("de-write expects: de-write W db.t [--cols a,b] ROWS.jsonl...");
                }
                try (Catalog c = catalog(a[1])) {
                    DeCommands.write(c, ident(a[2]), Arrays.asList(a).subList(3, a.length), out);
                }
                break;
            case "blob-write":
            case "blob-read":
                if (a.length < 3) {
                    throw new UsageException(a[0] + " expects: " + a[0] + " W db.t ...");
                }
                try (Catalog c = catalog(a[1])) {
                    if (a[0].equals("blob-write")) {
                        BlobCommands.write(c, ident(a[2]), Arrays.asList(a).subList(3, a.length), out);
                    } else {
                        BlobCommands.read(c, ident(a[2]), Arrays.asList(a).subList(3, a.length), out);
                    }
                }
                break;
            case "gindex-eval":
            case "gindex-build":
            case "gindex-list":
                if (a.length < 3 || (a[0].equals("gindex-list") && a.length != 3)) {
                    throw new UsageException(a[0] + " expects: " + a[0] + " W db.t ...");
                }
                try (Catalog c = catalog(a[1])) {
                    List<String> rest = Arrays.asList(a).subList(3, a.length);
                    if (a[0].equals("gindex-eval")) {
                        GlobalIndexCommands.eval(c, ident(a[2]), rest, out);
                    } else if (a[0].equals("gindex-build")) {
                        GlobalIndexCommands.build(c, ident(a[2]), rest, out);
                    } else {
                        GlobalIndexCommands.list(c, ident(a[2]), out);
                    }
                }
                break;
            case "parquet-dump":
                {
                    need(a, 3, 3, "parquet-dump FILE ROW-TYPE|@TYPE-FILE (SQL string or type JSON)");
                    String text = a[2].startsWith("@") ? readFile(a[2].substring(1)) : a[2];
                    DataType t = text.trim().startsWith("{")
                            ? parseType(MAPPER.readTree(text))
                            : parseType(MAPPER.getNodeFactory().textNode(text));
                    ParquetDump.run(a[1], t, out);
                    break;
                }
            case "parse-type":
                {
                    if (a.length < 2) {
                        throw new UsageException("parse-type expects: parse-type SQL-TYPE...");
                    }
                    String text = String.join(" ", Arrays.copyOfRange(a, 1, a.length));
                    DataType t = text.trim().startsWith("{")
                            ? parseType(MAPPER.readTree(text))
                            : parseType(MAPPER.getNodeFactory().textNode(text));
                    ObjectNode o = MAPPER.createObjectNode();
                    o.put("sql", t.toString());
                    o.set("json", MAPPER.readTree(JsonSerdeUtil.toFlatJson(t)));
                    out.println(MAPPER.writeValueAsString(o));
                    break;
                }
            case "help":
            case "--help":
            case "-h":
                System.err.println(USAGE);
                break;
            default:
                throw new UsageException("unknown command '" + a[0] + "'");
        }
    }

    // ------------------------------------------------------------------ helpers

    private static long parseLong(String s, String what) {
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            throw new UsageException(what + " must be an integer, got '" + s + "'");
        }
    }

    private static Identifier ident(String s) {
        int dot = s.indexOf('.');
        if (dot <= 0 || dot == s.length() - 1) {
            throw new UsageException("table must be given as db.table, got '" + s + "'");
        }
        return Identifier.create(s.substring(0, dot), s.substring(dot + 1));
    }

    private static Catalog catalog(String warehouse) {
        Options options = new Options();
        options.set("warehouse", Paths.get(warehouse).toAbsolutePath().normalize().toString());
        options.set("metastore", "filesystem");
        options.set("cache-enabled", "false");
        return CatalogFactory.createCatalog(CatalogContext.create(options));
    }

    private static FileStoreTable fileStoreTable(Catalog c, Identifier id) throws Exception {
        Table t = c.getTable(id);
        if (!(t instanceof FileStoreTable)) {
            throw new IllegalStateException(
                    id + " is not a FileStoreTable but " + t.getClass().getName());
        }
        return (FileStoreTable) t;
    }

    /**
     * The schema as stored in the table's schema/schema-N file (latest, or a[3] when given).
     * FileStoreTable.schema() is not used for output because the catalog injects a "path" option
     * into it that is not part of the file.
     */
    private static TableSchema storedSchema(Catalog c, Identifier id, String[] a)
            throws Exception {
        FileStoreTable t = fileStoreTable(c, id);
        SchemaManager sm = new SchemaManager(t.fileIO(), t.location());
        if (a.length > 3) {
            return sm.schema(parseLong(a[3], "schemaId"));
        }
        return sm.latest()
                .orElseThrow(() -> new IllegalStateException("no schema file for " + id));
    }

    private static String readFile(String path) throws Exception {
        return new String(Files.readAllBytes(Paths.get(path)), StandardCharsets.UTF_8);
    }

    // ------------------------------------------------------------------ create / alter

    private void cmdCreate(String w, Identifier id, String schemaFile) throws Exception {
        Schema schema = parseSchema(readFile(schemaFile));
        try (Catalog c = catalog(w)) {
            c.createDatabase(id.getDatabaseName(), true);
            c.createTable(id, schema, false);
        }
    }

    /**
     * Java's Schema JSON. Paimon's deserializer needs an "id" on every field (top-level and
     * nested); when no top-level field has one, the schema is built with Schema.Builder instead,
     * which assigns ids the way Java's programmatic API does (one counter: each column, then
     * right after it that column's nested ROW fields, children before their parent).
     */
    static Schema parseSchema(String json) throws Exception {
        JsonNode root = MAPPER.readTree(json);
        JsonNode fields = root.get("fields");
        if (fields == null || !fields.isArray()) {
            throw new UsageException("schema JSON needs a 'fields' array");
        }
        boolean anyId = false;
        boolean allIds = true;
        for (JsonNode f : fields) {
            anyId |= f.has("id");
            allIds &= f.has("id");
        }
        if (allIds) {
            return JsonSerdeUtil.fromJson(json, Schema.class);
        }
        if (anyId) {
            throw new UsageException("give an 'id' on all top-level fields or on none");
        }
        Schema.Builder b = Schema.newBuilder();
        for (JsonNode f : fields) {
            String desc = f.hasNonNull("description") ? f.get("description").asText() : null;
            b.column(f.get("name").asText(), parseType(f.get("type")), desc);
        }
        b.partitionKeys(stringList(root.get("partitionKeys")));
        b.primaryKey(stringList(root.get("primaryKeys")));
        JsonNode opts = root.get("options");
        if (opts != null && opts.isObject()) {
            opts.fields().forEachRemaining(e -> b.option(e.getKey(), e.getValue().asText()));
        }
        if (root.hasNonNull("comment")) {
            b.comment(root.get("comment").asText());
        }
        return b.build();
    }

    private static List<String> stringList(JsonNode n) {
        List<String> l = new ArrayList<>();
        if (n != null && n.isArray()) {
            n.forEach(x -> l.add(x.asText()));
        }
        return l;
    }

    /** Parses a type given either as an SQL string ("DECIMAL(10, 2)") or as Paimon type JSON. */
    static DataType parseType(JsonNode node) {
        if (node == null || node.isNull()) {
            throw new UsageException("missing 'type'");
        }
        if (node.isTextual()) {
            return SqlTypeParser.parse(node.asText());
        }
        if (node.isObject()) {
            try {
                return MAPPER.treeToValue(node, DataType.class);
            } catch (Exception e) {
                throw new IllegalArgumentException("cannot parse type JSON " + node, e);
            }
        }
        throw new UsageException("type must be a string or an object: " + node);
    }

    private static String str(JsonNode change, String key, boolean required) {
        JsonNode v = change.get(key);
        if (v == null || v.isNull()) {
            if (required) {
                throw new UsageException("change " + change + " lacks '" + key + "'");
            }
            return null;
        }
        return v.asText();
    }

    /** Column name, or a nested path when given as a JSON array of names. */
    private static String[] path(JsonNode change, String key) {
        JsonNode v = change.get(key);
        if (v == null || v.isNull()) {
            throw new UsageException("change " + change + " lacks '" + key + "'");
        }
        if (v.isArray()) {
            String[] p = new String[v.size()];
            for (int i = 0; i < p.length; i++) {
                p[i] = v.get(i).asText();
            }
            return p;
        }
        return new String[] {v.asText()};
    }

    private static SchemaChange.Move move(JsonNode change, String name) {
        JsonNode first = change.get("first");
        if (first != null && first.asBoolean(false)) {
            return SchemaChange.Move.first(name);
        }
        if (change.hasNonNull("after")) {
            return SchemaChange.Move.after(name, change.get("after").asText());
        }
        if (change.hasNonNull("before")) {
            return SchemaChange.Move.before(name, change.get("before").asText());
        }
        JsonNode last = change.get("last");
        if (last != null && last.asBoolean(false)) {
            return SchemaChange.Move.last(name);
        }
        return null;
    }

    static List<SchemaChange> parseChanges(String json) throws Exception {
        JsonNode root = MAPPER.readTree(json);
        if (!root.isArray()) {
            throw new UsageException("changes file must contain a JSON array");
        }
        List<SchemaChange> changes = new ArrayList<>();
        for (JsonNode ch : root) {
            String op = str(ch, "op", true);
            switch (op) {
                case "addColumn":
                    {
                        String[] p = path(ch, "name");
                        SchemaChange.Move mv = move(ch, p[p.length - 1]);
                        changes.add(
                                SchemaChange.addColumn(
                                        p, parseType(ch.get("type")), str(ch, "comment", false),
                                        mv));
                        break;
                    }
                case "renameColumn":
                    changes.add(
                            SchemaChange.renameColumn(path(ch, "name"), str(ch, "newName", true)));
                    break;
                case "dropColumn":
                    changes.add(SchemaChange.dropColumn(path(ch, "name")));
                    break;
                case "updateColumnComment":
                    changes.add(
                            SchemaChange.updateColumnComment(
                                    path(ch, "name"), str(ch, "comment", false)));
                    break;
                case "updateComment":
                    changes.add(SchemaChange.updateComment(str(ch, "comment", false)));
                    break;
                case "setOption":
                    changes.add(SchemaChange.setOption(str(ch, "key", true), str(ch, "value", true)));
                    break;
                case "removeOption":
                    changes.add(SchemaChange.removeOption(str(ch, "key", true)));
                    break;
                case "updateColumnType":
                    {
                        JsonNode keep = ch.get("keepNullability");
                        changes.add(
                                SchemaChange.updateColumnType(
                                        path(ch, "name"),
                                        parseType(ch.get("type")),
                                        keep != null && keep.asBoolean(false)));
                        break;
                    }
                case "updateColumnNullability":
                    {
                        JsonNode n = ch.get("nullable");
                        if (n == null || !n.isBoolean()) {
                            throw new UsageException("change " + ch + " needs boolean 'nullable'");
                        }
                        changes.add(
                                SchemaChange.updateColumnNullability(
                                        path(ch, "name"), n.asBoolean()));
                        break;
                    }
                case "updateColumnPosition":
                    {
                        String name = str(ch, "name", true);
                        SchemaChange.Move mv = move(ch, name);
                        if (mv == null) {
                            throw new UsageException(
                                    "change " + ch + " needs first/after/before/last");
                        }
                        changes.add(SchemaChange.updateColumnPosition(mv));
                        break;
                    }
                case "updateColumnDefaultValue":
                    changes.add(
                            SchemaChange.updateColumnDefaultValue(
                                    path(ch, "name"), str(ch, "defaultValue", false)));
                    break;
                case "dropPrimaryKey":
                    changes.add(SchemaChange.dropPrimaryKey());
                    break;
                default:
                    throw new UsageException("unknown alter op '" + op + "'");
            }
        }
        return changes;
    }

    private void cmdAlter(String w, Identifier id, String changesFile) throws Exception {
        List<SchemaChange> changes = parseChanges(readFile(changesFile));
        try (Catalog c = catalog(w)) {
            c.alterTable(id, changes, false);
        }
    }

    // ------------------------------------------------------------------ describe

    static ObjectNode describe(TableSchema s) {
        ObjectNode root = MAPPER.createObjectNode();
        ArrayNode fields = root.putArray("fields");
        for (DataField f : s.fields()) {
            ObjectNode fo = fields.addObject();
            fo.put("id", f.id());
            fo.put("name", f.name());
            fo.put("type", f.type().toString());
            fo.put("description", f.description());
        }
        ArrayNode pk = root.putArray("partitionKeys");
        s.partitionKeys().forEach(pk::add);
        ArrayNode pks = root.putArray("primaryKeys");
        s.primaryKeys().forEach(pks::add);
        ObjectNode opts = root.putObject("options");
        new TreeMap<>(s.options()).forEach(opts::put);
        root.put("comment", s.comment());
        root.put("highestFieldId", s.highestFieldId());
        root.put("schemaId", s.id());
        return root;
    }

    // ------------------------------------------------------------------ snapshots / tags

    private void cmdSnapshots(String w, Identifier id) throws Exception {
        try (Catalog c = catalog(w)) {
            FileStoreTable t = fileStoreTable(c, id);
            List<Snapshot> all = new ArrayList<>();
            Iterator<Snapshot> it = t.snapshotManager().snapshots();
            it.forEachRemaining(all::add);
            all.sort((x, y) -> Long.compare(x.id(), y.id()));
            for (Snapshot s : all) {
                ObjectNode o = MAPPER.createObjectNode();
                o.put("id", s.id());
                o.put("schemaId", s.schemaId());
                o.put("commitKind", s.commitKind().name());
                o.put("totalRecordCount", s.totalRecordCount());
                o.put("deltaRecordCount", s.deltaRecordCount());
                out.println(MAPPER.writeValueAsString(o));
            }
        }
    }

    private void cmdTags(String w, Identifier id) throws Exception {
        try (Catalog c = catalog(w)) {
            FileStoreTable t = fileStoreTable(c, id);
            SortedMap<Snapshot, List<String>> tags = t.tagManager().tags();
            Map<String, Long> byName = new TreeMap<>();
            tags.forEach((snap, names) -> names.forEach(n -> byName.put(n, snap.id())));
            for (Map.Entry<String, Long> e : byName.entrySet()) {
                ObjectNode o = MAPPER.createObjectNode();
                o.put("name", e.getKey());
                o.put("snapshotId", e.getValue());
                out.println(MAPPER.writeValueAsString(o));
            }
        }
    }

    // ------------------------------------------------------------------ write-demo

    private void cmdWriteDemo(String w, Identifier id, long n) throws Exception {
        if (n < 0) {
            throw new UsageException("N must be >= 0");
        }
        try (Catalog c = catalog(w)) {
            FileStoreTable t = fileStoreTable(c, id);
            RowType rowType = t.rowType();
            BatchWriteBuilder wb = t.newBatchWriteBuilder();
            List<CommitMessage> msgs;
            try (BatchTableWrite write = wb.newWrite()) {
                for (long i = 0; i < n; i++) {
                    write.write(demoRow(rowType, i));
                }
                msgs = write.prepareCommit();
            }
            try (BatchTableCommit commit = wb.newCommit()) {
                commit.commit(msgs);
            }
            Long latest = fileStoreTable(c, id).snapshotManager().latestSnapshotId();
            ObjectNode o = MAPPER.createObjectNode();
            o.put("rows", n);
            o.put("latestSnapshotId", latest);
            out.println(MAPPER.writeValueAsString(o));
        }
    }

    private static GenericRow demoRow(RowType rowType, long i) {
        List<DataField> fields = rowType.getFields();
        GenericRow row = new GenericRow(fields.size());
        for (int k = 0; k < fields.size(); k++) {
            row.setField(k, demoValue(fields.get(k).type(), i, k));
        }
        return row;
    }

    private static String fit(String s, int len) {
        return s.length() > len ? s.substring(0, len) : s;
    }

    private static byte[] demoBytes(long i, int len) {
        byte[] b = new byte[len];
        for (int j = 0; j < len; j++) {
            b[j] = (byte) (i + j);
        }
        return b;
    }

    /**
     * Deterministic non-null value for row i, column k, in Paimon's internal representation.
     * Integral values derive from i so partitions/keys differ by row.
     */
    static Object demoValue(DataType type, long i, int k) {
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                return i % 2 == 0;
            case TINYINT:
                return (byte) (i % 128);
            case SMALLINT:
                return (short) (i % 32768);
            case INTEGER:
                return (int) i;
            case BIGINT:
                return i * 1000L + k;
            case FLOAT:
                return (float) i + 0.25f;
            case DOUBLE:
                return (double) i + 0.5;
            case DECIMAL:
                {
                    DecimalType dt = (DecimalType) type;
                    BigDecimal v = new BigDecimal(BigInteger.valueOf(i * 100 + 1), 2);
                    Decimal d = Decimal.fromBigDecimal(v, dt.getPrecision(), dt.getScale());
                    return d != null ? d : Decimal.fromBigDecimal(BigDecimal.ZERO, dt.getPrecision(), dt.getScale());
                }
            case CHAR:
                return BinaryString.fromString(fit("c" + i, ((CharType) type).getLength()));
            case VARCHAR:
                return BinaryString.fromString(fit("s" + i, ((VarCharType) type).getLength()));
            case BINARY:
                return demoBytes(i, ((BinaryType) type).getLength());
            case VARBINARY:
                return demoBytes(i, (int) Math.min(((VarBinaryType) type).getLength(), 5));
            case DATE:
                return (int) (i % 100000);
            case TIME_WITHOUT_TIME_ZONE:
                return (int) ((i * 1001) % 86_400_000L);
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return Timestamp.fromEpochMillis(1_700_000_000_000L + i * 1000, (int) (i % 1000));
            case ARRAY:
                {
                    DataType e = ((ArrayType) type).getElementType();
                    return new GenericArray(
                            new Object[] {demoValue(e, i, 0), demoValue(e, i + 1, 1)});
                }
            case MAP:
                {
                    MapType mt = (MapType) type;
                    Map<Object, Object> m = new LinkedHashMap<>();
                    m.put(demoValue(mt.getKeyType(), i, 0), demoValue(mt.getValueType(), i, 1));
                    return new GenericMap(m);
                }
            case MULTISET:
                {
                    Map<Object, Object> m = new LinkedHashMap<>();
                    m.put(demoValue(((MultisetType) type).getElementType(), i, 0), 1);
                    return new GenericMap(m);
                }
            case ROW:
                return demoRow((RowType) type, i);
            case VARIANT:
                return GenericVariant.fromJson("{\"i\":" + i + ",\"s\":\"v" + i + "\"}");
            case BLOB:
                return new BlobData(demoBytes(i, 8));
            case VECTOR:
                return demoVector((VectorType) type, i);
            default:
                throw new UnsupportedOperationException(
                        "write-demo does not generate values of type " + type);
        }
    }

    private static BinaryVector demoVector(VectorType vt, long i) {
        int n = vt.getLength();
        switch (vt.getElementType().getTypeRoot()) {
            case FLOAT:
                {
                    float[] a = new float[n];
                    for (int j = 0; j < n; j++) a[j] = i + j * 0.5f;
                    return BinaryVector.fromPrimitiveArray(a);
                }
            case DOUBLE:
                {
                    double[] a = new double[n];
                    for (int j = 0; j < n; j++) a[j] = i + j * 0.5;
                    return BinaryVector.fromPrimitiveArray(a);
                }
            case INTEGER:
                {
                    int[] a = new int[n];
                    for (int j = 0; j < n; j++) a[j] = (int) i + j;
                    return BinaryVector.fromPrimitiveArray(a);
                }
            case BIGINT:
                {
                    long[] a = new long[n];
                    for (int j = 0; j < n; j++) a[j] = i + j;
                    return BinaryVector.fromPrimitiveArray(a);
                }
            case SMALLINT:
                {
                    short[] a = new short[n];
                    for (int j = 0; j < n; j++) a[j] = (short) (i + j);
                    return BinaryVector.fromPrimitiveArray(a);
                }
            case TINYINT:
                {
                    byte[] a = new byte[n];
                    for (int j = 0; j < n; j++) a[j] = (byte) (i + j);
                    return BinaryVector.fromPrimitiveArray(a);
                }
            case BOOLEAN:
                {
                    boolean[] a = new boolean[n];
                    for (int j = 0; j < n; j++) a[j] = ((i + j) % 2) == 0;
                    return BinaryVector.fromPrimitiveArray(a);
                }
            default:
                throw new UnsupportedOperationException("vector element " + vt.getElementType());
        }
    }

    /**
     * Parses SQL type strings as printed by DataType.toString(), including nested forms that
     * Paimon's DataTypeJsonParser.parseAtomicTypeSQLString rejects: ARRAY&lt;T&gt;,
     * MULTISET&lt;T&gt;, MAP&lt;K, V&gt;, ROW&lt;`name` T [COMMENT '...'], ...&gt;, each with an
     * optional NOT NULL / NULL suffix. Leaves (incl. VECTOR&lt;E, n&gt;) go to Paimon's parser.
     * ROW field ids are numbered from 0 here; Paimon reassigns them when the type is added.
     */
    static final class SqlTypeParser {
        private final String s;
        private int pos;
        private int nextFieldId;

        private SqlTypeParser(String s) {
            this.s = s;
        }

        static DataType parse(String text) {
            SqlTypeParser p = new SqlTypeParser(text);
            DataType t = p.type();
            p.ws();
            if (p.pos != p.s.length()) {
                throw p.error("unexpected trailing text");
            }
            return t;
        }

        private IllegalArgumentException error(String msg) {
            return new IllegalArgumentException(
                    "cannot parse type '" + s + "' at position " + pos + ": " + msg);
        }

        private void ws() {
            while (pos < s.length() && Character.isWhitespace(s.charAt(pos))) {
                pos++;
            }
        }

        private boolean peekChar(char c) {
            ws();
            return pos < s.length() && s.charAt(pos) == c;
        }

        private void expect(char c) {
            if (!peekChar(c)) {
                throw error("expected '" + c + "'");
            }
            pos++;
        }

        /** Case-insensitive keyword at pos followed by a non-identifier char; consumes it. */
        private boolean keyword(String kw) {
            ws();
            int end = pos + kw.length();
            if (end <= s.length()
                    && s.regionMatches(true, pos, kw, 0, kw.length())
                    && (end == s.length() || !isIdentChar(s.charAt(end)))) {
                pos = end;
                return true;
            }
            return false;
        }

        private static boolean isIdentChar(char c) {
            return Character.isLetterOrDigit(c) || c == '_' || c == '$';
        }

        private DataType nullability(DataType t) {
            int save = pos;
            if (keyword("NOT")) {
                if (keyword("NULL")) {
                    return t.copy(false);
                }
                pos = save;
                return t;
            }
            if (keyword("NULL")) {
                return t.copy(true);
            }
            return t;
        }

        private DataType type() {
            ws();
            int save = pos;
            if (keyword("ARRAY") && peekChar('<')) {
                expect('<');
                DataType e = type();
                expect('>');
                return nullability(new ArrayType(e));
            }
            pos = save;
            if (keyword("MULTISET") && peekChar('<')) {
                expect('<');
                DataType e = type();
                expect('>');
                return nullability(new MultisetType(e));
            }
            pos = save;
            if (keyword("MAP") && peekChar('<')) {
                expect('<');
                DataType k = type();
                expect(',');
                DataType v = type();
                expect('>');
                return nullability(new MapType(k, v));
            }
            pos = save;
            if (keyword("ROW") && peekChar('<')) {
                expect('<');
                List<DataField> fields = new ArrayList<>();
                if (!peekChar('>')) {
                    do {
                        fields.add(field());
                    } while (peekChar(',') && ++pos > 0);
                }
                expect('>');
                return nullability(new RowType(fields));
            }
            pos = save;
            return leaf();
        }

        private DataField field() {
            ws();
            String name;
            if (peekChar('`')) {
                pos++;
                StringBuilder b = new StringBuilder();
                while (true) {
                    if (pos >= s.length()) {
                        throw error("unterminated `name`");
                    }
                    char c = s.charAt(pos++);
                    if (c == '`') {
                        if (pos < s.length() && s.charAt(pos) == '`') {
                            b.append('`');
                            pos++;
                            continue;
                        }
                        break;
                    }
                    b.append(c);
                }
                name = b.toString();
            } else {
                int start = pos;
                while (pos < s.length() && isIdentChar(s.charAt(pos))) {
                    pos++;
                }
                if (start == pos) {
                    throw error("expected field name");
                }
                name = s.substring(start, pos);
            }
            DataType t = type();
            String comment = null;
            if (keyword("COMMENT")) {
                expect('\'');
                StringBuilder b = new StringBuilder();
                while (true) {
                    if (pos >= s.length()) {
                        throw error("unterminated comment");
                    }
                    char c = s.charAt(pos++);
                    if (c == '\'') {
                        if (pos < s.length() && s.charAt(pos) == '\'') {
                            b.append('\'');
                            pos++;
                            continue;
                        }
                        break;
                    }
                    b.append(c);
                }
                comment = b.toString();
            }
            return new DataField(nextFieldId++, name, t, comment);
        }

        /** An atomic type (or VECTOR), up to a top-level ',' '>' or COMMENT; Paimon parses it. */
        private DataType leaf() {
            ws();
            int start = pos;
            int depth = 0;
            while (pos < s.length()) {
                char c = s.charAt(pos);
                if (c == '<' || c == '(') {
                    depth++;
                } else if (c == ')' || (c == '>' && depth > 0)) {
                    depth--;
                } else if (depth == 0 && (c == ',' || c == '>')) {
                    break;
                } else if (depth == 0
                        && (c == 'C' || c == 'c')
                        && pos > start
                        && Character.isWhitespace(s.charAt(pos - 1))) {
                    int save = pos;
                    if (keyword("COMMENT")) {
                        pos = save;
                        break;
                    }
                }
                pos++;
            }
            String text = s.substring(start, pos).trim();
            if (text.isEmpty()) {
                throw error("expected a type");
            }
            return DataTypeJsonParser.parseAtomicTypeSQLString(text);
        }
    }
}
