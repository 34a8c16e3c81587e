package dev.skail.analyzer;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.skail.SkailAllowNondeterminism;
import dev.skail.SkailCommand;
import dev.skail.SkailFunction;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.asm.ClassReader;
import org.springframework.asm.ClassVisitor;
import org.springframework.asm.Handle;
import org.springframework.asm.Label;
import org.springframework.asm.MethodVisitor;
import org.springframework.asm.Opcodes;
import org.springframework.asm.Type;

/**
 * Reads the bytecode of a function, and of the methods of its own class it calls that are not steps (helpers and
 * lambdas), for the sources of non-determinism of skail's "Determinismo e replay": the clock, randomness, the
 * environment, I/O, sleeping and concurrency outside the runtime. It uses the ASM that Spring ships.
 * <p>
 * It cannot see into other beans (their code may be replaced), into calls made through interfaces it does not know,
 * nor into reflection; and it does not follow a chain of calls outside the function's class.
 */
public final class DeterminismAnalyzer {

    private static final Log logger = LogFactory.getLog(DeterminismAnalyzer.class);

    private final Map<Class<?>, ClassBody> classes = new HashMap<>();

    private int methodsRead;

    /** The findings in these functions. */
    public List<Finding> analyze(List<Method> functions) {
        List<Finding> findings = new ArrayList<>();
        for (Method function : functions) {
            SkailAllowNondeterminism allowed = function.getAnnotation(SkailAllowNondeterminism.class);
            if (allowed != null) {
                logger.info("skail analyzer: " + describe(function) + " is exempt: " + allowed.reason());
                continue;
            }
            ClassBody body = body(function.getDeclaringClass());
            if (body == null) {
                continue;
            }
            walk(describe(function), body, function.getName() + Type.getMethodDescriptor(function), new HashSet<>(),
                    findings, true);
        }
        return findings;
    }

    /** How many method bodies were read, for the start-up log. */
    public int methodsRead() {
        return this.methodsRead;
    }

    private void walk(String function, ClassBody body, String key, Set<String> visited, List<Finding> findings,
            boolean root) {
        if (!visited.add(body.type.getName() + "." + key)) {
            return;
        }
        List<Call> calls = body.methods.get(key);
        if (calls == null) {
            return;
        }
        this.methodsRead++;
        Method method = body.method(key);
        if (!root && method != null) {
            if (method.isAnnotationPresent(SkailCommand.class) || method.isAnnotationPresent(SkailFunction.class)) {
                return; // a step: its body runs once per recorded result, anything goes there
            }
            SkailAllowNondeterminism allowed = method.getAnnotation(SkailAllowNondeterminism.class);
            if (allowed != null) {
                logger.info("skail analyzer: " + describe(method) + " is exempt: " + allowed.reason());
                return;
            }
        }
        String where = body.type.getName() + "." + key.substring(0, key.indexOf('('));
        for (Call call : calls) {
            ClassBody target = declaringBody(ownBody(body, call.owner), call.name + call.descriptor);
            if (target != null) {
                walk(function, target, call.name + call.descriptor, visited, findings, false);
                continue;
            }
            Category category = Rules.ofCall(call.owner, call.name, call.descriptor);
            if (category != null) {
                findings.add(new Finding(function, where, body.source, call.line,
                        call.owner.replace('/', '.') + "." + call.name, category));
            }
        }
    }

    /** The body that declares the method, looking up from {@code body} through its user superclasses. */
    private @Nullable ClassBody declaringBody(@Nullable ClassBody body, String key) {
        for (ClassBody current = body; current != null;) {
            if (current.methods.containsKey(key)) {
                return current;
            }
            Class<?> parent = current.type.getSuperclass();
            current = (parent != null && parent != Object.class && !parent.getName().startsWith("java.")) ? body(parent)
                    : null;
        }
        return null;
    }

    /** The body of the class a call goes to, when it is the function's class or one of its superclasses. */
    private @Nullable ClassBody ownBody(ClassBody from, String owner) {
        for (Class<?> type = from.type; type != null && type != Object.class; type = type.getSuperclass()) {
            if (Type.getInternalName(type).equals(owner)) {
                return body(type);
            }
        }
        return null;
    }

    private @Nullable ClassBody body(Class<?> type) {
        if (this.classes.containsKey(type)) {
            return this.classes.get(type);
        }
        ClassBody body = read(type);
        this.classes.put(type, body);
        return body;
    }

    private static @Nullable ClassBody read(Class<?> type) {
        String resource = type.getName().replace('.', '/') + ".class";
        ClassLoader loader = (type.getClassLoader() != null) ? type.getClassLoader() : ClassLoader.getSystemClassLoader();
        try (InputStream in = loader.getResourceAsStream(resource)) {
            if (in == null) {
                logger.debug("skail analyzer: no bytecode found for " + type.getName());
                return null;
            }
            ClassBody body = new ClassBody(type);
            new ClassReader(in).accept(body.visitor(), ClassReader.SKIP_FRAMES);
            return body;
        }
        catch (IOException ex) {
            logger.debug("skail analyzer: cannot read " + type.getName(), ex);
            return null;
        }
    }

    private static String describe(Method method) {
        return method.getDeclaringClass().getName() + "." + method.getName();
    }

    private record Call(String owner, String name, String descriptor, int line) {
    }

    /** The calls made by each method of one class, with their lines. */
    private static final class ClassBody {

        final Class<?> type;

        final Map<String, List<Call>> methods = new HashMap<>();

        String source = "?";

        ClassBody(Class<?> type) {
            this.type = type;
        }

        @Nullable Method method(String key) {
            for (Method method : this.type.getDeclaredMethods()) {
                if ((method.getName() + Type.getMethodDescriptor(method)).equals(key)) {
                    return method;
                }
            }
            return null;
        }

        ClassVisitor visitor() {
            return new ClassVisitor(Opcodes.ASM9) {

                @Override
                public void visitSource(String source, String debug) {
                    if (source != null) {
                        ClassBody.this.source = source;
                    }
                }

                @Override
                public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                        String[] exceptions) {
                    List<Call> calls = new ArrayList<>();
                    ClassBody.this.methods.put(name + descriptor, calls);
                    return new MethodVisitor(Opcodes.ASM9) {

                        private int line = -1;

                        @Override
                        public void visitLineNumber(int line, Label start) {
                            this.line = line;
                        }

                        @Override
                        public void visitMethodInsn(int opcode, String owner, String name, String descriptor,
                                boolean isInterface) {
                            calls.add(new Call(owner, name, descriptor, this.line));
                        }

                        @Override
                        public void visitInvokeDynamicInsn(String name, String descriptor, Handle bootstrap,
                                Object... arguments) {
                            // a lambda or method reference: its target is a call made (or deferred) right here
                            for (Object argument : arguments) {
                                if (argument instanceof Handle handle) {
                                    calls.add(new Call(handle.getOwner(), handle.getName(), handle.getDesc(),
                                            this.line));
                                }
                            }
                        }
                    };
                }
            };
        }
    }
}
