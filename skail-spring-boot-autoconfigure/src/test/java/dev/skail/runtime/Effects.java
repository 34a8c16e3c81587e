package dev.skail.runtime;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/** Counts what commands really did, per execution, so tests can tell a run from a replay. */
public class Effects {

    private final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();

    private final Map<String, List<String>> values = new ConcurrentHashMap<>();

    private final java.util.Set<String> broken = ConcurrentHashMap.newKeySet();

    /** Makes the outside service of this execution fail, until {@link #fix(String)}. */
    public void breakFor(String taskId) {
        this.broken.add(taskId);
    }

    public void fix(String taskId) {
        this.broken.remove(taskId);
    }

    public boolean isBroken(String taskId) {
        return this.broken.contains(taskId);
    }

    /** Records one real run of {@code what} in the execution running on this thread and returns its count. */
    public int ran(String taskId, String what) {
        return this.counts.computeIfAbsent(taskId + "/" + what, (key) -> new AtomicInteger()).incrementAndGet();
    }

    public int count(String taskId, String what) {
        AtomicInteger count = this.counts.get(taskId + "/" + what);
        return (count != null) ? count.get() : 0;
    }

    public void note(String taskId, String value) {
        this.values.computeIfAbsent(taskId, (key) -> new CopyOnWriteArrayList<>()).add(value);
    }

    public List<String> notes(String taskId) {
        return this.values.getOrDefault(taskId, List.of());
    }
}
