// Loopback addresses, for who may use the control plane and where it may listen without an
// admin token, and what an admin token must be. Kept apart (no imports) so the CLI can check
// flags without loading the server.

export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return v4.startsWith('127.') || address === '::1';
}

/** Whether a host to listen on is loopback (an admin token is required otherwise). */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || isLoopbackAddress(host);
}

/** What an admin token must be (at least 8 characters, no spaces): false when it is not that. */
export function isAdminToken(token: string): boolean {
  return token.length >= 8 && !/\s/.test(token);
}
