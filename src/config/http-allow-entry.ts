/** How a TANDEM_HTTP_ALLOW entry is written; the http tools' allow-list reads entries by the same pattern. */
export const ALLOW_ENTRY_PATTERN = /^(\[[^\]]+\]|[^:]+)(?::(\*|\d{1,5}))?$/;
const HOST_PATTERN = /^(?:\[[0-9a-f:.]+\]|[a-z0-9_-]+(?:\.[a-z0-9_-]+)*\.?)$/;

/**
 * Whether an entry can ever match a URL: a host written as a URL's hostname reads once parsed (no
 * scheme, path or wildcard; IPv6 in brackets; an IPv4 address in plain dotted form) and a port, if
 * any, of 1-65535 or `*`. `https://status.example.com` would otherwise be kept and allow nothing.
 */
export function isWellFormedAllowEntry(entry: string): boolean {
  const match = ALLOW_ENTRY_PATTERN.exec(entry.trim().toLowerCase());
  if (!match) return false;
  const [, host, port] = match;
  if (port !== undefined && port !== '*' && !(Number(port) >= 1 && Number(port) <= 65535)) return false;
  return HOST_PATTERN.test(host!) && urlHostname(host!) === host;
}

function urlHostname(host: string): string | undefined {
  try {
    return new URL(`http://${host}/`).hostname;
  } catch {
    return undefined;
  }
}
