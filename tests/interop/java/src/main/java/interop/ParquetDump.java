package interop;

import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.InternalArray;
import org.apache.paimon.data.InternalMap;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.format.FileFormat;
import org.apache.paimon.format.FormatReaderContext;
import org.apache.paimon.format.FormatReaderFactory;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.options.Options;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.types.ArrayType;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.MapType;
import org.apache.paimon.types.RowType;

import java.io.File;
import java.io.PrintStream;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Base64;

/**
 * parquet-dump FILE ROW-TYPE: reads a Parquet file with Java Paimon's own Parquet reader
 * (FileFormat "parquet" -> ParquetReaderFactory, the reader Paimon tables use) and prints one
 * line of canonical JSON (java-interop.md §4.3) per row, in file order. Map pairs keep the
 * stored order.
 */
final class ParquetDump {
    private static final DateTimeFormatter TS = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSSSSS");

    private ParquetDump() {}

    static void run(String file, DataType type, PrintStream out) throws Exception {
        if (!(type instanceof RowType)) {
            throw new IllegalArgumentException("parquet-dump needs a ROW type, got " + type);
        }
        RowType rowType = (RowType) type;
        FileFormat format = FileFormat.fromIdentifier("parquet", new Options());
        FormatReaderFactory factory = format.createReaderFactory(rowType, rowType, null);
        LocalFileIO io = LocalFileIO.create();
        Path path = new Path(new File(file).getAbsolutePath());
        long size = io.getFileSize(path);
        StringBuilder sb = new StringBuilder();
        try (RecordReader<InternalRow> reader = factory.createReader(new FormatReaderContext(io, path, size))) {
            reader.forEachRemaining(row -> {
                sb.setLength(0);
                row(sb, row, rowType);
                out.println(sb);
            });
        }
    }

    private static void row(StringBuilder sb, InternalRow r, RowType t) {
        sb.append('{');
        int i = 0;
        for (DataField f : t.getFields()) {
            if (i > 0) {
                sb.append(',');
            }
            str(sb, f.name());
            sb.append(':');
            value(sb, InternalRow.createFieldGetter(f.type(), i).getFieldOrNull(r), f.type());
            i++;
        }
        sb.append('}');
    }

    private static void value(StringBuilder sb, Object v, DataType t) {
        if (v == null) {
            sb.append("null");
            return;
        }
        switch (t.getTypeRoot()) {
            case BOOLEAN:
            case TINYINT:
            case SMALLINT:
            case INTEGER:
            case BIGINT:
            case TIME_WITHOUT_TIME_ZONE:
                sb.append(v);
                return;
            case FLOAT:
                sb.append(String.format("\"0x%08x\"", Float.floatToRawIntBits((Float) v)));
                return;
            case DOUBLE:
                sb.append(String.format("\"0x%016x\"", Double.doubleToRawLongBits((Double) v)));
                return;
            case DECIMAL:
                str(sb, ((Decimal) v).toBigDecimal().toPlainString());
                return;
            case CHAR:
            case VARCHAR:
                str(sb, ((BinaryString) v).toString());
                return;
            case BINARY:
            case VARBINARY:
                str(sb, Base64.getEncoder().encodeToString((byte[]) v));
                return;
            case DATE:
                str(sb, LocalDate.ofEpochDay((Integer) v).toString());
                return;
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                str(sb, ((Timestamp) v).toLocalDateTime().format(TS));
                return;
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                str(sb, ((Timestamp) v).toLocalDateTime().format(TS) + "Z");
                return;
            case ARRAY: {
                InternalArray a = (InternalArray) v;
                DataType et = ((ArrayType) t).getElementType();
                InternalArray.ElementGetter g = InternalArray.createElementGetter(et);
                sb.append('[');
                for (int i = 0; i < a.size(); i++) {
                    if (i > 0) {
                        sb.append(',');
                    }
                    value(sb, g.getElementOrNull(a, i), et);
                }
                sb.append(']');
                return;
            }
            case MAP: {
                InternalMap m = (InternalMap) v;
                MapType mt = (MapType) t;
                InternalArray ks = m.keyArray(), vs = m.valueArray();
                InternalArray.ElementGetter kg = InternalArray.createElementGetter(mt.getKeyType());
                InternalArray.ElementGetter vg = InternalArray.createElementGetter(mt.getValueType());
                sb.append('[');
                for (int i = 0; i < m.size(); i++) {
                    if (i > 0) {
                        sb.append(',');
                    }
                    sb.append('[');
                    value(sb, kg.getElementOrNull(ks, i), mt.getKeyType());
                    sb.append(',');
                    value(sb, vg.getElementOrNull(vs, i), mt.getValueType());
                    sb.append(']');
                }
                sb.append(']');
                return;
            }
            case ROW:
                row(sb, (InternalRow) v, (RowType) t);
                return;
            default:
                throw new IllegalArgumentException("parquet-dump: type " + t + " is not supported");
        }
    }

    private static void str(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"': sb.append("\\\""); break;
                case '\\': sb.append("\\\\"); break;
                case '\n': sb.append("\\n"); break;
                case '\r': sb.append("\\r"); break;
                case '\t': sb.append("\\t"); break;
                default:
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
            }
        }
        sb.append('"');
    }
}
