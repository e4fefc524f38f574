import { InProcessEventBus, type CreditChanged } from '../../../../src/core/common/events';
import { toPlatformEvent } from '../../../../src/core/events/outbox';
import { recordingLogger } from '../../../support/fakes';

const change = toPlatformEvent({
  name: 'credit.changed',
  event: {
    resellerId: 'r1',
    entryId: 'e1',
    amount: -10_00,
    kind: 'order_debit',
    orderId: 'o1',
    balance: 90_00,
    at: new Date(0),
  } satisfies CreditChanged,
});

describe('InProcessEventBus', () => {
  it('delivers an event to every subscriber of its name, in order, and stops after unsubscribing', () => {
    const bus = new InProcessEventBus(recordingLogger());
    const seen: string[] = [];
    const off = bus.on('credit.changed', (e) => {
      seen.push(`a:${e.amount}`);
    });
    bus.on('credit.changed', (e) => {
      seen.push(`b:${e.balance}`);
    });
    bus.on('order.placed', () => {
      seen.push('wrong');
    });
    bus.deliver(change);
    off();
    bus.deliver(change);
    expect(seen).toEqual(['a:-1000', 'b:9000', 'b:9000']);
  });

  it('logs a handler that throws or rejects, and still delivers to the others', async () => {
    const logger = recordingLogger();
    const bus = new InProcessEventBus(logger);
    let delivered = 0;
    bus.on('credit.changed', () => {
      throw new Error('host bug');
    });
    bus.on('credit.changed', async () => {
      throw new Error('async host bug');
    });
    bus.on('credit.changed', () => {
      delivered++;
    });
    expect(() => bus.deliver(change)).not.toThrow();
    await new Promise((resolve) => setImmediate(resolve));
    expect(delivered).toBe(1);
    expect(logger.entries.filter((e) => e.level === 'error').map((e) => (e.obj as { event: string }).event)).toEqual([
      'credit.changed',
      'credit.changed',
    ]);
  });
});
