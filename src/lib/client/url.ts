// URLs as they may be printed: a base URL or a proxy URL can carry a password, and
// nothing the CLI writes (errors, traces, tables) may show one.

/** `url` with a password replaced by `***` (a user name stays); anything unparsable as given. */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    if (!u.password) return url;
    u.password = '***';
    return u.toString();
  } catch {
    return url;
  }
}

/** The base URL without credentials (a proxy-style `user:pass@` never reaches a file). */
export function publicUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.toString().replace(/\/$/, '');
  } catch {
    return '';
  }
}
