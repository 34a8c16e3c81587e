package dev.skail.runtime;

import java.lang.reflect.Type;

import dev.skail.SkailInvalidRequestException;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;

/**
 * A function's arguments as a trigger carries them: a JSON array of positional arguments (a bare value for a
 * one-parameter function), checked for arity and decoded with the declared generic parameter types, so that bad input
 * is refused before anything is recorded.
 */
final class FunctionArguments {

    private final SkailJson json;

    FunctionArguments(SkailJson json) {
        this.json = json;
    }

    /** Arguments given from Java code, as the JSON array a trigger carries. */
    ArrayNode encode(FunctionDefinition definition, Object[] arguments) {
        ArrayNode array = this.json.mapper().createArrayNode();
        for (Object argument : arguments) {
            array.add(this.json.tree(argument));
        }
        return positional(definition, array);
    }

    ArrayNode positional(FunctionDefinition definition, JsonNode arguments) {
        Type[] types = definition.step().method().getGenericParameterTypes();
        ArrayNode array;
        if (arguments.isMissingNode() || arguments.isNull() && types.length != 1) {
            array = this.json.mapper().createArrayNode();
        }
        else if (types.length == 1 && !isPositionalFor(arguments, types[0])) {
            array = this.json.mapper().createArrayNode().add(arguments);
        }
        else if (arguments.isArray()) {
            array = (ArrayNode) arguments;
        }
        else {
            throw new SkailInvalidRequestException("Function '" + definition.name() + "' takes " + types.length
                    + " arguments: send them as a JSON array");
        }
        if (array.size() != types.length) {
            throw new SkailInvalidRequestException("Function '" + definition.name() + "' takes " + types.length
                    + " argument(s), but " + array.size() + " were given");
        }
        return array;
    }

    private boolean isPositionalFor(JsonNode arguments, Type type) {
        if (!arguments.isArray()) {
            return false;
        }
        // a one-parameter function whose parameter is itself an array or collection: [[1, 2]] is positional,
        // [1, 2] is the bare value
        boolean collection = this.json.mapper().constructType(type).isContainerType()
                && !this.json.mapper().constructType(type).isMapLikeType();
        return !collection || (arguments.size() == 1 && arguments.get(0).isArray());
    }

    Object[] decode(FunctionDefinition definition, JsonNode array) {
        Type[] types = definition.step().method().getGenericParameterTypes();
        Object[] values = new Object[types.length];
        for (int i = 0; i < types.length; i++) {
            try {
                values[i] = this.json.convert(array.get(i), types[i]);
            }
            catch (JacksonException | IllegalArgumentException ex) {
                throw new SkailInvalidRequestException("Argument " + i + " of function '" + definition.name()
                        + "' is not a valid " + types[i].getTypeName() + ": "
                        + ((ex instanceof JacksonException jackson) ? jackson.getOriginalMessage() : ex.getMessage()),
                        ex);
            }
        }
        return values;
    }
}
