package dev.skail.runtime;

import java.lang.reflect.Method;

import org.springframework.cglib.proxy.MethodInterceptor;
import org.springframework.cglib.proxy.MethodProxy;

/**
 * The callback of the subclasses skail generates for beans with annotated methods. It sees every call of an
 * annotated method, from outside the bean or from inside ({@code this.cobrarCartao(...)}), and hands it to the
 * execution running on this thread; with none, the method runs as plain Java. It holds no state, so one instance
 * serves every application context in the JVM.
 */
final class StepInterceptor implements MethodInterceptor {

    static final StepInterceptor INSTANCE = new StepInterceptor();

    private StepInterceptor() {
    }

    @Override
    public Object intercept(Object target, Method method, Object[] args, MethodProxy proxy) throws Throwable {
        Delivery context = Delivery.current();
        StepMethod step = StepMethod.of(method);
        if (context == null || step == null) {
            return proxy.invokeSuper(target, args);
        }
        return context.onCall(step, args, () -> proxy.invokeSuper(target, args));
    }
}
