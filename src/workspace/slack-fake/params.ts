/** Web API params arrive form-encoded; structured fields (blocks, view, metadata) are JSON strings. */
export type Params = Record<string, string>;

export function jsonParam(params: Params, name: string): { ok: true; value: unknown } | { ok: false } {
  const raw = params[name];
  if (raw === undefined || raw === '') return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(raw) };
  } catch {
    return { ok: false };
  }
}

export type MethodResult = Record<string, unknown> & { ok: boolean };

export function fail(error: string, messages?: string[]): MethodResult {
  return messages ? { ok: false, error, response_metadata: { messages } } : { ok: false, error };
}
