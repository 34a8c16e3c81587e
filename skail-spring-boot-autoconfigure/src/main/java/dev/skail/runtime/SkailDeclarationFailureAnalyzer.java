package dev.skail.runtime;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports invalid skail declarations as a Spring Boot failure analysis: every problem, its method and its fix. */
class SkailDeclarationFailureAnalyzer extends AbstractFailureAnalyzer<SkailDeclarationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, SkailDeclarationException cause) {
        StringBuilder description = new StringBuilder("skail found ").append(cause.problems().size())
            .append(" invalid declaration(s):\n\n");
        StringBuilder action = new StringBuilder("Fix each declaration:\n\n");
        for (SkailDeclarationException.Problem problem : cause.problems()) {
            description.append("  ").append(problem.where()).append("\n      ").append(problem.problem()).append('\n');
            action.append("  ").append(problem.where()).append("\n      ").append(problem.fix()).append('\n');
        }
        return new FailureAnalysis(description.toString(), action.toString(), cause);
    }
}
