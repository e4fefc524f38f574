import { Container, ContainerModule } from 'inversify';
import type { Clock } from '../../src/core/common/clock';
import type { Logger } from '../../src/core/common/logger';
import { token, TOKENS, type Token } from '../../src/core/tokens';
import { provider } from '../../src/provide';

/** A service with two dependencies of different types, the shape every core service has. */
class Stamp {
  constructor(
    readonly clock: Clock,
    readonly logger: Logger,
  ) {}
  line(text: string): string {
    return `${this.clock.now().toISOString()} ${text}`;
  }
}
const STAMP = token<Stamp>('test/stamp');
const fixedClock: Clock = { now: () => new Date('2026-11-26T12:00:00.000Z') };
const silent = { info() {} } as unknown as Logger;

describe('provide: dependencies named once, typed by their tokens', () => {
  it('gives the factory each dependency under its name', () => {
    const container = new Container({ defaultScope: 'Singleton' });
    container.loadSync(
      new ContainerModule(({ bind }) => {
        const provide = provider(bind);
        bind(TOKENS.clock).toConstantValue(fixedClock);
        bind(TOKENS.logger).toConstantValue(silent);
        // Named in another order than the constructor's: names, not positions, decide.
        provide(STAMP, { logger: TOKENS.logger, clock: TOKENS.clock }, ({ clock, logger }) => new Stamp(clock, logger));
      }),
    );
    const stamp = container.get(STAMP);
    expect(stamp.clock).toBe(fixedClock);
    expect(stamp.logger).toBe(silent);
    expect(stamp.line('hello')).toBe('2026-11-26T12:00:00.000Z hello');
  });

  it('does not compile a swapped dependency, a wrong product or a token of another type', () => {
    // These lines are checked by `npm run typecheck` (tsc over test/): each @ts-expect-error fails
    // the typecheck as "unused" the day the mistake below it compiles again. They are never run.
    const typeChecksOnly = (provide: ReturnType<typeof provider>) => {
      // The hole inversify's positional lists leave: the clock's token handed to the logger's name.
      // @ts-expect-error a Clock is not a Logger
      provide(STAMP, { clock: TOKENS.logger, logger: TOKENS.clock }, ({ clock, logger }) => new Stamp(clock, logger));
      // The factory's own annotations cannot overrule the tokens either.
      provide(
        STAMP,
        { clock: TOKENS.logger, logger: TOKENS.clock },
        // @ts-expect-error the factory asks for a Clock where the token gives a Logger
        ({ clock, logger }: { clock: Clock; logger: Logger }) => new Stamp(clock, logger),
      );
      // @ts-expect-error a factory must make its token's type
      provide(STAMP, { clock: TOKENS.clock }, ({ clock }) => clock);
      // @ts-expect-error tokens of different types are different types
      const mislabelled: Token<Logger> = TOKENS.clock;
      return mislabelled;
    };
    expect(typeof typeChecksOnly).toBe('function');
  });
});
