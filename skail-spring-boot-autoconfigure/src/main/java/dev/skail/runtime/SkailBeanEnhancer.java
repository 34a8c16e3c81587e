package dev.skail.runtime;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.skail.SkailCommand;
import dev.skail.SkailFunction;
import dev.skail.SkailTag;
import dev.skail.SkailJsonCustomizer;
import dev.skail.SkailSchedule;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.skail.analyzer.AnalyzerMode;
import dev.skail.analyzer.DeterminismAnalyzer;
import dev.skail.analyzer.Finding;
import dev.skail.analyzer.SkailDeterminismException;

import org.springframework.aot.AotDetector;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.AbstractBeanDefinition;
import org.springframework.cglib.core.ClassLoaderAwareGeneratorStrategy;
import org.springframework.cglib.core.SpringNamingPolicy;
import org.springframework.cglib.proxy.Callback;
import org.springframework.cglib.proxy.CallbackFilter;
import org.springframework.cglib.proxy.Enhancer;
import org.springframework.cglib.proxy.NoOp;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;
import org.springframework.scheduling.support.CronExpression;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Finds the beans whose classes declare {@link SkailFunction} or {@link SkailCommand} methods, checks every
 * declaration, and swaps each bean's class, before it is instantiated, for a generated subclass whose annotated
 * methods go through the runtime. This is how Spring's own {@code @Configuration} classes intercept calls a bean
 * makes to itself; proxies the application adds (e.g. {@code @Transactional}) still wrap the bean as usual.
 * <p>
 * When the application is AOT-processed, all of this happens at build time, and the generated registration of each
 * such bean sets its subclass (see {@link SkailBeanRegistrationAotProcessor}). In AOT mode this post-processor then
 * reads only those beans, to build the catalog (functions, schedules) from the environment at start-up.
 */
public final class SkailBeanEnhancer implements BeanFactoryPostProcessor, Ordered, EnvironmentAware {

    private static final Log logger = LogFactory.getLog(SkailBeanEnhancer.class);

    private static final CallbackFilter FILTER = new AnnotatedMethodFilter();

    /** The subclasses {@link #enhance(Class)} returned, held weakly: classes of a closed context's loader can go. */
    private static final java.util.Set<Class<?>> ENHANCED = java.util.Collections
        .synchronizedSet(java.util.Collections.newSetFromMap(new java.util.WeakHashMap<>()));

    /** The attribute with which Spring marks the @Configuration classes it subclasses itself ("full"). */
    private static final String CONFIGURATION_CLASS =
            "org.springframework.context.annotation.ConfigurationClassPostProcessor.configurationClass";

    /** Where skail's own classes are loaded from: its beans' methods are not read (see {@link #isLibraryClass}). */
    private static final @Nullable String OWN_CODE = codeSource(SkailBeanEnhancer.class);

    /** The zone of a schedule that names none: read "UTC" (its id), not "Z". */
    private static final ZoneId UTC = ZoneId.of("UTC");

    private final SkailJson json;

    private volatile SkailCatalog catalog = new SkailCatalog(Map.of());

    private static final java.util.Set<Class<?>> CATCH_ALL = java.util.Set.of(Throwable.class, Exception.class,
            RuntimeException.class, Error.class);

    private final List<StepMethod> steps = new ArrayList<>();

    private boolean jsonCheckDeferred;

    private AnalyzerMode analyzerMode = AnalyzerMode.FAIL;

    private @Nullable Environment environment;

    public SkailBeanEnhancer(SkailJson json) {
        this.json = json;
    }

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
        this.analyzerMode = Binder.get(environment).bind("skail.analyzer.mode", AnalyzerMode.class)
            .orElse(AnalyzerMode.FAIL);
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE - 10;
    }

    /** The functions found; complete once the bean factory has been post-processed. */
    public SkailCatalog catalog() {
        return this.catalog;
    }

    @Override
    public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
        List<SkailDeclarationException.Problem> problems = new ArrayList<>();
        Map<String, FunctionDefinition> functions = new LinkedHashMap<>();
        Map<String, ScheduleDefinition> schedules = new LinkedHashMap<>();
        // an application's own SkailJson (more modules, other settings) is the one to check types with: the runtime
        // does it once that bean exists
        // and so is the default one when SkailJsonCustomizer beans change it
        this.jsonCheckDeferred = java.util.Arrays.stream(beanFactory.getBeanNamesForType(SkailJson.class, true, false))
            .anyMatch((name) -> !name.equals("skailJson"))
                || beanFactory.getBeanNamesForType(SkailJsonCustomizer.class, true, false).length > 0;
        this.steps.clear();
        ClassLoader classLoader = beanFactory.getBeanClassLoader();
        // AOT mode: every bean class was read and checked when the application was AOT-processed, and the generated
        // registrations of skail's beans set their subclasses; reading the others again would only cost start-up time
        boolean aot = AotDetector.useGeneratedArtifacts();
        for (String beanName : beanFactory.getBeanDefinitionNames()) {
            BeanDefinition definition = beanFactory.getBeanDefinition(beanName);
            Class<?> beanClass = beanClass(beanFactory, beanName, definition, classLoader);
            if (beanClass == null || (aot && !isEnhanced(beanClass))) {
                continue;
            }
            Class<?> userClass = ClassUtils.getUserClass(beanClass);
            if (isLibraryClass(userClass)) {
                continue;
            }
            Method[] methods = ReflectionUtils.getUniqueDeclaredMethods(userClass, ReflectionUtils.USER_DECLARED_METHODS);
            List<StepMethod> steps = stepMethods(methods);
            schedules(methods, schedules, problems);
            if (steps.isEmpty()) {
                continue;
            }
            int before = problems.size();
            // the bean class is skail's subclass already: the registration code that Spring AOT generated (see
            // SkailBeanRegistrationAotProcessor) set it, and its instance supplier creates it
            boolean enhanced = isEnhanced(beanClass);
            if (!enhanced && (beanClass.getName().contains(ClassUtils.CGLIB_CLASS_SEPARATOR)
                    || "full".equals(definition.getAttribute(CONFIGURATION_CLASS)))) {
                problems.add(new SkailDeclarationException.Problem(ClassUtils.getUserClass(beanClass).getName(),
                        "is a @Configuration class that Spring subclasses itself (it has @Bean methods), so skail cannot "
                                + "intercept it",
                        "move its @SkailFunction and @SkailCommand methods to a @Service or @Component"));
                continue;
            }
            if (definition.getFactoryMethodName() != null || !(definition instanceof AbstractBeanDefinition bean)
                    || (bean.getInstanceSupplier() != null && !enhanced)) {
                problems.add(new SkailDeclarationException.Problem(beanClass.getName() + " (bean '" + beanName + "')",
                        "is created by a @Bean factory method or a supplier, so skail cannot intercept the calls "
                                + "it makes to itself",
                        "declare the class as a component (@Service, @Component) or register it with @Import"));
                continue;
            }
            if (Modifier.isFinal(beanClass.getModifiers())) {
                problems.add(new SkailDeclarationException.Problem(beanClass.getName(), "is final",
                        "remove 'final' from the class so skail can intercept its functions and commands"));
            }
            for (StepMethod step : steps) {
                this.steps.add(step);
                validate(step, problems);
                if (step.function()) {
                    FunctionDefinition existing = functions.putIfAbsent(step.name(),
                            new FunctionDefinition(step, beanName));
                    if (existing != null) {
                        problems.add(new SkailDeclarationException.Problem(step.describe(),
                                "has the function name '" + step.name() + "', already taken by "
                                        + existing.step().describe(),
                                "give one of them another name with @SkailFunction(name = \"...\")"));
                    }
                }
            }
            if (problems.size() == before && !enhanced) {
                ((AbstractBeanDefinition) definition).setBeanClass(enhance(beanClass));
                if (logger.isDebugEnabled()) {
                    logger.debug("skail intercepts " + steps.size() + " method(s) of bean '" + beanName + "'");
                }
            }
        }
        if (!problems.isEmpty()) {
            throw new SkailDeclarationException(problems);
        }
        this.catalog = new SkailCatalog(functions, schedules);
        analyzeDeterminism();
    }

    private void analyzeDeterminism() {
        if (this.analyzerMode == AnalyzerMode.OFF || this.catalog.functions().isEmpty()) {
            return;
        }
        if (AotDetector.useGeneratedArtifacts()) {
            // it ran when the application was AOT-processed, on the same classes (a finding failed the build in mode
            // fail); a native image has no class files left to read
            logger.debug("skail determinism analyzer: skipped at start-up in AOT mode, it ran during AOT processing");
            return;
        }
        long start = System.nanoTime();
        DeterminismAnalyzer analyzer = new DeterminismAnalyzer();
        List<Finding> findings = analyzer.analyze(
                this.catalog.functions().stream().map((function) -> function.step().method()).toList());
        logger.info("skail determinism analyzer checked " + this.catalog.functions().size() + " function(s) ("
                + analyzer.methodsRead() + " method bodies) in " + (System.nanoTime() - start) / 1_000_000 + " ms: "
                + findings.size() + " finding(s)");
        if (findings.isEmpty()) {
            return;
        }
        if (this.analyzerMode == AnalyzerMode.FAIL) {
            throw new SkailDeterminismException(findings);
        }
        for (Finding finding : findings) {
            logger.warn("skail determinism analyzer: " + finding.describe() + "; fix: " + finding.category().fix());
        }
    }

    /**
     * Reads and checks the {@link SkailSchedule} declarations of a bean class: each must be on a function of no
     * parameters, with a cron and zone that resolve (placeholders, from the environment) and parse.
     */
    private void schedules(Method[] methods, Map<String, ScheduleDefinition> schedules,
            List<SkailDeclarationException.Problem> problems) {
        for (Method method : methods) {
            SkailSchedule schedule = method.getAnnotation(SkailSchedule.class);
            if (schedule == null) {
                continue;
            }
            String where = method.getDeclaringClass().getName() + "." + method.getName();
            StepMethod step = StepMethod.of(method);
            if (step == null || !step.function()) {
                problems.add(new SkailDeclarationException.Problem(where,
                        "has @SkailSchedule but is not a @SkailFunction: a schedule starts executions of a function",
                        "annotate the method with @SkailFunction too (a command runs inside a function: schedule a "
                                + "function that calls it)"));
                continue;
            }
            int before = problems.size();
            if (method.getParameterCount() > 0) {
                problems.add(new SkailDeclarationException.Problem(where, "has @SkailSchedule and "
                        + method.getParameterCount() + " parameter(s): a schedule starts the function with none",
                        "remove the parameters (read what the function needs in a command), or trigger the "
                                + "function yourself with its arguments"));
            }
            if (!SkailRuntime.TASK_ID.matcher(step.name() + ":2000-01-01T00:00:00Z").matches()) {
                problems.add(new SkailDeclarationException.Problem(where, "has @SkailSchedule and the name '"
                        + step.name() + "', which cannot start the id of its executions ({function}:{tick})",
                        "name the function with at most 107 letters, digits and '.', '_', '-', ':', '@' "
                                + "(@SkailFunction(name = \"...\"))"));
            }
            String cron = resolve(schedule.cron(), "cron", where, problems);
            String zoneText = resolve(schedule.zone(), "zone", where, problems);
            if (cron == null || zoneText == null) {
                continue;
            }
            ZoneId zone = UTC;
            if (!zoneText.isEmpty()) {
                try {
                    zone = ZoneId.of(zoneText);
                }
                catch (java.time.DateTimeException ex) {
                    problems.add(new SkailDeclarationException.Problem(where, "has @SkailSchedule with the zone '"
                            + zoneText + "', which is not a time zone: " + ex.getMessage(),
                            "use a java.time.ZoneId such as \"UTC\" or \"America/Sao_Paulo\", or leave zone empty "
                                    + "for UTC"));
                    continue;
                }
            }
            CronExpression expression = null;
            if (cron.isEmpty()) {
                problems.add(new SkailDeclarationException.Problem(where, "has @SkailSchedule with an empty cron",
                        "give a cron of six fields, e.g. \"0 0 6 * * *\" for 06:00 every day, or \"-\" to "
                                + "disable the schedule"));
                continue;
            }
            if (!SkailSchedule.DISABLED.equals(cron)) {
                try {
                    expression = CronExpression.parse(cron);
                }
                catch (IllegalArgumentException ex) {
                    problems.add(new SkailDeclarationException.Problem(where, "has @SkailSchedule with the cron '"
                            + cron + "', which is not valid: " + ex.getMessage(),
                            "give a cron of six fields (second, minute, hour, day of month, month, day of week), "
                                    + "e.g. \"0 0 6 * * *\" for 06:00 every day, or \"-\" to disable the schedule"));
                    continue;
                }
                if (expression.next(java.time.ZonedDateTime.now(zone)) == null) {
                    problems.add(new SkailDeclarationException.Problem(where, "has @SkailSchedule with the cron '"
                            + cron + "', which never fires (no date matches it)",
                            "give a cron that matches a date, or \"-\" to disable the schedule"));
                    continue;
                }
            }
            if (cron.length() > 200 || zone.getId().length() > 100) {
                problems.add(new SkailDeclarationException.Problem(where, "has @SkailSchedule with a cron longer "
                        + "than 200 characters or a zone longer than 100", "shorten them"));
                continue;
            }
            if (problems.size() == before) {
                schedules.put(step.name(), new ScheduleDefinition(step.name(), cron, expression, zone,
                        schedule.missed()));
            }
        }
    }

    /** A schedule's attribute with its placeholders resolved, trimmed; {@code null} (and a problem) if it cannot be. */
    private @Nullable String resolve(String value, String attribute, String where,
            List<SkailDeclarationException.Problem> problems) {
        if (this.environment == null || !value.contains("${")) {
            return value.trim();
        }
        try {
            return this.environment.resolveRequiredPlaceholders(value).trim();
        }
        catch (IllegalArgumentException ex) {
            problems.add(new SkailDeclarationException.Problem(where, "has @SkailSchedule with the " + attribute + " '"
                    + value + "', whose placeholder cannot be resolved: " + ex.getMessage(),
                    "define the property, or give the placeholder a default: ${name:value}"));
            return null;
        }
    }

    private static @Nullable Class<?> beanClass(ConfigurableListableBeanFactory beanFactory, String beanName,
            BeanDefinition definition, @Nullable ClassLoader classLoader) {
        if (definition.getFactoryMethodName() != null) {
            Class<?> type = beanFactory.getType(beanName, false);
            return (type != null) ? ClassUtils.getUserClass(type) : null;
        }
        String className = definition.getBeanClassName();
        if (className == null) {
            return null;
        }
        try {
            return ClassUtils.forName(className, classLoader);
        }
        catch (ClassNotFoundException | LinkageError ex) {
            return null;
        }
    }

    /**
     * Whether a bean class belongs to the JDK, Jakarta EE, Spring or skail's runtime itself: its methods are not read
     * (an application has tens to hundreds of such beans, and reading every method of each is start-up time).
     */
    static boolean isLibraryClass(Class<?> beanClass) {
        String name = beanClass.getName();
        if (name.startsWith("java.") || name.startsWith("javax.") || name.startsWith("jakarta.")
                || name.startsWith("org.springframework.")) {
            return true;
        }
        // skail's own beans (runtime, worker, controllers...) come from where this class does; an application's
        // classes in dev.skail packages (its tests') do not
        return name.startsWith("dev.skail.") && OWN_CODE != null
                && OWN_CODE.equals(codeSource(beanClass));
    }

    private static @Nullable String codeSource(Class<?> type) {
        java.security.CodeSource source = type.getProtectionDomain().getCodeSource();
        return (source != null && source.getLocation() != null) ? source.getLocation().toString() : null;
    }

    static List<StepMethod> stepMethods(Class<?> beanClass) {
        return stepMethods(ReflectionUtils.getUniqueDeclaredMethods(beanClass, ReflectionUtils.USER_DECLARED_METHODS));
    }

    private static List<StepMethod> stepMethods(Method[] methods) {
        List<StepMethod> steps = new ArrayList<>();
        for (Method method : methods) {
            StepMethod step = StepMethod.of(method);
            if (step != null) {
                steps.add(step);
            }
        }
        return steps;
    }

    private void validate(StepMethod step, List<SkailDeclarationException.Problem> problems) {
        Method method = step.method();
        String where = step.describe();
        String kind = step.function() ? "@SkailFunction" : "@SkailCommand";
        int modifiers = method.getModifiers();
        if (method.isAnnotationPresent(SkailFunction.class) && method.isAnnotationPresent(SkailCommand.class)) {
            problems.add(new SkailDeclarationException.Problem(where, "is both a function and a command",
                    "keep one of @SkailFunction and @SkailCommand"));
        }
        if (Modifier.isPrivate(modifiers)) {
            problems.add(new SkailDeclarationException.Problem(where, kind + " method is private",
                    "make it public (or protected, or package-private) so skail can intercept it"));
        }
        if (Modifier.isStatic(modifiers)) {
            problems.add(new SkailDeclarationException.Problem(where, kind + " method is static",
                    "make it an instance method of the bean"));
        }
        if (Modifier.isFinal(modifiers)) {
            problems.add(new SkailDeclarationException.Problem(where, kind + " method is final",
                    "remove 'final' so skail can intercept it"));
        }
        String backoffProblem = step.backoff().problem();
        if (backoffProblem != null) {
            problems.add(new SkailDeclarationException.Problem(where, backoffProblem,
                    "use durations like \"500ms\" or \"2s\", a multiplier of 1 or more, a jitter from 0 to 0.99"));
        }
        if (step.retryCount() < 0) {
            problems.add(new SkailDeclarationException.Problem(where, "retryCount is negative",
                    "use 0 (no redelivery) or more"));
        }
        tagProblems(step, problems);
        if (!this.jsonCheckDeferred) {
            jsonProblems(step, this.json, problems);
        }
    }

    /** {@link SkailTag} on a function's parameter of a simple type, with a valid key; never on a command's. */
    private static void tagProblems(StepMethod step, List<SkailDeclarationException.Problem> problems) {
        java.lang.reflect.Parameter[] parameters = step.method().getParameters();
        for (int i = 0; i < parameters.length; i++) {
            SkailTag tag = parameters[i].getAnnotation(SkailTag.class);
            if (tag == null) {
                continue;
            }
            String where = step.describe();
            if (!step.function()) {
                problems.add(new SkailDeclarationException.Problem(where, "parameter " + i + " of a @SkailCommand has "
                        + "@SkailTag, but only a function's parameters tag its executions",
                        "move @SkailTag to the parameter of the @SkailFunction, or call "
                                + "SkailContext.current().tag(key, value) in the command"));
                continue;
            }
            String badKey = Tags.whyNotKey(tag.value());
            if (badKey != null) {
                problems.add(new SkailDeclarationException.Problem(where, "parameter " + i + " has @SkailTag(\""
                        + tag.value() + "\"): " + badKey, "name the tag like \"pedido\" or \"cliente.id\""));
            }
            if (!Tags.isSimple(parameters[i].getType())) {
                problems.add(new SkailDeclarationException.Problem(where, "parameter " + i + " of type "
                        + parameters[i].getParameterizedType().getTypeName() + " has @SkailTag, but a tag is the text "
                        + "of a simple value",
                        "put @SkailTag on a String, UUID, number, boolean, char or enum parameter, or call "
                                + "SkailContext.current().tag(\"" + tag.value() + "\", value) in the function with "
                                + "the text to find it by (e.g. the id of the record)"));
            }
        }
    }

    /** Whether the application has its own {@link SkailJson}: then the types are checked with it, by the runtime. */
    public boolean isJsonCheckDeferred() {
        return this.jsonCheckDeferred;
    }

    /**
     * Checks that Jackson, configured as {@code json}, can record the parameters and results of every function and
     * command found.
     * @throws SkailDeclarationException listing every type it cannot
     */
    public void checkJson(SkailJson json) {
        List<SkailDeclarationException.Problem> problems = new ArrayList<>();
        for (StepMethod step : this.steps) {
            jsonProblems(step, json, problems);
        }
        if (!problems.isEmpty()) {
            throw new SkailDeclarationException(problems);
        }
    }

    private static void jsonProblems(StepMethod step, SkailJson json, List<SkailDeclarationException.Problem> problems) {
        Method method = step.method();
        String where = step.describe();
        Type[] parameters = method.getGenericParameterTypes();
        for (int i = 0; i < parameters.length; i++) {
            String why = step.function() ? json.whyNotReadable(parameters[i])
                    : json.whyNotWritable(parameters[i]);
            if (why != null) {
                problems.add(new SkailDeclarationException.Problem(where,
                        "parameter " + i + " of type " + parameters[i].getTypeName()
                                + " cannot be recorded as JSON: " + why,
                        "use a type Jackson can " + (step.function() ? "read" : "write")
                                + " (a record, a class with a constructor Jackson can use, a collection of those)"));
            }
        }
        Type returned = method.getGenericReturnType();
        String why = json.whyNotWritable(returned);
        if (why == null && !step.function()) {
            why = json.whyNotReadable(returned);
        }
        if (why != null) {
            problems.add(new SkailDeclarationException.Problem(where,
                    "return type " + returned.getTypeName() + " cannot be recorded as JSON: " + why,
                    "return a type Jackson can write and read back (a record, a class with a constructor Jackson "
                            + "can use, a collection of those)"));
        }
    }

    /**
     * Whether this exception class is one that a function or command declares in {@code throws}, or a subclass of
     * one (except of the catch-all {@code Throwable}, {@code Exception}, {@code RuntimeException} and {@code Error},
     * which admit only themselves): such classes are rebuilt on replay whatever their package.
     */
    public boolean isDeclaredException(Class<?> type) {
        for (StepMethod step : this.steps) {
            for (Class<?> declared : step.method().getExceptionTypes()) {
                if (declared == type || (declared.isAssignableFrom(type) && !CATCH_ALL.contains(declared))) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Checks that every exception type a function or command declares in {@code throws} can be rebuilt on replay.
     * @throws SkailDeclarationException listing every type that cannot
     */
    public void checkExceptions(ExceptionCodec exceptions) {
        List<SkailDeclarationException.Problem> problems = new ArrayList<>();
        for (StepMethod step : this.steps) {
            for (Class<?> declared : step.method().getExceptionTypes()) {
                @SuppressWarnings("unchecked")
                String why = exceptions.whyNotRebuildable((Class<? extends Throwable>) declared);
                if (why != null) {
                    problems.add(new SkailDeclarationException.Problem(step.describe(), "declares "
                            + declared.getName() + ", which skail cannot rebuild on replay: " + why,
                            "make its fields Serializable values (or transient), or declare another exception; a "
                                    + "class of another library's package can be allowed with "
                                    + "skail.replay.exception-packages"));
                }
            }
        }
        if (!problems.isEmpty()) {
            throw new SkailDeclarationException(problems);
        }
    }

    /**
     * The generated subclass of a class with skail annotations, whose annotated methods go through the runtime.
     * <p>
     * On the JVM the subclass is generated when the application starts. When the application is AOT-processed
     * ({@code spring-boot:process-aot}), it is generated then, and Spring writes its bytes with the other generated
     * classes; the bean registration code generated for the bean calls this method, which, in AOT mode
     * ({@code -Dspring.aot.enabled=true}, or a native image), loads that class instead of generating one. Either way
     * the subclass is returned with skail's callbacks registered, before any instance of it is created.
     * @param beanClass the class that declares the functions and commands
     * @return its subclass
     */
    public static Class<?> enhance(Class<?> beanClass) {
        Enhancer enhancer = new Enhancer();
        enhancer.setSuperclass(beanClass);
        enhancer.setUseFactory(false);
        enhancer.setNamingPolicy(SpringNamingPolicy.INSTANCE);
        // only the AOT-processed application loads the subclass written at build time: otherwise a class of the same
        // name left by an earlier AOT processing (in target/classes) would be loaded although the bean class changed
        enhancer.setAttemptLoad(AotDetector.useGeneratedArtifacts());
        enhancer.setStrategy(new ClassLoaderAwareGeneratorStrategy(beanClass.getClassLoader()));
        enhancer.setCallbackFilter(FILTER);
        enhancer.setCallbackTypes(new Class<?>[] { StepInterceptor.class, NoOp.class });
        Class<?> subclass = enhancer.createClass();
        Enhancer.registerStaticCallbacks(subclass, new Callback[] { StepInterceptor.INSTANCE, NoOp.INSTANCE });
        ENHANCED.add(subclass);
        return subclass;
    }

    /** Whether this class is a subclass that {@link #enhance(Class)} returned. */
    static boolean isEnhanced(Class<?> type) {
        return ENHANCED.contains(type);
    }

    /** Routes annotated methods to the {@link StepInterceptor}, everything else straight to the bean's code. */
    private static final class AnnotatedMethodFilter implements CallbackFilter {

        @Override
        public int accept(Method method) {
            return (StepMethod.of(method) != null) ? 0 : 1;
        }

        @Override
        public boolean equals(@Nullable Object other) {
            return other instanceof AnnotatedMethodFilter;
        }

        @Override
        public int hashCode() {
            return AnnotatedMethodFilter.class.hashCode();
        }
    }
}
