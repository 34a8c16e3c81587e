package dev.skail.analyzer;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import dev.skail.SkailFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;

/** The analyzer finds each source of non-determinism of seed 001's table at its line, and nothing in pure logic. */
class DeterminismAnalyzerTests {

    private static final Path SOURCE = Path.of("src/test/java/dev/skail/analyzer/AnalyzedFlows.java");

    static Stream<String> functionsWithAFinding() {
        return Stream.of("currentTimeMillis", "nanoTime", "instantNow", "localDateTimeNow", "newDate", "injectedClock",
                "randomUuid", "random", "threadLocalRandom", "mathRandom", "secureRandom", "getenv", "getProperty",
                "readFile", "restTemplate", "restClient", "jdbcTemplate", "jdbc", "socket", "sleep", "thread",
                "executor", "completableFuture", "parallelStream", "throughAHelper", "throughALambda", "shuffle");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("functionsWithAFinding")
    void findsTheSourceWithItsCategoryAndLine(String function) throws IOException {
        List<Finding> findings = new DeterminismAnalyzer().analyze(List.of(method(function)));

        Map<Integer, String> expected = expectedFindings(function);
        assertThat(findings).as("findings of %s", function).isNotEmpty();
        assertThat(findings).allSatisfy((finding) -> {
            assertThat(finding.source()).isEqualTo("AnalyzedFlows.java");
            assertThat(expected).as("a finding at line %d (%s)", finding.line(), finding.call())
                .containsEntry(finding.line(), finding.category().name());
        });
        assertThat(findings).extracting(Finding::line).containsAll(expected.keySet());
        assertThat(findings).allSatisfy((finding) -> assertThat(finding.function())
            .isEqualTo(AnalyzedFlows.class.getName() + "." + function));
    }

    @Test
    void namesTheOffendingCallAndTheMethodThatMakesIt() {
        Finding finding = new DeterminismAnalyzer().analyze(List.of(method("throughAHelper"))).get(0);

        assertThat(finding.call()).isEqualTo("java.lang.System.currentTimeMillis");
        assertThat(finding.where()).isEqualTo(AnalyzedFlows.class.getName() + ".helper");
        assertThat(finding.category().fix()).contains("Skail.now()");
    }

    @Test
    void followsHelpersInheritedFromASuperclass() {
        List<Finding> findings = new DeterminismAnalyzer().analyze(List.of(method("throughAnInheritedHelper")));

        assertThat(findings).singleElement().satisfies((finding) -> {
            assertThat(finding.where()).isEqualTo(AnalyzedBase.class.getName() + ".stamp");
            assertThat(finding.source()).isEqualTo("AnalyzedBase.java");
            assertThat(finding.line()).isEqualTo(7);
            assertThat(finding.category()).isEqualTo(Category.CLOCK);
        });
    }

    @Test
    void findsNothingInPureLogicStepsPrimitivesOrExemptMethods() {
        List<Finding> findings = new DeterminismAnalyzer().analyze(List.of(method("pureLogic"),
                method("stepsAndPrimitives"), method("exempt"), method("exemptHelper"),
                method("throughAMethodReference"), method("pathsArePure")));

        assertThat(findings).isEmpty();
    }

    private static Method method(String name) {
        return Arrays.stream(AnalyzedFlows.class.getDeclaredMethods())
            .filter((method) -> method.getName().equals(name) && method.isAnnotationPresent(SkailFunction.class))
            .findFirst()
            .orElseThrow();
    }

    /** Lines marked "finding: CATEGORY" in the function (and the helper it calls), from the source file. */
    private static Map<Integer, String> expectedFindings(String function) throws IOException {
        List<String> lines = Files.readAllLines(SOURCE);
        List<String> names = new ArrayList<>(List.of(function));
        if (function.equals("throughAHelper")) {
            names.add("helper");
        }
        Map<Integer, String> expected = new TreeMap<>();
        for (String name : names) {
            int start = -1;
            for (int i = 0; i < lines.size(); i++) {
                if (lines.get(i).matches(".*\\s" + name + "\\(.*\\{\\s*$") && !lines.get(i).contains("return")) {
                    start = i;
                    break;
                }
            }
            assertThat(start).as("declaration of %s", name).isNotNegative();
            for (int i = start; i < lines.size() && !lines.get(i).equals("    }"); i++) {
                int marker = lines.get(i).indexOf("// finding: ");
                if (marker >= 0) {
                    expected.put(i + 1, lines.get(i).substring(marker + 12).trim());
                }
            }
        }
        return expected;
    }
}
