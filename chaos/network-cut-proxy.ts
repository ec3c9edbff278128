import { createConnection, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/** What the coordinator tells the proxy's process (network-cut-proxy-process.ts). */
export type ProxyCommand =
  | { command: 'blackhole' | 'resume' | 'reset' }
  | { command: 'retarget'; host: string; port: number; keepConnections: boolean };

/** One proxied connection: the replica's side and the database's side. */
interface Link {
  client: Socket;
  server: Socket;
}

/**
 * A TCP proxy between the replicas and PostgreSQL that can cut the network the way a failed
 * switch or a dropped NAT entry does: every connection goes silent at once, with no FIN and no
 * RST in either direction. Bytes stop being forwarded (both sides are paused, so what was sent
 * stays unread in the kernel's buffers); connections opened during the cut are accepted and stay
 * silent too. The cut ends in one of two ways: `resume()` forwards again (the statements that
 * waited get their answers, late), or `reset()` destroys every connection (each side sees its
 * socket close). In front of an HA pair, `retarget()` moves it to the new primary. Only the
 * coordinator of the chaos suite uses it.
 */
export class NetworkCutProxy {
  private server?: Server;
  private readonly links = new Set<Link>();
  private cut = false;

  constructor(
    private targetHost: string,
    private targetPort: number,
  ) {}

  get connections(): number {
    return this.links.size;
  }

  get isCut(): boolean {
    return this.cut;
  }

  /** Listens on a free loopback port; returns it. */
  async start(): Promise<number> {
    this.server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as AddressInfo).port;
  }

  /** Every connection, open or opened from now on, goes silent. */
  blackhole(): void {
    this.cut = true;
    for (const link of this.links) {
      link.client.pause();
      link.server.pause();
    }
  }

  /** Ends the cut: forwarding goes on where it stopped. */
  resume(): void {
    this.cut = false;
    for (const link of this.links) {
      link.client.resume();
      link.server.resume();
    }
  }

  /** Ends the cut by destroying every connection (both sides see their socket close); new ones are forwarded again. */
  reset(): void {
    this.cut = false;
    for (const link of this.links) {
      link.client.destroy();
      link.server.destroy();
    }
    this.links.clear();
  }

  /**
   * The address moves to another server: connections from now on go to `host:port`. As a virtual
   * IP moves, every open connection is reset (the old server no longer owns the address, so what
   * a client sends on an old connection is answered with a reset); as a DNS name moves
   * (`keepConnections`), the open ones stay with the old server until their client closes them.
   */
  retarget(host: string, port: number, keepConnections = false): void {
    this.targetHost = host;
    this.targetPort = port;
    if (!keepConnections) this.reset();
  }

  async stop(): Promise<void> {
    this.reset();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private accept(client: Socket): void {
    const server = createConnection({ host: this.targetHost, port: this.targetPort });
    const link: Link = { client, server };
    this.links.add(link);
    // Forwarding by hand, so that a cut can stop it in both directions without ending anything.
    client.on('data', (chunk) => server.write(chunk));
    server.on('data', (chunk) => client.write(chunk));
    const close = (): void => {
      this.links.delete(link);
      client.destroy();
      server.destroy();
    };
    // One side closing (a crashed database, a replica's end) closes the other, as a real path would.
    client.on('close', close);
    server.on('close', close);
    client.on('error', () => undefined);
    server.on('error', () => undefined);
    if (this.cut) {
      client.pause();
      server.pause();
    }
  }
}
