/**
 * DATABASE_URL checked the way the postgres driver (postgres.js) will read it, so a URL it cannot open
 * stops start-up with one line here instead of a stack trace from the driver. The driver takes a
 * comma-separated list of hosts, parses the URL with the first one, and percent-decodes the hosts, the
 * user and the password. No message repeats any part of the URL: it holds the password.
 */
const DATABASE_URL_FORM = 'expected a postgres://user:password@host:port/db URL';

const BAD_ESCAPE = 'has a % not followed by two hex digits (write a literal % as %25)';

export function databaseUrlProblem(url: string): string | undefined {
  if (!/^postgres(ql)?:\/\//.test(url)) return DATABASE_URL_FORM;
  const authorityStart = url.indexOf('://') + 3;
  const authority = url.slice(authorityStart).split(/[?/]/)[0]!;
  // As the driver splits it: the hosts are what follows the first @.
  const hostsStart = authorityStart + authority.indexOf('@') + 1;
  const hosts = authority.slice(hostsStart - authorityStart);
  if (!decodes(hosts)) return `${DATABASE_URL_FORM}; the host ${BAD_ESCAPE}`;
  for (const host of hosts.split(',')) {
    const singleHostUrl = url.slice(0, hostsStart) + host + url.slice(hostsStart + hosts.length);
    const problem = hostProblem(host) ?? parsedProblem(singleHostUrl);
    if (problem) return problem;
  }
  return undefined;
}

/** A port, when given, is a TCP port in decimal: `host:abc` would otherwise surface as "Invalid URL". */
function hostProblem(host: string): string | undefined {
  const port = /^(?:\[[^\]]*\]|[^:]*):(.*)$/.exec(host)?.[1];
  if (port === undefined || port === '') return undefined;
  if (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535) return `${DATABASE_URL_FORM}; the port must be a number from 1 to 65535`;
  return undefined;
}

function parsedProblem(singleHostUrl: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(singleHostUrl);
  } catch {
    return `${DATABASE_URL_FORM}; it does not parse (percent-encode special characters in the user name and password)`;
  }
  if (!decodes(parsed.username) || !decodes(parsed.password)) return `${DATABASE_URL_FORM}; the user name or password ${BAD_ESCAPE}`;
  return undefined;
}

function decodes(text: string): boolean {
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}
