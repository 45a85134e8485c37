import { isIP } from 'node:net';
import { ALLOW_ENTRY_PATTERN } from '../../config/http-allow-entry.ts';

/**
 * One TANDEM_HTTP_ALLOW entry: `host` (any port of that host: the setting lists hosts), `host:port` (that port
 * only), or `host:*` (any port, said on purpose). Hosts match exactly: `api.example.com` does not let
 * `evil.api.example.com` through. IPv6 addresses are written in brackets (`[::1]:8080`).
 */
interface AllowEntry {
  host: string;
  port: number | 'any';
}

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

export function parseAllowEntry(entry: string): AllowEntry {
  const text = entry.trim().toLowerCase();
  const match = ALLOW_ENTRY_PATTERN.exec(text);
  if (!match) return { host: text, port: 'any' };
  const port = match[2] === undefined || match[2] === '*' ? 'any' : Number(match[2]);
  return { host: match[1]!, port };
}

/** The port a URL reaches, with the scheme's default filled in. */
export function effectivePort(url: URL): number {
  return url.port ? Number(url.port) : (DEFAULT_PORTS[url.protocol] ?? 0);
}

function entryAllows(entry: AllowEntry, url: URL): boolean {
  if (entry.host !== url.hostname.toLowerCase()) return false;
  return entry.port === 'any' || effectivePort(url) === entry.port;
}

export function isAllowedHost(url: URL, allow: readonly string[]): boolean {
  return allow.some((entry) => entryAllows(parseAllowEntry(entry), url));
}

/**
 * Whether the operator wrote an internal address down on purpose: the URL's host is an IP literal or
 * `localhost` that an entry allows, or an entry names the very address the host resolved to.
 */
export function namesInternalAddress(url: URL, address: string, allow: readonly string[]): boolean {
  const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if ((isIP(host) || host === 'localhost') && isAllowedHost(url, allow)) return true;
  return allow.some((entry) => parseAllowEntry(entry).host.replace(/^\[|\]$/g, '') === address.toLowerCase());
}
