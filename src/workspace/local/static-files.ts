import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';

const PAGE_DIR = new URL('./page/', import.meta.url);

/** The page's files by URL path; nothing else on disk is reachable. */
const FILES: Record<string, { file: string; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/index.html': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/blocks.js': { file: 'blocks.js', type: 'text/javascript; charset=utf-8' },
  '/modal.js': { file: 'modal.js', type: 'text/javascript; charset=utf-8' },
  '/demo.js': { file: 'demo.js', type: 'text/javascript; charset=utf-8' },
  '/demo.css': { file: 'demo.css', type: 'text/css; charset=utf-8' },
  '/mrkdwn.js': { file: 'mrkdwn.js', type: 'text/javascript; charset=utf-8' },
  '/style.css': { file: 'style.css', type: 'text/css; charset=utf-8' },
};

export function isPageFile(path: string): boolean {
  return Object.hasOwn(FILES, path);
}

export async function servePageFile(path: string, res: ServerResponse, headers: Record<string, string> = {}): Promise<void> {
  const entry = FILES[path];
  if (!entry) {
    res.writeHead(404).end();
    return;
  }
  const body = await readFile(new URL(entry.file, PAGE_DIR));
  // The page is a local tool: forbid framing and inline script so a stray string cannot run as code.
  res.writeHead(200, {
    ...headers,
    'content-type': entry.type,
    'cache-control': 'no-store',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'content-security-policy': "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'",
  });
  res.end(body);
}
