import type { QueueBoxTable } from '../../../shared/interfaces/claim.interface.js';
import type { ConformanceCheckDefinition } from '../conformance-check.js';
import { expectThat } from '../conformance-failure.js';
import { ConformanceFailure } from '../conformance-failure.js';
import { listenThroughTransactionPooler, noWakeUpTransport } from '../conformance.messages.js';

/**
 * A wake-up sent by one instance reaches another's listener over the database (PostgreSQL
 * LISTEN/NOTIFY through QueueBox's own transport), and the sender's own is not delivered back.
 * The listener listens where QueueBox would: on `listenUrl` when given, else on a pooled
 * connection, which cannot work through a pooler in transaction mode (the pooling check saw it).
 */
export const notifyCheck: ConformanceCheckDefinition = {
  name: 'notify',
  title: 'wake-ups reach other instances (LISTEN/NOTIFY)',
  skipReason: ({ dialect }) => (dialect.wakesReplicas ? undefined : noWakeUpTransport(dialect.displayName)),
  async run(context) {
    if (context.dialect.pooling.sessionPerTransaction && !context.listenUrl)
      throw new ConformanceFailure(listenThroughTransactionPooler());
    const receiver = context.dialect.createWakeUpTransport(
      context.dataSource,
      'conformance-receiver',
      context.listenUrl,
    )!;
    const sender = context.dialect.createWakeUpTransport(context.dataSource, 'conformance-sender')!;
    const woken: QueueBoxTable[] = [];
    let arrived = (): void => undefined;
    try {
      // After LISTEN, the transport reports every table once (a wake-up may have been missed): skip those.
      await receiver.listen((table) => {
        woken.push(table);
        arrived();
      });
      expectThat(
        woken.length === 2,
        `the listener did not start (LISTEN failed; ${woken.length} start-up wake-ups instead of 2)`,
      );
      woken.length = 0;
      const wakeUp = new Promise<boolean>((resolve) => {
        arrived = () => resolve(true);
        setTimeout(() => resolve(false), context.timeoutMs).unref();
      });
      const sentAt = Date.now();
      const sent: QueueBoxTable = 'inbox';
      await sender.send(sent);
      const received = await wakeUp;
      expectThat(received, `a wake-up sent on the ${sent} channel did not arrive within ${context.timeoutMs} ms`);
      expectThat(
        woken.length === 1 && woken[0] === sent,
        `the listener received ${woken.join(', ')} instead of one ${sent} wake-up`,
      );
      const where = context.listenUrl ? ', listening on its own connection to listenUrl' : '';
      return `a wake-up sent by one instance arrived at another's listener in ${Date.now() - sentAt} ms (over the database's LISTEN/NOTIFY, on the run's own channel${where})`;
    } finally {
      await Promise.allSettled([receiver.close(), sender.close()]);
    }
  },
};
