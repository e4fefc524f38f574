import type { ContainerModuleLoadOptions } from 'inversify';
import type { Token } from './core/tokens';

/** A service's dependencies, each named once and typed by its token: `{ clock: TOKENS.clock }`. */
export type Deps = Readonly<Record<string, Token<unknown>>>;

/** What a factory is given for `Deps`: each name bound to what its token resolves to. */
export type Resolved<D extends Deps> = { readonly [K in keyof D]: D[K] extends Token<infer T> ? T : never };

/** Binds `token` to what `factory` makes of the resolved `deps`; see `provider`. */
export type Provide = <T, D extends Deps>(token: Token<T>, deps: D, factory: (deps: Resolved<D>) => NoInfer<T>) => void;

/**
 * The one way the composition root binds a service with dependencies (docs/architecture.md): each
 * dependency is named once, and its type is the type its token carries, so a factory handed the
 * wrong token, or making something other than its own token's type, does not compile
 * (test/unit/provide.test.ts proves it). inversify's positional `toResolvedValue(factory, [tokens])`
 * checks neither.
 */
export function provider(bind: ContainerModuleLoadOptions['bind']): Provide {
  return (token, deps, factory) => {
    const names = Object.keys(deps);
    bind(token).toResolvedValue(
      (...values: unknown[]) => {
        const resolved: Record<string, unknown> = {};
        names.forEach((name, i) => {
          resolved[name] = values[i];
        });
        return factory(resolved as Resolved<typeof deps>);
      },
      names.map((name) => deps[name]) as never,
    );
  };
}
