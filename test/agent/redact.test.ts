import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { limitOutput } from '../../src/agent/text/output-limit.ts';
import { REDACTED, redactAndCut, redactText } from '../../src/agent/text/redact.ts';
import { dataBlock } from '../../src/agent/text/untrusted-data.ts';
import { truncate } from '../../src/integrations/tools/limits.ts';
import { createLogger } from '../../src/observability/logger.ts';

// Upper case, digits and the characters JSON escapes: no secret can be spelled from "[redacted]".
const secretChar = fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"\\\'/+=-_'.split(''));
const secretArb = fc.array(secretChar, { minLength: 8, maxLength: 40 }).map((chars) => chars.join(''));
const tokenArb = fc
  .constantFrom('ghp_', 'gho_', 'xoxb-', 'xapp-', 'sk-proj-', 'github_pat_')
  .chain((prefix) =>
    fc
      .array(fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'.split('')), { minLength: 24, maxLength: 48 })
      .map((chars) => `${prefix}${chars.join('')}`),
  );

/** Text a stranger controls, with the secrets and tokens spliced in at random places. */
const textWithSecrets = fc
  .record({
    secrets: fc.array(secretArb, { minLength: 1, maxLength: 3 }),
    tokens: fc.array(tokenArb, { maxLength: 2 }),
    pieces: fc.array(fc.string({ unit: 'binary', maxLength: 60 }), { minLength: 1, maxLength: 8 }),
  })
  .chain(({ secrets, tokens, pieces }) =>
    fc.array(fc.nat(), { minLength: secrets.length + tokens.length, maxLength: secrets.length + tokens.length }).map((spots) => {
      const parts = [...pieces];
      [...secrets, ...tokens].forEach((hidden, i) => parts.splice(spots[i]! % (parts.length + 1), 0, hidden));
      return { secrets, tokens, text: parts.join('') };
    }),
  );

function survivors(out: string, hidden: readonly string[]): string[] {
  return hidden.filter((value) => out.includes(value) || out.includes(JSON.stringify(value).slice(1, -1)));
}

describe('redaction', () => {
  it('no secret or token survives, wherever it was put and whatever surrounds it', () => {
    fc.assert(
      fc.property(textWithSecrets, ({ secrets, tokens, text }) => {
        expect(survivors(redactText(text, secrets), [...secrets, ...tokens])).toEqual([]);
      }),
      { numRuns: 500 },
    );
  });

  it('nor in a stored tool output, a model prompt block or a log line (JSON escapes quotes and backslashes)', () => {
    fc.assert(
      fc.property(textWithSecrets, ({ secrets, tokens, text }) => {
        const hidden = [...secrets, ...tokens];
        expect(survivors(JSON.stringify(limitOutput({ body: text, nested: { list: [text] } }, secrets)), hidden)).toEqual([]);
        expect(survivors(dataBlock('output of s1', { body: text }, secrets), hidden)).toEqual([]);
        const lines: string[] = [];
        const logger = createLogger({ level: 'info', secrets, destination: { write: (line: string) => void lines.push(line) } });
        logger.info({ body: text, err: new Error(text) }, text);
        expect(survivors(lines.join(''), hidden)).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  it('a secret that straddles the cut is still redacted, and the cut is noted', () => {
    const secret = 'S3CR"T\\VALUE-0123456789';
    for (let at = 3_990; at < 4_010; at += 1) {
      const text = `${'x'.repeat(at)}${secret}${'y'.repeat(10_000)}`;
      const out = redactAndCut(text, [secret], 4_000);
      expect(out).not.toContain(secret.slice(0, 8));
      expect(out).toMatch(/more characters cut\]$/);
    }
  });

  it("a tool cutting a stranger's body (a PR body) never leaves half a token at the cut", () => {
    const token = 'ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
    for (let at = 1_980; at < 2_000; at += 1) {
      const body = truncate(`${'x'.repeat(at)}${token} and more`, 2_000)!;
      expect(body).not.toContain(token.slice(0, 12));
      expect(body.length).toBeLessThan(2_100);
    }
  });

  it('a private key is redacted from BEGIN to END, and to the end of the text when END was cut off', () => {
    const key = '-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----';
    expect(redactText(`before ${key} after`)).toBe(`before ${REDACTED} after`);
    expect(redactText(`before -----BEGIN EC PRIVATE KEY-----\nMIIEpAIBAAKCAQEA secret`)).toBe(`before ${REDACTED}`);
  });

  it('takes linear time on hostile input: 1 MB costs about ten times 100 KB, not a hundred', () => {
    const hostile = (size: number) => {
      const unit = '-----BEGIN RSA PRIVATE KEY----- ghp_short sk- xoxb- ';
      return unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
    };
    const secrets = ['AAAAAAAAAAAAB'];
    const time = (text: string) => {
      let best = Infinity;
      for (let i = 0; i < 3; i += 1) {
        const started = performance.now();
        redactText(text, secrets);
        redactText('A'.repeat(text.length), secrets);
        best = Math.min(best, performance.now() - started);
      }
      return best;
    };
    time(hostile(100_000)); // warm up the JIT, so the first measurement is not the slow one
    const small = time(hostile(100_000));
    const large = time(hostile(1_000_000));
    // Quadratic (the old PEM pattern: 460 ms for 160 KB, ~18 s for 1 MB) is ~100 times. The floor keeps
    // a few milliseconds of noise on the small run from deciding the ratio.
    expect(large).toBeLessThan(40 * Math.max(small, 5));
  });
});
