package dev.skail.runtime;

import java.util.List;

import org.springframework.beans.FatalBeanException;

/** Start-up found skail declarations it cannot run; each problem names its method and the fix. */
public class SkailDeclarationException extends FatalBeanException {

    private static final long serialVersionUID = 1L;

    private final List<Problem> problems;

    public SkailDeclarationException(List<Problem> problems) {
        super(problems.size() + " invalid skail declaration(s):\n" + describe(problems));
        this.problems = List.copyOf(problems);
    }

    public List<Problem> problems() {
        return this.problems;
    }

    static String describe(List<Problem> problems) {
        StringBuilder text = new StringBuilder();
        for (Problem problem : problems) {
            text.append("  - ").append(problem.where()).append(": ").append(problem.problem()).append('\n');
            text.append("    fix: ").append(problem.fix()).append('\n');
        }
        return text.toString();
    }

    /**
     * One invalid declaration.
     *
     * @param where the class or method
     * @param problem what is wrong
     * @param fix what to do
     */
    public record Problem(String where, String problem, String fix) {
    }
}
