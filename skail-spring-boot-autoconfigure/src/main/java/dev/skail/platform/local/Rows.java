package dev.skail.platform.local;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import dev.skail.ExecutionStatus;
import dev.skail.platform.AttemptRow;
import dev.skail.platform.EventRow;
import dev.skail.platform.ExecutionRow;
import dev.skail.platform.ScheduleRow;
import dev.skail.platform.StepRow;
import org.jspecify.annotations.Nullable;

/**
 * The local store's rows as bytes, and its keys as strings. A row is its fields in order: a string as its UTF-8
 * length (a varint, {@code 0} for {@code null}, the length plus one otherwise) and bytes; a number as a zig-zag varint;
 * a {@code null} number as a flag. Each row starts with a format byte, so that a later format can read an older one.
 * <p>
 * A key is its parts, each but the last written as its length, a colon and itself (no part can then run into the
 * next, whatever characters an id holds); numbers in keys are fixed-width hex that sort as the numbers do.
 */
final class Rows {

    static final byte FORMAT = 1;

    private Rows() {
    }

    /** An execution as the store keeps it: the row, and the lease of the runner that holds it, if any. */
    record Execution(ExecutionRow row, @Nullable String leaseOwner, @Nullable String leaseToken,
            @Nullable Long leaseUntil) {

        String taskId() {
            return this.row.taskId();
        }

        ExecutionStatus status() {
            return this.row.status();
        }

        Execution with(ExecutionRow changed) {
            return new Execution(changed, this.leaseOwner, this.leaseToken, this.leaseUntil);
        }

        Execution withLease(@Nullable String owner, @Nullable String token, @Nullable Long until) {
            return new Execution(this.row, owner, token, until);
        }
    }

    /** An event as the store keeps it: the row, and the key that makes a second firing of it a no-op. */
    record Event(EventRow row, String eventKey) {
    }

    /** The part of a key that names a string: its length, a colon, the string. */
    static String part(String value) {
        return value.length() + ":" + value;
    }

    /** An int as 8 hex digits that sort as the ints do. */
    static String sortable(int value) {
        String hex = Integer.toHexString(value ^ Integer.MIN_VALUE);
        return "00000000".substring(hex.length()) + hex;
    }

    /** A long as 16 hex digits that sort as the longs do. */
    static String sortable(long value) {
        String hex = Long.toHexString(value ^ Long.MIN_VALUE);
        return "0000000000000000".substring(hex.length()) + hex;
    }

    static long longOf(String sortable) {
        return Long.parseUnsignedLong(sortable, 16) ^ Long.MIN_VALUE;
    }

    static byte[] execution(Execution execution) {
        ExecutionRow row = execution.row();
        Writer out = new Writer(64 + length(row.arguments()) + length(row.result()) + length(row.error()));
        out.string(row.taskId()).string(row.workload()).string(row.version()).string(row.function())
            .string(row.arguments()).number(row.status().ordinal()).string(row.result()).string(row.error())
            .number(row.attempt()).number(row.retriesUsed()).nullable(row.nextRunAt()).number(row.createdAt())
            .number(row.updatedAt()).string(row.parentTaskId()).string(execution.leaseOwner())
            .string(execution.leaseToken()).nullable(execution.leaseUntil());
        return out.bytes();
    }

    static Execution execution(byte[] bytes) {
        Reader in = new Reader(bytes);
        ExecutionRow row = new ExecutionRow(in.required(), in.required(), in.required(), in.required(), in.required(),
                ExecutionStatus.values()[(int) in.number()], in.string(), in.string(), (int) in.number(),
                (int) in.number(), in.nullable(), in.number(), in.number(), in.string());
        return new Execution(row, in.string(), in.string(), in.nullable());
    }

    static byte[] step(StepRow step) {
        Writer out = new Writer(64 + length(step.arguments()) + length(step.result()) + length(step.error()));
        out.string(step.taskId()).number(step.position()).string(step.kind()).string(step.name())
            .string(step.arguments()).string(step.status()).string(step.result()).string(step.error())
            .string(step.idempotencyKey()).number(step.functionAttempt()).number(step.startedAt())
            .number(step.completedAt()).string(step.childTaskId());
        return out.bytes();
    }

    static StepRow step(byte[] bytes) {
        Reader in = new Reader(bytes);
        return new StepRow(in.required(), (int) in.number(), in.required(), in.required(), in.required(), in.required(),
                in.string(), in.string(), in.required(), (int) in.number(), in.number(), in.number(), in.string());
    }

    static byte[] attempt(AttemptRow attempt) {
        Writer out = new Writer(64 + length(attempt.error()));
        out.string(attempt.taskId()).number(attempt.position()).string(attempt.name())
            .number(attempt.functionAttempt()).number(attempt.number()).number(attempt.startedAt())
            .number(attempt.endedAt()).string(attempt.outcome()).string(attempt.error()).string(attempt.decision())
            .nullable(attempt.backoffMillis());
        return out.bytes();
    }

    static AttemptRow attempt(byte[] bytes) {
        Reader in = new Reader(bytes);
        return new AttemptRow(in.required(), (int) in.number(), in.required(), (int) in.number(), (int) in.number(),
                in.number(), in.number(), in.required(), in.string(), in.required(), in.nullable());
    }

    static byte[] event(Event event) {
        EventRow row = event.row();
        Writer out = new Writer(48 + length(row.payload()));
        out.number(row.id()).string(row.taskId()).string(row.name()).string(row.payload()).number(row.firedAt())
            .nullable((row.consumedPosition() != null) ? (long) row.consumedPosition() : null)
            .string(event.eventKey());
        return out.bytes();
    }

    static Event event(byte[] bytes) {
        Reader in = new Reader(bytes);
        long id = in.number();
        String taskId = in.required();
        String name = in.required();
        String payload = in.string();
        long firedAt = in.number();
        Long consumed = in.nullable();
        return new Event(new EventRow(id, taskId, name, payload, firedAt,
                (consumed != null) ? Math.toIntExact(consumed) : null), in.required());
    }

    static byte[] schedule(ScheduleRow row) {
        Writer out = new Writer(128);
        out.string(row.workload()).string(row.name()).string(row.function()).string(row.version()).string(row.cron())
            .string(row.zone()).string(row.missed()).nullable(row.nextTick()).nullable(row.lastTick())
            .string(row.lastTaskId()).number(row.updatedAt());
        return out.bytes();
    }

    static ScheduleRow schedule(byte[] bytes) {
        Reader in = new Reader(bytes);
        return new ScheduleRow(in.required(), in.required(), in.required(), in.required(), in.required(),
                in.required(), in.required(), in.nullable(), in.nullable(), in.string(), in.number());
    }

    /** A runtime instance's heartbeat: its workload, version, start and last sight. */
    record Runtime(String workload, String version, long startedAt, long seenAt) {
    }

    static byte[] runtime(Runtime runtime) {
        return new Writer(64).string(runtime.workload()).string(runtime.version()).number(runtime.startedAt())
            .number(runtime.seenAt()).bytes();
    }

    static Runtime runtime(byte[] bytes) {
        Reader in = new Reader(bytes);
        return new Runtime(in.required(), in.required(), in.number(), in.number());
    }

    static byte[] number(long value) {
        return new Writer(10).number(value).bytes();
    }

    static long number(byte[] bytes) {
        return new Reader(bytes).number();
    }

    private static int length(@Nullable String value) {
        return (value != null) ? value.length() : 0;
    }

    /** Writes fields into a growing array, after the format byte. */
    static final class Writer {

        private byte[] bytes;

        private int length;

        Writer(int capacity) {
            this.bytes = new byte[Math.max(16, capacity)];
            this.bytes[0] = FORMAT;
            this.length = 1;
        }

        Writer string(@Nullable String value) {
            if (value == null) {
                return varint(0);
            }
            byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
            varint(utf8.length + 1L);
            room(utf8.length);
            System.arraycopy(utf8, 0, this.bytes, this.length, utf8.length);
            this.length += utf8.length;
            return this;
        }

        Writer number(long value) {
            return varint((value << 1) ^ (value >> 63));
        }

        Writer bytes(byte @Nullable [] value) {
            if (value == null) {
                return varint(0);
            }
            varint(value.length + 1L);
            room(value.length);
            System.arraycopy(value, 0, this.bytes, this.length, value.length);
            this.length += value.length;
            return this;
        }

        Writer nullable(@Nullable Long value) {
            if (value == null) {
                return varint(0);
            }
            varint(1);
            return number(value);
        }

        private Writer varint(long value) {
            room(10);
            long rest = value;
            while ((rest & ~0x7FL) != 0) {
                this.bytes[this.length++] = (byte) ((rest & 0x7F) | 0x80);
                rest >>>= 7;
            }
            this.bytes[this.length++] = (byte) rest;
            return this;
        }

        private void room(int more) {
            if (this.length + more > this.bytes.length) {
                this.bytes = Arrays.copyOf(this.bytes, Math.max(this.bytes.length * 2, this.length + more));
            }
        }

        byte[] bytes() {
            return Arrays.copyOf(this.bytes, this.length);
        }
    }

    /** Reads the fields a {@link Writer} wrote, in the same order. */
    static final class Reader {

        private final byte[] bytes;

        private int at;

        Reader(byte[] bytes) {
            if (bytes.length == 0 || bytes[0] != FORMAT) {
                throw new IllegalStateException("skail local store: a row of format "
                        + ((bytes.length == 0) ? "none" : bytes[0]) + ", not " + FORMAT);
            }
            this.bytes = bytes;
            this.at = 1;
        }

        @Nullable String string() {
            long length = varint();
            if (length == 0) {
                return null;
            }
            int size = (int) (length - 1);
            String value = new String(this.bytes, this.at, size, StandardCharsets.UTF_8);
            this.at += size;
            return value;
        }

        String required() {
            String value = string();
            if (value == null) {
                throw new IllegalStateException("skail local store: a required field is missing");
            }
            return value;
        }

        byte @Nullable [] bytes() {
            long length = varint();
            if (length == 0) {
                return null;
            }
            byte[] value = Arrays.copyOfRange(this.bytes, this.at, this.at + (int) (length - 1));
            this.at += value.length;
            return value;
        }

        boolean atEnd() {
            return this.at == this.bytes.length;
        }

        long number() {
            long zigzag = varint();
            return (zigzag >>> 1) ^ -(zigzag & 1);
        }

        @Nullable Long nullable() {
            return (varint() == 0) ? null : number();
        }

        private long varint() {
            long value = 0;
            int shift = 0;
            while (true) {
                byte b = this.bytes[this.at++];
                value |= (long) (b & 0x7F) << shift;
                if ((b & 0x80) == 0) {
                    return value;
                }
                shift += 7;
            }
        }
    }
}
