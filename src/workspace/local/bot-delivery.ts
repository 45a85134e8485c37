import type { DriverResponse } from '../slack-fake/driver.ts';

export type Delivery = { ok: true; body: unknown } | { ok: false; error: string };

/** Sends one signed request to the bot and says, in words for the person, what went wrong if it did. */
export async function deliver(eventsUrl: string, send: () => Promise<DriverResponse>): Promise<Delivery> {
  let response: DriverResponse;
  try {
    response = await send();
  } catch (error) {
    const reason = error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
    return { ok: false, error: `Could not reach the bot at ${eventsUrl} (${reason}). Is Tandem still running?` };
  }
  if (response.status === 200) return { ok: true, body: response.body };
  if (response.status === 401)
    return { ok: false, error: 'The bot refused the request signature (HTTP 401): the workspace and the bot must use the same signing secret.' };
  return { ok: false, error: `The bot answered HTTP ${response.status}; see its log for why.` };
}

export const NOT_CONNECTED =
  'Tandem is not connected to this workspace yet. It connects when the bot has started; if this stays, check the terminal where you ran `npm start`.';
