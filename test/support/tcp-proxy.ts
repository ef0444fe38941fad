/**
 * A loopback TCP proxy to Temporal, for tests that break or delay the connection: `close()`
 * drops every connection, `listen()` (again) takes new ones on the same port.
 */
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

export interface TcpProxy {
  /** `127.0.0.1:<port>`: give it to a Tollgate as its Temporal address. */
  address: string;
  port: number;
  listen(): Promise<void>;
  /** Stops listening and destroys the connections in flight. */
  close(): Promise<void>;
}

/** A proxy to `target` (`host:port`) on `port` (0: a free one), listening unless `listening: false`. */
export async function startTcpProxy(
  target: string,
  options: { port?: number; listening?: boolean } = {},
): Promise<TcpProxy> {
  const [host, targetPort] = target.split(':') as [string, string];
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  };
  const server = createServer((inbound) => {
    const outbound = connect(Number(targetPort), host);
    inbound.pipe(outbound).pipe(inbound);
    track(inbound);
    track(outbound);
  });
  let port = options.port ?? 0;
  const proxy: TcpProxy = {
    get address() {
      return `127.0.0.1:${port}`;
    },
    get port() {
      return port;
    },
    listen: () =>
      new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => {
          server.off('error', reject);
          port = (server.address() as AddressInfo).port;
          resolve();
        });
      }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        if (!server.listening) return resolve();
        server.close(() => resolve());
      }),
  };
  if (options.listening !== false) await proxy.listen();
  return proxy;
}
