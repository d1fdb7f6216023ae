import net from 'node:net';

/** A TCP port on 127.0.0.1 that nothing listened on a moment ago (the kernel's pick), for a process to be started on. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
