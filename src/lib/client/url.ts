// URLs as they may be printed: a base URL or a proxy URL can carry a password, and
// nothing the CLI writes (errors, traces, tables) may show one.

/** `url` with a password replaced by `***` (a user name stays), even in one that does not parse (a mistyped proxy). */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    if (!u.password) return url;
    u.password = '***';
    return u.toString();
  } catch {
    return url.replace(/\/\/([^/@:]*):[^/@]*@/, '//$1:***@');
  }
}
