package serbench.methods;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import serbench.Depth;
import serbench.ModelType;

/**
 * A method's identity and capabilities, as `info` lists them, and how to make its codec.
 *
 * @param files its own source files, relative to the repository (the `sizes` task)
 * @param writes false for the raw floor, which only reads other methods' files
 * @param directPages true when it reads pages from a direct (off-heap) buffer
 * @param settings what changes its results (a compression level ...), reported in `info`
 */
public record MethodSpec(String id, List<Depth> depths, List<String> files, boolean writes,
        boolean directPages, Map<String, Object> settings,
        Function<ModelType<?>, Codec<?>> factory) {

    public static final String SRC = "drivers/java/src/main/java/serbench/methods/";
    /** Where the build generates the converters (codegen/generate_schema_codecs.py). */
    public static final String CONVERT =
        "drivers/java/target/generated-sources/codegen/serbench/methods/convert/";

    public static MethodSpec of(String id, List<Depth> depths, String file,
            Function<ModelType<?>, Codec<?>> factory) {
        return new MethodSpec(id, depths, List.of(SRC + file), true, false, Map.of(), factory);
    }

    @SuppressWarnings("unchecked")
    public <T> Codec<T> codec(ModelType<T> model) {
        return (Codec<T>) factory.apply(model);
    }
}
