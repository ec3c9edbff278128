import type { QueueBoxTable } from '../../interfaces/claim.interface.js';
import type { ConformanceCheckDefinition } from '../conformance-check.js';
import { expectThat } from '../conformance-failure.js';
import { noWakeUpTransport } from '../conformance.messages.js';

/**
 * A wake-up sent by one instance reaches another's listener over the database (PostgreSQL
 * LISTEN/NOTIFY through QueueBox's own transport), and the sender's own is not delivered back.
 */
export const notifyCheck: ConformanceCheckDefinition = {
  name: 'notify',
  title: 'wake-ups reach other instances (LISTEN/NOTIFY)',
  skipReason: ({ dialect }) => (dialect.wakesReplicas ? undefined : noWakeUpTransport(dialect.displayName)),
  async run(context) {
    const receiver = context.dialect.createWakeUpTransport(context.dataSource, 'conformance-receiver')!;
    const sender = context.dialect.createWakeUpTransport(context.dataSource, 'conformance-sender')!;
    const woken: QueueBoxTable[] = [];
    let arrived = (): void => undefined;
    try {
      // After LISTEN, the transport reports every table once (a wake-up may have been missed): skip those.
      await receiver.listen((table) => {
        woken.push(table);
        arrived();
      });
      expectThat(woken.length === 2, `the listener did not start (LISTEN failed; ${woken.length} start-up wake-ups instead of 2)`);
      woken.length = 0;
      const wakeUp = new Promise<boolean>((resolve) => {
        arrived = () => resolve(true);
        setTimeout(() => resolve(false), context.timeoutMs).unref();
      });
      const sentAt = Date.now();
      await sender.send('inbox');
      const received = await wakeUp;
      expectThat(received, `a wake-up sent on the inbox channel did not arrive within ${context.timeoutMs} ms`);
      expectThat(woken.join() === 'inbox', `the listener received ${woken.join(', ')} instead of one inbox wake-up`);
      return `a wake-up sent by one instance arrived at another's listener in ${Date.now() - sentAt} ms (over the database's LISTEN/NOTIFY, on the run's own channel)`;
    } finally {
      await Promise.allSettled([receiver.close(), sender.close()]);
    }
  },
};
