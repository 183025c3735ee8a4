// Loopback addresses, for who may use the control plane and where it may listen without an
// admin token. Kept apart (no imports) so the CLI can check flags without loading the server.

export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return v4.startsWith('127.') || address === '::1';
}

/** Whether a host to listen on is loopback (an admin token is required otherwise). */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || isLoopbackAddress(host);
}
