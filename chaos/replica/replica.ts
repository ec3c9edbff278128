/**
 * One replica process of the chaos app (started, killed, paused and restarted by the
 * coordinator). Tells its parent `ready` once it listens, and its loops' state when asked.
 */
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { QueueBoxAdmin } from 'queuebox';
import { ChaosAppModule } from './chaos-app.module.js';
import { readReplicaConfig } from './replica-config.js';

async function main(): Promise<void> {
  const config = readReplicaConfig();
  const app = await NestFactory.create(ChaosAppModule.forRoot(config), { logger: ['error', 'warn', 'log'] });
  app.enableShutdownHooks(['SIGTERM']);
  await app.listen(config.port, '127.0.0.1');
  // The coordinator asks for the loops' last ticks at the end of a run: a stalled loop fails it.
  process.on('message', (message: { type?: string }) => {
    if (message.type === 'loops')
      process.send?.({ type: 'loops', slot: config.slot, loops: app.get(QueueBoxAdmin).loops() });
  });
  // A coordinator that died (a harness failure, a timeout) leaves no replica behind.
  process.on('disconnect', () => process.exit(0));
  process.send?.({ type: 'ready', slot: config.slot });
}

main().catch((error: unknown) => {
  console.error('chaos replica failed to start:', error);
  process.exit(1);
});
