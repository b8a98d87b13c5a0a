package interop;

import org.apache.paimon.append.AppendCompactCoordinator;
import org.apache.paimon.append.AppendCompactTask;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.operation.BaseAppendFileStoreWrite;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.source.EndOfScanException;
import org.apache.paimon.utils.Pair;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * {@code compact W db.t [KEY=VALUE...]}: the batch compaction Java Paimon's compact procedures
 * run, without Spark or Flink. Unaware-bucket append tables: AppendCompactCoordinator(table,
 * false).run(), each task's doCompact, one commit (Spark CompactProcedure
 * compactUnAwareBucketTable). Fixed-bucket tables: write.compact(partition, bucket, true) for
 * every bucket of the latest snapshot, then prepareCommit and one commit (compactAwareBucketTable).
 * Data-evolution tables: DataEvolutionCompactCoordinator(table, false, false).plan() until
 * EndOfScanException, each task's doCompact, a commit per batch (compactDataEvolutionTable).
 * Prints {"tasks", "filesBefore", "filesAfter", "millis", "groups": [[input file names]]}.
 */
final class CompactCommands {
    private CompactCommands() {}

    static void compact(Catalog c, Identifier id, List<String> kv, PrintStream out) throws Exception {
        Map<String, String> dyn = new HashMap<>();
        for (String s : kv) {
            int eq = s.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("expected KEY=VALUE, got " + s);
            }
            dyn.put(s.substring(0, eq), s.substring(eq + 1));
        }
        FileStoreTable t = ((FileStoreTable) c.getTable(id)).copy(dyn);
        long t0 = System.nanoTime();
        List<List<String>> groups = new ArrayList<>();
        List<CommitMessage> messages = new ArrayList<>();
        int before = 0, after = 0;
        String user = UUID.randomUUID().toString();
        if (t.coreOptions().dataEvolutionEnabled()) {
            // Spark CompactProcedure.compactDataEvolutionTable: plan() batches until EndOfScan,
            // one commit per batch
            org.apache.paimon.append.dataevolution.DataEvolutionCompactCoordinator co =
                    new org.apache.paimon.append.dataevolution.DataEvolutionCompactCoordinator(
                            t, false, false);
            try {
                while (true) {
                    List<org.apache.paimon.append.dataevolution.DataEvolutionCompactTask> tasks =
                            co.plan();
                    List<CommitMessage> batch = new ArrayList<>();
                    for (org.apache.paimon.append.dataevolution.DataEvolutionCompactTask task :
                            tasks) {
                        List<String> g = new ArrayList<>();
                        for (DataFileMeta f : task.compactBefore()) {
                            g.add(f.fileName());
                        }
                        groups.add(g);
                        batch.add(task.doCompact(t, user));
                        before += task.compactBefore().size();
                        after += task.compactAfter().size();
                    }
                    if (!batch.isEmpty()) {
                        try (org.apache.paimon.table.sink.TableCommitImpl commit = t.newCommit(user)) {
                            commit.commit(batch);
                        }
                    }
                }
            } catch (EndOfScanException e) {
                // done
            }
        } else if (t.coreOptions().bucket() == -1) {
            List<AppendCompactTask> tasks;
            try {
                tasks = new AppendCompactCoordinator(t, false).run();
            } catch (EndOfScanException e) {
                tasks = new ArrayList<>();
            }
            BaseAppendFileStoreWrite write = (BaseAppendFileStoreWrite) t.store().newWrite(user);
            try {
                for (AppendCompactTask task : tasks) {
                    List<String> g = new ArrayList<>();
                    for (DataFileMeta f : task.compactBefore()) {
                        g.add(f.fileName());
                    }
                    groups.add(g);
                    messages.add(task.doCompact(t, write));
                    before += task.compactBefore().size();
                    after += task.compactAfter().size();
                }
            } finally {
                write.close();
            }
        } else {
            Set<Pair<BinaryRow, Integer>> buckets = new LinkedHashSet<>();
            t.newSnapshotReader().bucketEntries().forEach(e -> buckets.add(Pair.of(e.partition(), e.bucket())));
            BatchWriteBuilder wb = t.newBatchWriteBuilder();
            try (BatchTableWrite write = wb.newWrite()) {
                for (Pair<BinaryRow, Integer> pb : buckets) {
                    write.compact(pb.getLeft(), pb.getRight(), true);
                }
                messages.addAll(write.prepareCommit());
            }
            for (CommitMessage m : messages) {
                org.apache.paimon.table.sink.CommitMessageImpl mi =
                        (org.apache.paimon.table.sink.CommitMessageImpl) m;
                List<DataFileMeta> b = mi.compactIncrement().compactBefore();
                if (b.isEmpty()) {
                    continue;
                }
                List<String> g = new ArrayList<>();
                for (DataFileMeta f : b) {
                    g.add(f.fileName());
                }
                groups.add(g);
                before += b.size();
                after += mi.compactIncrement().compactAfter().size();
            }
        }
        if (!messages.isEmpty()) {
            try (BatchTableCommit commit = t.newBatchWriteBuilder().newCommit()) {
                commit.commit(messages);
            }
        }
        long ms = (System.nanoTime() - t0) / 1000000;
        StringBuilder sb = new StringBuilder();
        sb.append("{\"tasks\":").append(groups.size()).append(",\"filesBefore\":").append(before)
                .append(",\"filesAfter\":").append(after).append(",\"millis\":").append(ms)
                .append(",\"groups\":[");
        for (int i = 0; i < groups.size(); i++) {
            sb.append(i == 0 ? "[" : ",[");
            for (int k = 0; k < groups.get(i).size(); k++) {
                sb.append(k == 0 ? "\"" : ",\"").append(groups.get(i).get(k)).append('"');
            }
            sb.append(']');
        }
        sb.append("]}");
        out.println(sb);
    }
}
