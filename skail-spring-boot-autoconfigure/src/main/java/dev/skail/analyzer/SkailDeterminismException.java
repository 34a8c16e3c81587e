package dev.skail.analyzer;

import java.util.List;

import org.springframework.beans.FatalBeanException;

/** The determinism analyzer found sources of non-determinism in functions ({@code skail.analyzer.mode=fail}). */
public class SkailDeterminismException extends FatalBeanException {

    private static final long serialVersionUID = 1L;

    private final List<Finding> findings;

    public SkailDeterminismException(List<Finding> findings) {
        super(findings.size() + " source(s) of non-determinism in skail functions:\n" + describe(findings));
        this.findings = List.copyOf(findings);
    }

    public List<Finding> findings() {
        return this.findings;
    }

    private static String describe(List<Finding> findings) {
        StringBuilder text = new StringBuilder();
        for (Finding finding : findings) {
            text.append("  - ").append(finding.describe()).append("\n    fix: ").append(finding.category().fix())
                .append('\n');
        }
        return text.toString();
    }
}
