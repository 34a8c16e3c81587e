package dev.skail.runtime;

import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.generate.GenerationContext;
import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.TypeReference;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.aot.BeanRegistrationCode;
import org.springframework.beans.factory.aot.BeanRegistrationCodeFragments;
import org.springframework.beans.factory.aot.BeanRegistrationCodeFragmentsDecorator;
import org.springframework.beans.factory.aot.InstanceSupplierCodeGenerator;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.beans.factory.support.RegisteredBean.InstantiationDescriptor;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.javapoet.CodeBlock;
import org.springframework.util.ClassUtils;

/**
 * Spring AOT support of the beans whose functions and commands skail intercepts (registered in
 * {@code META-INF/spring/aot.factories}). When the application is AOT-processed, {@link SkailBeanEnhancer} has
 * already swapped such a bean's class for its generated subclass, whose bytes Spring writes with the other generated
 * classes (as it does for the subclasses of {@code @Configuration} classes). For each such bean this processor makes
 * the generated registration code
 * <ul>
 * <li>set the subclass as the bean class through {@link SkailBeanEnhancer#enhance(Class)}, which in AOT mode loads the
 * class written at build time and registers skail's callbacks on it before any instance exists;</li>
 * <li>create the bean with the subclass's constructor (the one matching the constructor Spring resolved on the
 * bean's class), so that calls the bean makes to itself ({@code this.cobrarCartao(...)}) go through skail;</li>
 * </ul>
 * and registers the runtime hints the bean needs: reflection on its functions and commands (the worker invokes
 * functions by reflection), binding on the types of their parameters and results (recorded as JSON), Java
 * serialization of the exceptions they declare (rebuilt on replay), and the subclass's constructors and methods.
 * At start-up {@link SkailBeanEnhancer} then recognises the definition and builds the catalog as on the JVM.
 */
public final class SkailBeanRegistrationAotProcessor implements BeanRegistrationAotProcessor {

    @Override
    public @Nullable BeanRegistrationAotContribution processAheadOfTime(RegisteredBean registeredBean) {
        RootBeanDefinition definition = registeredBean.getMergedBeanDefinition();
        if (!definition.hasBeanClass() || !SkailBeanEnhancer.isEnhanced(definition.getBeanClass())) {
            return null;
        }
        return new Contribution(registeredBean, definition.getBeanClass());
    }

    private static final class Contribution implements BeanRegistrationAotContribution {

        private final RegisteredBean registeredBean;

        private final Class<?> subclass;

        private final Class<?> userClass;

        Contribution(RegisteredBean registeredBean, Class<?> subclass) {
            this.registeredBean = registeredBean;
            this.subclass = subclass;
            this.userClass = ClassUtils.getUserClass(subclass);
        }

        @Override
        public BeanRegistrationCodeFragments customizeBeanRegistrationCodeFragments(
                GenerationContext generationContext, BeanRegistrationCodeFragments codeFragments) {
            return new EnhancedBeanCodeFragments(codeFragments, this.registeredBean, this.subclass, this.userClass);
        }

        @Override
        public void applyTo(GenerationContext generationContext, BeanRegistrationCode beanRegistrationCode) {
            registerHints(generationContext.getRuntimeHints(), this.subclass, this.userClass);
        }
    }

    /** The hints one intercepted bean needs at run time (a native image has no reflection metadata otherwise). */
    static void registerHints(RuntimeHints hints, Class<?> subclass, Class<?> userClass) {
        ReflectionHints reflection = hints.reflection();
        // SkailBeanEnhancer.enhance registers the callbacks through a static method of the subclass
        reflection.registerType(TypeReference.of(subclass.getName()), MemberCategory.INVOKE_DECLARED_CONSTRUCTORS,
                MemberCategory.INVOKE_DECLARED_METHODS);
        // the enhancer reads the annotated methods of the class and its superclasses; the worker invokes functions
        for (Class<?> type = userClass; type != null && type != Object.class; type = type.getSuperclass()) {
            reflection.registerType(type, MemberCategory.INVOKE_DECLARED_METHODS,
                    MemberCategory.INVOKE_PUBLIC_METHODS);
        }
        BindingReflectionHintsRegistrar binding = new BindingReflectionHintsRegistrar();
        for (StepMethod step : SkailBeanEnhancer.stepMethods(userClass)) {
            Method method = step.method();
            for (Type parameter : method.getGenericParameterTypes()) {
                binding.registerReflectionHints(reflection, parameter);
            }
            binding.registerReflectionHints(reflection, method.getGenericReturnType());
            for (Class<?> declared : method.getExceptionTypes()) {
                registerException(reflection, declared);
            }
        }
    }

    /** An exception a function or command declares is recorded with Java serialization and rebuilt on replay. */
    private static void registerException(ReflectionHints reflection, Class<?> exception) {
        for (Class<?> type = exception; type != null && type != Object.class; type = type.getSuperclass()) {
            reflection.registerJavaSerialization(type);
            reflection.registerType(type, MemberCategory.ACCESS_DECLARED_FIELDS,
                    MemberCategory.INVOKE_DECLARED_CONSTRUCTORS);
        }
    }

    /** The bean's registration code: the subclass as its class, created with the subclass's constructor. */
    private static final class EnhancedBeanCodeFragments extends BeanRegistrationCodeFragmentsDecorator {

        private final RegisteredBean registeredBean;

        private final Class<?> subclass;

        private final Class<?> userClass;

        EnhancedBeanCodeFragments(BeanRegistrationCodeFragments delegate, RegisteredBean registeredBean,
                Class<?> subclass, Class<?> userClass) {
            super(delegate);
            this.registeredBean = registeredBean;
            this.subclass = subclass;
            this.userClass = userClass;
        }

        @Override
        public CodeBlock generateSetBeanDefinitionPropertiesCode(GenerationContext generationContext,
                BeanRegistrationCode beanRegistrationCode, RootBeanDefinition beanDefinition,
                Predicate<String> attributeFilter) {
            CodeBlock.Builder code = CodeBlock.builder();
            code.add(super.generateSetBeanDefinitionPropertiesCode(generationContext, beanRegistrationCode,
                    beanDefinition, attributeFilter));
            code.addStatement("$L.setBeanClass($T.enhance($T.class))", BEAN_DEFINITION_VARIABLE,
                    SkailBeanEnhancer.class, this.userClass);
            return code.build();
        }

        @Override
        public CodeBlock generateInstanceSupplierCode(GenerationContext generationContext,
                BeanRegistrationCode beanRegistrationCode, boolean allowDirectSupplierShortcut) {
            InstantiationDescriptor descriptor = this.registeredBean.resolveInstantiationDescriptor();
            Executable executable = descriptor.executable();
            if (executable instanceof Constructor<?> constructor) {
                try {
                    descriptor = new InstantiationDescriptor(
                            this.subclass.getDeclaredConstructor(constructor.getParameterTypes()));
                }
                catch (NoSuchMethodException ex) {
                    throw new IllegalStateException("skail's subclass " + this.subclass.getName()
                            + " has no constructor matching " + constructor, ex);
                }
            }
            return new InstanceSupplierCodeGenerator(generationContext, beanRegistrationCode.getClassName(),
                    beanRegistrationCode.getMethods(), allowDirectSupplierShortcut)
                .generateCode(this.registeredBean, descriptor);
        }
    }
}
