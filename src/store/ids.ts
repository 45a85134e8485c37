import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32: short, unambiguous when typed in `/tandem cancel`

/** `run_k3x9…`: a prefix says what it names; time-ordered head so ids sort roughly by creation. */
export function newId(prefix: string): string {
  let time = Date.now();
  let head = '';
  for (let i = 0; i < 7; i++) {
    head = ALPHABET[time % 32] + head;
    time = Math.floor(time / 32);
  }
  const bytes = randomBytes(5);
  let tail = '';
  for (const byte of bytes) tail += ALPHABET[byte % 32];
  return `${prefix}_${head}${tail}`;
}

/** A W3C trace-context trace id (32 hex digits, never all zeros): the run's trace, stored with it. */
export function newTraceId(): string {
  return nonZeroHex(16);
}

/** A W3C trace-context span id (16 hex digits, never all zeros): the run's root span. */
export function newSpanId(): string {
  return nonZeroHex(8);
}

function nonZeroHex(bytes: number): string {
  for (;;) {
    const hex = randomBytes(bytes).toString('hex');
    if (/[^0]/.test(hex)) return hex;
  }
}
