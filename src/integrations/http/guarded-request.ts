import { promises as dns, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { namesInternalAddress } from './allow-list.ts';
import { readBounded, type BoundedBody } from './bounded-body.ts';
import { isInternalAddress } from './internal-address.ts';

/** The host resolved to an address inside the operator's network that the allow-list does not name. */
export class AddressRefusedError extends Error {
  readonly code = 'address-not-allowed';
  constructor(host: string, address: string) {
    super(`${host} resolves to ${address}, an internal address; add ${address.includes(':') ? `[${address}]` : address} to TANDEM_HTTP_ALLOW to reach it`);
  }
}

/** Name to addresses; the system resolver unless a test gives a fake one. */
export type Resolver = (hostname: string, family: number) => Promise<LookupAddress[]>;

const systemResolver: Resolver = (hostname, family) => dns.lookup(hostname, { all: true, family });

export interface GuardedResponse {
  status: number;
  body: BoundedBody | undefined;
}

/**
 * One request to an already allow-listed URL. The address is checked after DNS answers, and the
 * socket connects to the address that was checked (the lookup hands it over), so a name that
 * answers a public address to a check and an internal one to the connect gets nowhere.
 * Redirects are not followed: they could lead off the allow-list.
 */
export async function guardedRequest(
  url: URL,
  options: { method: 'GET' | 'HEAD'; allow: readonly string[]; signal: AbortSignal; maxBodyBytes?: number; resolve?: Resolver | undefined },
): Promise<GuardedResponse> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) && isInternalAddress(host) && !namesInternalAddress(url, host, options.allow)) throw new AddressRefusedError(url.hostname, host);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    const request = send(
      url,
      {
        method: options.method,
        agent: false,
        lookup: checkedLookup(url, options.allow, options.resolve ?? systemResolver),
        signal: options.signal,
        headers: { 'user-agent': 'tandem-http-check' },
      },
      resolve,
    );
    request.on('error', reject);
    request.end();
  });
  if (options.maxBodyBytes === undefined || options.method === 'HEAD') {
    response.destroy();
    return { status: response.statusCode ?? 0, body: undefined };
  }
  return { status: response.statusCode ?? 0, body: await readBounded(response, options.maxBodyBytes) };
}

function checkedLookup(url: URL, allow: readonly string[], resolve: Resolver): LookupFunction {
  return (hostname, lookupOptions, callback) => {
    const answer = callback as unknown as (error: Error | null, address: string | LookupAddress[], family?: number) => void;
    resolve(hostname, lookupOptions.family === 4 || lookupOptions.family === 6 ? lookupOptions.family : 0).then(
      (addresses) => {
        // Every answer is checked, not only the first: the connect may try any of them.
        const refused = addresses.find((entry) => isInternalAddress(entry.address) && !namesInternalAddress(url, entry.address, allow));
        if (refused) return answer(new AddressRefusedError(hostname, refused.address), '');
        if (!addresses.length) return answer(Object.assign(new Error(`${hostname}: no address`), { code: 'ENOTFOUND' }), '');
        if (lookupOptions.all) return answer(null, addresses);
        answer(null, addresses[0]!.address, addresses[0]!.family);
      },
      (error: Error) => answer(error, ''),
    );
  };
}
