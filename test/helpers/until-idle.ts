/**
 * "Nothing more happens", shown by waiting for it instead of sleeping: a `tandem start` process reports on
 * /metrics what it still has to do without anyone acting (`tandem_work_in_hand{kind}`: its background
 * planning, driving and delivering, requests acknowledged and not yet handled, messages owed and not yet in
 * Slack). Once all of it is 0 — twice, a moment apart, so work handed from one kind to the next is not missed —
 * whatever the process was going to do on its own is done, and a test asserts that nothing else was posted or
 * run. A behaviour that breaks by doing too much is still caught: the extra work keeps the process busy until
 * it has done it, and the assertion after this wait sees it.
 */

const QUIET_READS = 2;
const READ_EVERY_MS = 100;
/** background, inbox, owed (src/runtime/work-in-hand.ts). */
const KINDS = 3;

/** `baseUrl`: the process's HTTP address (http://127.0.0.1:PORT). */
export async function untilIdle(baseUrl: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let quiet = 0;
  let last = '';
  for (;;) {
    last = await workInHand(baseUrl);
    quiet = last === '' ? quiet + 1 : 0;
    if (quiet >= QUIET_READS) return;
    if (Date.now() > deadline) throw new Error(`the process did not become idle within ${timeoutMs} ms; still in hand: ${last}`);
    await new Promise((resolve) => setTimeout(resolve, READ_EVERY_MS));
  }
}

/** The kinds of work in hand that are not 0, e.g. "background=1 owed=2"; '' when idle. */
async function workInHand(baseUrl: string): Promise<string> {
  const response = await fetch(`${baseUrl}/metrics`);
  const text = await response.text();
  const kinds = [...text.matchAll(/^tandem_work_in_hand\{kind="(\w+)"\} (\S+)$/gm)];
  if (!response.ok) throw new Error(`/metrics answered HTTP ${response.status}`);
  // The store's two are left out while it does not answer: not idle.
  if (kinds.length < KINDS) return `only ${kinds.map(([, kind]) => kind).join(', ') || 'none'} reported`;
  return kinds
    .filter(([, , value]) => Number(value) !== 0)
    .map(([, kind, value]) => `${kind}=${value}`)
    .join(' ');
}
