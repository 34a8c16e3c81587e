package dev.skail.runtime;

/**
 * A function of the workload and the bean that runs it.
 *
 * @param step the annotated method
 * @param beanName the bean that declares it
 */
record FunctionDefinition(StepMethod step, String beanName) {

    public String name() {
        return this.step.name();
    }
}
