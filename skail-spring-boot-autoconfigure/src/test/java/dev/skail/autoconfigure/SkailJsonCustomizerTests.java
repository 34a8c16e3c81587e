package dev.skail.autoconfigure;

import java.math.BigDecimal;

import dev.skail.SkailFunction;
import dev.skail.SkailJsonCustomizer;
import dev.skail.runtime.SkailDeclarationException;
import dev.skail.runtime.SkailJson;
import org.junit.jupiter.api.Test;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.StreamWriteFeature;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.ValueSerializer;
import tools.jackson.databind.module.SimpleModule;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.annotation.Order;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link SkailJsonCustomizer} beans change skail's default JSON mapper, which stays exact. */
class SkailJsonCustomizerTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(SkailAutoConfiguration.class))
        .withPropertyValues("skail.workload=vendas:v1.0.0", "skail.worker.enabled=false",
                "skail.store.url=jdbc:h2:mem:json-customizer;DB_CLOSE_DELAY=-1")
        .withUserConfiguration(Payments.class);

    @Test
    void withoutACustomizerAFunctionOfATypeJacksonCannotReadFailsStartUp() {
        this.runner.run((context) -> {
            assertThat(context).hasFailed();
            Throwable cause = context.getStartupFailure();
            while (cause.getCause() != null && !(cause instanceof SkailDeclarationException)) {
                cause = cause.getCause();
            }
            assertThat(cause).isInstanceOf(SkailDeclarationException.class);
            assertThat(((SkailDeclarationException) cause).problems())
                .anySatisfy((problem) -> assertThat(problem.problem()).contains("abstract"));
        });
    }

    @Test
    void customizerThatRegistersASerializerMakesTheTypePassTheStartUpCheckAndRoundTrip() {
        this.runner.withBean("moneyJson", SkailJsonCustomizer.class, () -> SkailJsonCustomizerTests::moneyModule)
            .run((context) -> {
                assertThat(context).hasNotFailed();
                SkailJson json = context.getBean(SkailJson.class);
                String text = json.write(Money.ofCents(15000));
                assertThat(text).isEqualTo("\"150.00 BRL\"");
                assertThat(((Money) json.read(text, Money.class)).cents()).isEqualTo(15000);
            });
    }

    @Test
    void customizersApplyInOrderAndTheMapperStaysExact() {
        this.runner.withUserConfiguration(OrderedCustomizers.class).run((context) -> {
            assertThat(context).hasNotFailed();
            SkailJson json = context.getBean(SkailJson.class);
            // the later customizer's serializer wins
            assertThat(json.write(Money.ofCents(1))).isEqualTo("\"cents:1\"");
            // a customizer cannot undo what makes a history exact
            assertThat(json.write(new BigDecimal("1E+300"))).isEqualTo("1E+300");
            assertThat(json.write(new BigDecimal("150.00"))).isEqualTo("150.00");
        });
    }

    private static void moneyModule(tools.jackson.databind.json.JsonMapper.Builder builder) {
        builder.addModule(new SimpleModule("money").addSerializer(Money.class, new ValueSerializer<Money>() {
            @Override
            public void serialize(Money value, JsonGenerator gen, SerializationContext ctxt) {
                gen.writeString(BigDecimal.valueOf(value.cents(), 2).toPlainString() + " BRL");
            }
        }).addDeserializer(Money.class, new ValueDeserializer<Money>() {
            @Override
            public Money deserialize(JsonParser p, DeserializationContext ctxt) {
                String text = p.getValueAsString();
                String amount = text.contains(":") ? text.substring(text.indexOf(':') + 1)
                        : text.substring(0, text.indexOf(' '));
                return Money.ofCents(text.contains(":") ? Long.parseLong(amount)
                        : new BigDecimal(amount).movePointRight(2).longValueExact());
            }
        }));
    }

    /** An interface without {@code @JsonTypeInfo}: Jackson alone cannot choose what to create. */
    public interface Money {

        long cents();

        static Money ofCents(long cents) {
            return new Reais(cents);
        }
    }

    record Reais(long cents) implements Money {
    }

    public static class Payments {

        @SkailFunction
        public void pay(Money amount) {
        }
    }

    static class OrderedCustomizers {

        @org.springframework.context.annotation.Bean
        @Order(2)
        SkailJsonCustomizer centsAsText() {
            return (builder) -> builder.addModule(new SimpleModule("cents").addSerializer(Money.class,
                    new ValueSerializer<Money>() {
                        @Override
                        public void serialize(Money value, JsonGenerator gen, SerializationContext ctxt) {
                            gen.writeString("cents:" + value.cents());
                        }
                    }));
        }

        @org.springframework.context.annotation.Bean
        @Order(1)
        SkailJsonCustomizer money() {
            return (builder) -> {
                moneyModule(builder);
                builder.enable(StreamWriteFeature.WRITE_BIGDECIMAL_AS_PLAIN);
            };
        }
    }
}
