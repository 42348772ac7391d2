import net from 'node:net';

/** Listens on `port` (0 = any) on loopback and returns the port it got, or null if it is taken. */
function tryListen(port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(null));
    s.listen(port, '127.0.0.1', () => {
      const got = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(got));
    });
  });
}

export async function isPortFree(port: number): Promise<boolean> {
  return (await tryListen(port)) !== null;
}

/** A free port: `preferred` when it is free, else one the OS picks. */
export async function freePort(preferred = 0): Promise<number> {
  return (await tryListen(preferred)) ?? (await tryListen(0))!;
}
