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
