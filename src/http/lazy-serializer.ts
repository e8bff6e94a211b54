import SerializerSelector from '@fastify/fast-json-stringify-compiler';

/**
 * Response serializers compiled on first use instead of at startup.
 *
 * Fastify builds a fast-json-stringify serializer for every response schema of every route (and again for
 * every GET's implicit HEAD route) before it listens: with ~200 routes that was ~0.9 s of a 1.7 s cold
 * start. This factory hands Fastify the same serializers (Fastify's own compiler, the same options and
 * shared schemas), each built when its route first answers with that status. `compileAll()` builds every
 * one that is still pending: `scent serve` calls it in idle turns after it listens, and a test calls it so
 * a schema that cannot compile fails the suite, never a request.
 */
export function lazySerializers() {
  const pending = new Set<() => void>();
  const buildSerializer = (externalSchemas: unknown, options: unknown) => {
    const compile = SerializerSelector()(externalSchemas as never, options as never);
    return (route: Parameters<typeof compile>[0]) => {
      let serialize: ((data: unknown) => string) | undefined;
      const build = () => {
        pending.delete(build);
        serialize ??= compile(route) as (data: unknown) => string;
        return serialize;
      };
      pending.add(build);
      return (data: unknown) => (serialize ?? build())(data);
    };
  };
  /** Builds every serializer not built yet, yielding to the event loop between routes. */
  const compileAll = async (): Promise<number> => {
    let built = 0;
    for (const build of [...pending]) {
      build();
      built++;
      await new Promise((resolve) => setImmediate(resolve));
    }
    return built;
  };
  return { buildSerializer, compileAll };
}
