// A forward proxy's answer to CONNECT: a tunnel to a loopback port, both ways, each side
// closed with the other. Which port is the test's choice (the one CONNECT names, or the
// emulator's for a name that does not resolve here).
import { connect } from 'node:net';
import type { Duplex } from 'node:stream';

export function openTunnel(socket: Duplex, head: Buffer, port: number, host = '127.0.0.1'): void {
  const upstream = connect(port, host, () => {
    socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    upstream.write(head);
    upstream.pipe(socket);
    socket.pipe(upstream);
  });
  upstream.on('error', () => socket.destroy());
  socket.on('error', () => upstream.destroy());
}
