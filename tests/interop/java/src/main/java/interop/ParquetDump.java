package interop;

import org.apache.paimon.data.InternalRow;
import org.apache.paimon.format.FileFormat;
import org.apache.paimon.format.FormatReaderContext;
import org.apache.paimon.format.FormatReaderFactory;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.options.Options;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.RowType;

import java.io.File;
import java.io.PrintStream;

/**
 * parquet-dump FILE ROW-TYPE: reads a Parquet file with Java Paimon's own Parquet reader
 * (FileFormat "parquet" -> ParquetReaderFactory, the reader Paimon tables use) and prints one
 * line of canonical JSON (java-interop.md §4.3) per row, in file order. Map pairs keep the
 * stored order.
 */
final class ParquetDump {
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
                Canon.row(sb, row, rowType);
                out.println(sb);
            });
        }
    }
}
