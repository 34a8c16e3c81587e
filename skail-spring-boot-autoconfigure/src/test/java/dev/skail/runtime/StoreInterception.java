package dev.skail.runtime;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;

import dev.skail.platform.ExecutionStore;
import dev.skail.platform.StoreDeadline;

import org.springframework.beans.factory.config.BeanPostProcessor;

/**
 * For tests that make the store misbehave at one call (fail, wait, answer otherwise): a {@link BeanPostProcessor}
 * that wraps the application's {@link ExecutionStore} bean, passing every call through {@link Around}. Declare it
 * from a {@code static @Bean} method.
 */
public final class StoreInterception {

    private StoreInterception() {
    }

    /** One call to the store: its method, its arguments, and the real store to call on. */
    public record Call(Method method, Object[] args, ExecutionStore store) {

        public String name() {
            return this.method.getName();
        }

        /** Calls the real store, with the exception it throws unwrapped. */
        public Object proceed() throws Throwable {
            try {
                return this.method.invoke(this.store, this.args);
            }
            catch (InvocationTargetException ex) {
                throw ex.getTargetException();
            }
        }

        /**
         * Calls the real store without the calling thread's store deadline: for a call the test has kept waiting
         * (standing for a slow store), which the time it waited must not cut short.
         */
        public Object proceedWithoutDeadline() throws Throwable {
            Object[] result = new Object[1];
            Throwable[] failure = new Throwable[1];
            StoreDeadline.without(() -> {
                try {
                    result[0] = proceed();
                }
                catch (Throwable ex) {
                    failure[0] = ex;
                }
            });
            if (failure[0] != null) {
                throw failure[0];
            }
            return result[0];
        }
    }

    @FunctionalInterface
    public interface Around {

        /** What the call answers; {@link Call#proceed()} for what the real store does. */
        Object invoke(Call call) throws Throwable;
    }

    public static BeanPostProcessor around(Around around) {
        return new BeanPostProcessor() {
            @Override
            public Object postProcessAfterInitialization(Object bean, String beanName) {
                if (!(bean instanceof ExecutionStore store)) {
                    return bean;
                }
                return Proxy.newProxyInstance(StoreInterception.class.getClassLoader(),
                        new Class<?>[] { ExecutionStore.class },
                        (proxy, method, args) -> around.invoke(new Call(method, (args != null) ? args : new Object[0],
                                store)));
            }
        };
    }
}
