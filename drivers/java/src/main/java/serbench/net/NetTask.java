package serbench.net;

import serbench.ModelType;
import serbench.methods.Codec;
import serbench.methods.MethodSpec;

/**
 * One network task: the role a node plays in it, built for the cell's method and model from
 * the node's setup. Generic over both, written only against Codec, like the tasks of `run`.
 */
public interface NetTask {
    String id();

    <T> Role role(Codec<T> codec, MethodSpec method, ModelType<T> model, Setup setup)
        throws Exception;
}
