package interop;

import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericArray;
import org.apache.paimon.data.GenericMap;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalArray;
import org.apache.paimon.data.InternalMap;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.types.ArrayType;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DecimalType;
import org.apache.paimon.types.MapType;
import org.apache.paimon.types.RowType;

import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The canonical JSON value encoding (java-interop.md §4.3), both directions: {@link #decode}
 * turns a JSON value into Paimon's internal object for a type (table-write input, filter
 * literals), {@link #value} prints an internal object (table-read and parquet-dump output).
 *
 * <pre>
 * BOOLEAN true/false          TINYINT..BIGINT integer      FLOAT/DOUBLE "0x<raw IEEE bits>" (input: numbers too)
 * DECIMAL plain string        CHAR/VARCHAR string          BINARY/VARBINARY standard base64
 * DATE "YYYY-MM-DD"           TIME integer ms of day       TIMESTAMP "YYYY-MM-DDTHH:MM:SS.fffffffff"
 * TIMESTAMP_LTZ same + "Z"    ARRAY list                   MAP [[k, v], ...] in stored order
 * ROW object by field name (input: also a list in field order)     NULL null at every level
 * </pre>
 */
final class Canon {
    static final DateTimeFormatter TS = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSSSSS");

    private Canon() {}

    // ------------------------------------------------------------------ JSON -> internal

    static Object decode(JsonNode v, DataType t) {
        if (v == null || v.isNull()) {
            return null;
        }
        switch (t.getTypeRoot()) {
            case BOOLEAN:
                if (!v.isBoolean()) {
                    throw bad(v, t);
                }
                return v.asBoolean();
            case TINYINT:
                return (byte) integral(v, t, Byte.MIN_VALUE, Byte.MAX_VALUE);
            case SMALLINT:
                return (short) integral(v, t, Short.MIN_VALUE, Short.MAX_VALUE);
            case INTEGER:
                return (int) integral(v, t, Integer.MIN_VALUE, Integer.MAX_VALUE);
            case BIGINT:
                return integral(v, t, Long.MIN_VALUE, Long.MAX_VALUE);
            case TIME_WITHOUT_TIME_ZONE:
                return (int) integral(v, t, 0, 86_399_999);
            case FLOAT:
                if (v.isTextual() && v.asText().startsWith("0x")) {
                    return Float.intBitsToFloat((int) Long.parseLong(v.asText().substring(2), 16));
                }
                if (!v.isNumber()) {
                    throw bad(v, t);
                }
                return (float) v.asDouble();
            case DOUBLE:
                if (v.isTextual() && v.asText().startsWith("0x")) {
                    return Double.longBitsToDouble(Long.parseUnsignedLong(v.asText().substring(2), 16));
                }
                if (!v.isNumber()) {
                    throw bad(v, t);
                }
                return v.asDouble();
            case DECIMAL:
                {
                    DecimalType dt = (DecimalType) t;
                    Decimal d = Decimal.fromBigDecimal(new BigDecimal(v.asText()), dt.getPrecision(), dt.getScale());
                    if (d == null) {
                        throw new IllegalArgumentException("decimal " + v + " does not fit " + t);
                    }
                    return d;
                }
            case CHAR:
            case VARCHAR:
                if (!v.isTextual()) {
                    throw bad(v, t);
                }
                return BinaryString.fromString(v.asText());
            case BINARY:
            case VARBINARY:
                return Base64.getDecoder().decode(v.asText());
            case DATE:
                return (int) LocalDate.parse(v.asText()).toEpochDay();
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                {
                    String s = v.asText();
                    if (s.endsWith("Z")) {
                        s = s.substring(0, s.length() - 1);
                    }
                    return Timestamp.fromLocalDateTime(LocalDateTime.parse(s));
                }
            case ARRAY:
                {
                    DataType et = ((ArrayType) t).getElementType();
                    Object[] a = new Object[v.size()];
                    for (int i = 0; i < a.length; i++) {
                        a[i] = decode(v.get(i), et);
                    }
                    return new GenericArray(a);
                }
            case MAP:
                {
                    MapType mt = (MapType) t;
                    Map<Object, Object> m = new LinkedHashMap<>();
                    for (JsonNode pair : v) {
                        m.put(decode(pair.get(0), mt.getKeyType()), decode(pair.get(1), mt.getValueType()));
                    }
                    return new GenericMap(m);
                }
            case ROW:
                return decodeRow(v, (RowType) t);
            default:
                throw new IllegalArgumentException("canonical JSON: type " + t + " is not supported");
        }
    }

    /** A row from an object keyed by field name (absent key = null) or a list in field order. */
    static GenericRow decodeRow(JsonNode v, RowType t) {
        List<DataField> fields = t.getFields();
        GenericRow row = new GenericRow(fields.size());
        if (v.isArray()) {
            if (v.size() != fields.size()) {
                throw new IllegalArgumentException("row " + v + " has " + v.size() + " values for " + t);
            }
            for (int i = 0; i < fields.size(); i++) {
                row.setField(i, decode(v.get(i), fields.get(i).type()));
            }
            return row;
        }
        if (!v.isObject()) {
            throw bad(v, t);
        }
        for (Iterator<String> it = v.fieldNames(); it.hasNext(); ) {
            String name = it.next();
            if (!t.containsField(name)) {
                throw new IllegalArgumentException("row has unknown field '" + name + "' for " + t);
            }
        }
        for (int i = 0; i < fields.size(); i++) {
            row.setField(i, decode(v.get(fields.get(i).name()), fields.get(i).type()));
        }
        return row;
    }

    private static long integral(JsonNode v, DataType t, long min, long max) {
        if (!v.isIntegralNumber() || !v.canConvertToLong()) {
            throw bad(v, t);
        }
        long x = v.asLong();
        if (x < min || x > max) {
            throw new IllegalArgumentException("value " + v + " out of range for " + t);
        }
        return x;
    }

    private static IllegalArgumentException bad(JsonNode v, DataType t) {
        return new IllegalArgumentException("canonical JSON: " + v + " is not a value of " + t);
    }

    // ------------------------------------------------------------------ internal -> JSON

    static void row(StringBuilder sb, InternalRow r, RowType t) {
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

    static void value(StringBuilder sb, Object v, DataType t) {
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
            case ARRAY:
                {
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
            case MAP:
                {
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
                throw new IllegalArgumentException("canonical JSON: type " + t + " is not supported");
        }
    }

    static void str(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"':
                    sb.append("\\\"");
                    break;
                case '\\':
                    sb.append("\\\\");
                    break;
                case '\n':
                    sb.append("\\n");
                    break;
                case '\r':
                    sb.append("\\r");
                    break;
                case '\t':
                    sb.append("\\t");
                    break;
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

    /**
     * The partition-spec string Java's overwrite parses for a canonical value (DATE as
     * "YYYY-MM-DD", BOOLEAN "true"/"false", numbers in decimal); null is the default partition
     * name (option partition.default-name, default "__DEFAULT_PARTITION__").
     */
    static String partitionString(JsonNode v, String defaultName) {
        return v == null || v.isNull() ? defaultName : v.asText();
    }
}
