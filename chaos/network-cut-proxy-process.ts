/**
 * The network-cut proxy in a process of its own (started by the coordinator): every byte between
 * the replicas and PostgreSQL passes through it, and on a loaded machine it should not wait for
 * the coordinator's event loop, which also runs the sink and the intake sender. Commands come
 * over IPC: `blackhole`, `resume`, `reset`, `retarget`; each is answered once done.
 */
import { NetworkCutProxy, type ProxyCommand } from './network-cut-proxy.js';

const [host, port] = [process.env.CHAOS_PROXY_HOST ?? '127.0.0.1', Number(process.env.CHAOS_PROXY_PORT)];
const proxy = new NetworkCutProxy(host, port);
proxy.start().then((listening) => {
  process.on('message', (message: { id: number } & ProxyCommand) => {
    if (message.command === 'retarget') proxy.retarget(message.host, message.port, message.keepConnections);
    else proxy[message.command]();
    process.send?.({ id: message.id, done: true });
  });
  process.on('disconnect', () => void proxy.stop().finally(() => process.exit(0)));
  process.send?.({ listening });
});
