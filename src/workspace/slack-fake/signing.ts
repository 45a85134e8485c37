import { createHmac } from 'node:crypto';

/**
 * Slack's request signature: HMAC-SHA256 of `v0:{timestamp}:{raw body}` with the signing secret,
 * sent as `X-Slack-Signature: v0=<hex>` beside `X-Slack-Request-Timestamp` (seconds).
 */
export function slackSignatureHeaders(input: { signingSecret: string; body: string; timestampS?: number }): Record<string, string> {
  const timestamp = String(input.timestampS ?? Math.floor(Date.now() / 1000));
  const signature = createHmac('sha256', input.signingSecret).update(`v0:${timestamp}:${input.body}`).digest('hex');
  return { 'x-slack-request-timestamp': timestamp, 'x-slack-signature': `v0=${signature}` };
}
