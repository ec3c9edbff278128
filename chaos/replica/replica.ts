/**
 * One replica process of the chaos app (started, killed, paused and restarted by the
 * coordinator). Tells its parent `ready` once it listens.
 */
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { ChaosAppModule } from './chaos-app.module.js';
import { readReplicaConfig } from './replica-config.js';

async function main(): Promise<void> {
  const config = readReplicaConfig();
  const app = await NestFactory.create(ChaosAppModule.forRoot(config), { logger: ['error', 'warn', 'log'] });
  app.enableShutdownHooks(['SIGTERM']);
  await app.listen(config.port, '127.0.0.1');
  process.send?.({ type: 'ready', slot: config.slot });
}

main().catch((error: unknown) => {
  console.error('chaos replica failed to start:', error);
  process.exit(1);
});
