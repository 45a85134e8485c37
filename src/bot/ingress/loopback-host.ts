import type { RequestListener } from 'node:http';

/**
 * In local mode the bot's port is for this machine only. It listens on 127.0.0.1, but a web page can
 * still reach it through a DNS name of its own rebound to 127.0.0.1; its requests then say that name
 * in `Host`. Only requests addressed to 127.0.0.1 or localhost get through (Slack's route is signed as
 * well; /healthz and /metrics are not).
 */
export function loopbackHostOnly(next: RequestListener): RequestListener {
  return (req, res) => {
    const host = hostnameOf(req.headers.host);
    if (host === '127.0.0.1' || host === 'localhost') return next(req, res);
    res.writeHead(403, { 'content-type': 'text/plain; charset=utf-8' });
    res.end('In local mode this port answers only requests addressed to 127.0.0.1.\n');
  };
}

function hostnameOf(host: string | undefined): string {
  try {
    return new URL(`http://${host ?? ''}`).hostname;
  } catch {
    return '';
  }
}
