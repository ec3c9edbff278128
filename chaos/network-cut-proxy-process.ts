/**
 * The network-cut proxy in a process of its own (started by the coordinator): every byte between
 * the replicas and PostgreSQL passes through it, and on a loaded machine it should not wait for
 * the coordinator's event loop, which also runs the sink and the intake sender. Commands come
 * over IPC: `blackhole`, `resume`, `reset`; each is answered once done.
 */
import { NetworkCutProxy } from './network-cut-proxy.js';

type Command = 'blackhole' | 'resume' | 'reset';

const [host, port] = [process.env.CHAOS_PROXY_HOST ?? '127.0.0.1', Number(process.env.CHAOS_PROXY_PORT)];
const proxy = new NetworkCutProxy(host, port);
proxy.start().then((listening) => {
  process.on('message', (message: { id: number; command: Command }) => {
    proxy[message.command]();
    process.send?.({ id: message.id, done: true });
  });
  process.on('disconnect', () => void proxy.stop().finally(() => process.exit(0)));
  process.send?.({ listening });
});
