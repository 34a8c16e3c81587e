package dev.skail.analyzer;

import java.util.Set;

import org.jspecify.annotations.Nullable;

/** Which calls are sources of non-determinism, by owner (internal name), method name and descriptor. */
final class Rules {

    private static final Set<String> IO_PACKAGES = Set.of("java/io/", "java/nio/file/", "java/nio/channels/",
            "java/net/", "java/sql/", "javax/sql/");

    private static final Set<String> IO_TYPES = Set.of("org/springframework/web/client/RestTemplate",
            "org/springframework/web/client/RestOperations", "org/springframework/web/client/RestClient",
            "org/springframework/web/reactive/function/client/WebClient",
            "org/springframework/jdbc/core/JdbcTemplate", "org/springframework/jdbc/core/JdbcOperations",
            "org/springframework/jdbc/core/namedparam/NamedParameterJdbcTemplate",
            "org/springframework/jdbc/core/simple/JdbcClient");

    /** Messaging and persistence clients: every call is I/O. */
    private static final Set<String> IO_CLIENTS = Set.of("jakarta/persistence/EntityManager",
            "org/springframework/kafka/core/KafkaTemplate", "org/springframework/kafka/core/KafkaOperations",
            "org/springframework/jms/core/JmsTemplate", "org/springframework/jms/core/JmsOperations",
            "org/springframework/amqp/rabbit/core/RabbitTemplate", "org/springframework/amqp/core/AmqpTemplate",
            "org/springframework/data/redis/core/RedisTemplate", "org/springframework/data/mongodb/core/MongoTemplate");

    /** Pure types of the I/O packages: building them does no I/O. */
    private static final Set<String> PURE_IO_TYPES = Set.of("java/net/URI", "java/net/URLEncoder", "java/net/URLDecoder",
            "java/io/PrintStream", "java/io/StringWriter", "java/io/StringReader", "java/io/PrintWriter",
            "java/io/ByteArrayOutputStream", "java/io/ByteArrayInputStream", "java/io/Serializable",
            "java/nio/file/Path", "java/nio/file/Paths", "java/sql/Timestamp", "java/sql/Date", "java/sql/Time");

    private Rules() {
    }

    /** The category of a method call, or {@code null} when it is not a known source. */
    static @Nullable Category ofCall(String owner, String name, String descriptor) {
        switch (owner) {
            case "java/lang/System":
                if (name.equals("currentTimeMillis") || name.equals("nanoTime")) {
                    return Category.CLOCK;
                }
                if (name.equals("getenv") || name.equals("getProperty") || name.equals("getProperties")) {
                    return Category.ENVIRONMENT;
                }
                return null;
            case "java/lang/Integer", "java/lang/Long", "java/lang/Boolean":
                return (name.equals("getInteger") || name.equals("getLong") || name.equals("getBoolean"))
                        ? Category.ENVIRONMENT : null;
            case "java/lang/Math", "java/lang/StrictMath":
                return name.equals("random") ? Category.RANDOM : null;
            case "java/util/UUID":
                return name.equals("randomUUID") ? Category.RANDOM : null;
            case "java/util/concurrent/ThreadLocalRandom":
                return Category.RANDOM;
            case "java/lang/Thread":
                if (name.equals("sleep")) {
                    return Category.SLEEP;
                }
                return (name.equals("start") || name.equals("<init>") || name.equals("startVirtualThread")
                        || name.equals("ofVirtual") || name.equals("ofPlatform")) ? Category.CONCURRENCY : null;
            case "java/util/concurrent/TimeUnit":
                return name.equals("sleep") ? Category.SLEEP : null;
            case "java/util/Calendar":
                return name.equals("getInstance") ? Category.CLOCK : null;
            case "java/util/Date":
                return (name.equals("<init>") && descriptor.equals("()V")) ? Category.CLOCK : null;
            case "java/util/Random", "java/security/SecureRandom", "java/util/SplittableRandom",
                    "java/util/random/RandomGenerator", "java/util/random/RandomGeneratorFactory":
                return Category.RANDOM;
            case "java/util/Collections":
                return name.equals("shuffle") && descriptor.equals("(Ljava/util/List;)V") ? Category.RANDOM : null;
            case "java/time/Clock":
                return (name.equals("instant") || name.equals("millis") || name.startsWith("system"))
                        ? Category.CLOCK : null;
            case "java/util/Collection", "java/util/List", "java/util/Set", "java/util/ArrayList":
                return name.equals("parallelStream") ? Category.CONCURRENCY : null;
            case "java/util/stream/Stream", "java/util/stream/BaseStream", "java/util/stream/IntStream",
                    "java/util/stream/LongStream", "java/util/stream/DoubleStream":
                return name.equals("parallel") ? Category.CONCURRENCY : null;
            case "org/springframework/core/env/Environment", "org/springframework/core/env/PropertyResolver":
                return name.startsWith("getProperty") || name.startsWith("getRequiredProperty")
                        ? Category.ENVIRONMENT : null;
            default:
                break;
        }
        if (owner.startsWith("java/time/") && name.equals("now")) {
            return Category.CLOCK;
        }
        if (owner.startsWith("java/util/concurrent/")
                && (owner.contains("Executor") || owner.equals("java/util/concurrent/CompletableFuture")
                        || owner.equals("java/util/concurrent/ForkJoinPool")
                        || owner.equals("java/util/concurrent/ForkJoinTask"))) {
            return Category.CONCURRENCY;
        }
        if (IO_TYPES.contains(owner) || IO_CLIENTS.contains(owner) || isRepository(owner)) {
            return Category.IO;
        }
        if (!PURE_IO_TYPES.contains(owner) && IO_PACKAGES.stream().anyMatch(owner::startsWith)
                && !isExceptionType(owner)) {
            return Category.IO;
        }
        return null;
    }

    /** A Spring Data repository of the application: its methods query the database. */
    private static boolean isRepository(String owner) {
        if (owner.startsWith("java/") || owner.startsWith("jakarta/")) {
            return false;
        }
        try {
            Class<?> repository = Class.forName("org.springframework.data.repository.Repository", false,
                    Rules.class.getClassLoader());
            Class<?> type = Class.forName(owner.replace('/', '.'), false, Thread.currentThread().getContextClassLoader());
            return repository.isAssignableFrom(type);
        }
        catch (ClassNotFoundException | LinkageError ex) {
            return false;
        }
    }

    private static boolean isExceptionType(String owner) {
        return owner.endsWith("Exception") || owner.endsWith("Error");
    }
}
