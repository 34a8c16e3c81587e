package dev.skail.docs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Java snippets of {@code docs/quickstart.md} compile as written, together, against the test class path (skail,
 * Spring, Spring MVC): every type they use is imported or defined in one of them. A snippet may declare several
 * top-level types, each {@code public} as it would be in a file of its own; they are compiled in one default package.
 */
class QuickstartSnippetsTests {

    private static final Pattern JAVA_BLOCK = Pattern.compile("(?ms)^```java\\s*\\n(.*?)^```\\s*$");

    private static final Pattern PUBLIC_TOP_LEVEL = Pattern
        .compile("(?m)^public\\s+(?=(final\\s+|abstract\\s+|sealed\\s+)*(class|interface|enum|record)\\b)");

    @TempDir
    Path sources;

    @Test
    void quickstartSnippetsCompile() throws IOException {
        Path quickstart = docs().resolve("quickstart.md");
        List<String> snippets = javaBlocks(Files.readString(quickstart, StandardCharsets.UTF_8));
        assertThat(snippets).as("java blocks of %s", quickstart).hasSizeGreaterThanOrEqualTo(2);

        List<Path> files = new ArrayList<>();
        for (int i = 0; i < snippets.size(); i++) {
            Path file = this.sources.resolve("QuickstartSnippet" + (i + 1) + ".java");
            // one file per snippet: a type the quickstart shows as public (a file of its own) is package-private here
            Files.writeString(file, PUBLIC_TOP_LEVEL.matcher(snippets.get(i)).replaceAll(""), StandardCharsets.UTF_8);
            files.add(file);
        }

        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        assertThat(compiler).as("a JDK's compiler").isNotNull();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        Path classes = Files.createDirectories(this.sources.resolve("classes"));
        boolean compiled;
        try (StandardJavaFileManager fileManager = compiler.getStandardFileManager(diagnostics, Locale.ROOT,
                StandardCharsets.UTF_8)) {
            List<String> options = List.of("--release", "17", "-parameters", "-proc:none", "-classpath", classPath(),
                    "-d", classes.toString());
            compiled = compiler
                .getTask(null, fileManager, diagnostics, options, null, fileManager.getJavaFileObjectsFromPaths(files))
                .call();
        }

        String errors = diagnostics.getDiagnostics()
            .stream()
            .filter((diagnostic) -> diagnostic.getKind() == Diagnostic.Kind.ERROR)
            .map((diagnostic) -> describe(diagnostic, snippets))
            .collect(Collectors.joining("\n"));
        assertThat(compiled).as("the Java blocks of %s compile:%n%s", quickstart, errors).isTrue();
    }

    private static List<String> javaBlocks(String markdown) {
        List<String> blocks = new ArrayList<>();
        Matcher matcher = JAVA_BLOCK.matcher(markdown);
        while (matcher.find()) {
            blocks.add(matcher.group(1));
        }
        return blocks;
    }

    private static String describe(Diagnostic<? extends JavaFileObject> diagnostic, List<String> snippets) {
        String source = (diagnostic.getSource() != null) ? Path.of(diagnostic.getSource().toUri()).getFileName().toString()
                : "?";
        String line = "";
        if (diagnostic.getSource() != null && diagnostic.getLineNumber() > 0) {
            int snippet = Integer.parseInt(source.replaceAll("\\D", "")) - 1;
            String[] lines = snippets.get(snippet).split("\n", -1);
            line = " | " + lines[(int) diagnostic.getLineNumber() - 1].strip();
        }
        return "java block " + source.replaceAll("\\D", "") + ", line " + diagnostic.getLineNumber() + ": "
                + diagnostic.getMessage(Locale.ROOT) + line;
    }

    /** Surefire runs the tests from a manifest-only jar: the test class path is in its own property. */
    private static String classPath() {
        return System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    }

    private static Path docs() {
        Path dir = Path.of(System.getProperty("basedir", ".")).toAbsolutePath();
        while (dir != null && !Files.isDirectory(dir.resolve("docs"))) {
            dir = dir.getParent();
        }
        assertThat(dir).as("a docs directory above the module").isNotNull();
        return dir.resolve("docs");
    }
}
