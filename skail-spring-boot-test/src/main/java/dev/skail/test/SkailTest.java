package dev.skail.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.context.annotation.Import;
import org.springframework.core.annotation.AliasFor;
import org.springframework.test.context.ContextCustomizerFactories;

/**
 * A Spring Boot test of an application that uses skail: the whole application, as {@link SpringBootTest} starts it,
 * with virtual time ({@link SkailTestConfiguration}) and a fresh in-memory store.
 * <ul>
 * <li>A {@link VirtualClock} is skail's clock and the application's primary {@link java.time.Clock}:
 * {@link VirtualClock#advance(java.time.Duration)} makes a 24-hour delay pass at once.</li>
 * <li>{@link SkailAwait} waits for an execution to reach a status.</li>
 * <li>The store is the embedded store (the default) in memory, {@code local:mem:skail-test-<random UUID>}, whatever
 * the application's configuration says: each application context the test framework starts has its own, empty one,
 * kept until the JVM ends.
 * Test classes with the same configuration share a context (Spring's context cache), and so its store; give their
 * executions distinct ids. A {@code skail.store.url} given in {@link #properties()} (or
 * {@code @TestPropertySource}, {@code @DynamicPropertySource}) is used instead.</li>
 * </ul>
 * Inject what you need:
 *
 * <pre class="code">
 * &#64;SkailTest(properties = "skail.retry.backoff.initial=0ms")
 * class PedidosTests {
 *
 *     &#64;Autowired SkailClient skail;
 *     &#64;Autowired SkailAwait await;
 *     &#64;Autowired VirtualClock clock;
 *
 *     &#64;Test
 *     void orderIsChargedAfterTwentyFourHours() {
 *         skail.trigger("pedido-1", Pedidos.class, p -&gt; p.processarPedido(id, valor));
 *         await.status("pedido-1", ExecutionStatus.WAITING);
 *         clock.advance(Duration.ofHours(24));
 *         await.status("pedido-1", ExecutionStatus.COMPLETED);
 *     }
 * }
 * </pre>
 *
 * @see SkailTestConfiguration
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@SpringBootTest
@Import(SkailTestConfiguration.class)
@ContextCustomizerFactories(SkailTestStoreContextCustomizerFactory.class)
public @interface SkailTest {

    /**
     * Properties in {@code key=value} form added to the application's environment, as
     * {@link SpringBootTest#properties()}.
     * @return the properties to add
     */
    @AliasFor(annotation = SpringBootTest.class)
    String[] properties() default {};

    /**
     * Application arguments, as {@link SpringBootTest#args()}.
     * @return the application arguments
     */
    @AliasFor(annotation = SpringBootTest.class)
    String[] args() default {};

    /**
     * The classes that make the application context, as {@link SpringBootTest#classes()}; by default the
     * {@code @SpringBootConfiguration} found from the test's package.
     * @return the component classes
     */
    @AliasFor(annotation = SpringBootTest.class)
    Class<?>[] classes() default {};

    /**
     * The web environment, as {@link SpringBootTest#webEnvironment()}: {@code RANDOM_PORT} to call the application
     * (and skail's HTTP API) over HTTP.
     * @return the web environment
     */
    @AliasFor(annotation = SpringBootTest.class)
    WebEnvironment webEnvironment() default WebEnvironment.MOCK;
}
