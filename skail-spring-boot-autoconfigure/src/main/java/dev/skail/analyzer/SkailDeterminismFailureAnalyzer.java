package dev.skail.analyzer;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports the determinism analyzer's findings: class, method, source line, the offending call and the fix. */
class SkailDeterminismFailureAnalyzer extends AbstractFailureAnalyzer<SkailDeterminismException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, SkailDeterminismException cause) {
        StringBuilder description = new StringBuilder("skail's determinism analyzer found ")
            .append(cause.findings().size())
            .append(" source(s) of non-determinism in functions, which are replayed from their first line:\n\n");
        StringBuilder action = new StringBuilder("Fix each call, or exempt a method that is safe with "
                + "@SkailAllowNondeterminism(reason = \"...\"), or set skail.analyzer.mode=warn:\n\n");
        for (Finding finding : cause.findings()) {
            description.append("  ").append(finding.describe()).append('\n');
            action.append("  ").append(finding.where()).append(" (").append(finding.source()).append(':')
                .append(finding.line()).append("), ").append(finding.call()).append(": ")
                .append(finding.category().fix()).append('\n');
        }
        return new FailureAnalysis(description.toString(), action.toString(), cause);
    }
}
