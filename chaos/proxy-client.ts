import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ProxyCommand } from './network-cut-proxy.js';

const ENTRY = fileURLToPath(new URL('./network-cut-proxy-process.js', import.meta.url));

/** The coordinator's handle on the network-cut proxy process (network-cut-proxy-process.ts). */
export class ProxyClient {
  private child?: ChildProcess;
  private next = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  /** Starts the proxy process; returns the loopback port the replicas connect to. */
  start(): Promise<number> {
    const child = fork(ENTRY, [], {
      env: { ...process.env, CHAOS_PROXY_HOST: this.targetHost, CHAOS_PROXY_PORT: String(this.targetPort) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.child = child;
    return new Promise((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`chaos: the proxy process exited (${code})`)));
      child.once('message', (message: { listening: number }) => resolve(message.listening));
    });
  }

  blackhole(): Promise<void> {
    return this.command({ command: 'blackhole' });
  }

  resume(): Promise<void> {
    return this.command({ command: 'resume' });
  }

  reset(): Promise<void> {
    return this.command({ command: 'reset' });
  }

  /** The address moves to `host:port`; every open connection is reset, unless `keepConnections` (network-cut-proxy.ts). */
  retarget(host: string, port: number, keepConnections = false): Promise<void> {
    return this.command({ command: 'retarget', host, port, keepConnections });
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.disconnect();
    await exited;
  }

  private command(command: ProxyCommand): Promise<void> {
    const child = this.child;
    if (!child) return Promise.reject(new Error('chaos: the proxy is not started'));
    const id = (this.next += 1);
    return new Promise((resolve) => {
      const onMessage = (message: { id?: number }): void => {
        if (message.id !== id) return;
        child.off('message', onMessage);
        resolve();
      };
      child.on('message', onMessage);
      child.send({ id, ...command });
    });
  }
}
