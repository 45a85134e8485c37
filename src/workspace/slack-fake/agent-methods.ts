import { fail, type MethodResult, type Params } from './params.ts';
import type { WorkspaceModel } from './workspace-model.ts';

type Handler = (params: Params, model: WorkspaceModel) => MethodResult;

const SESSION_STATUSES = new Set(['active', 'processing', 'suspended', 'closed']);

/**
 * Slack's agent surfaces. A workspace where the app is not an agent app answers as Slack does for a
 * scope the app lacks; `model.agentFeatures` turns each on.
 */
export const agentMethods: Record<string, Handler> = {
  'assistant.threads.setStatus'(params, model) {
    if (!model.agentFeatures.threadStatus) return fail('missing_scope');
    if (!params.channel_id || !params.thread_ts) return fail('invalid_arguments');
    if (params.status === undefined) return fail('invalid_arguments');
    model.threadStatusLog.push({ channel: params.channel_id, threadTs: params.thread_ts, status: params.status });
    model.threadStatus.set(`${params.channel_id}:${params.thread_ts}`, params.status);
    return { ok: true };
  },

  'agents.sessions.setStatus'(params, model) {
    if (!model.agentFeatures.sessions) return fail('not_allowed_token_type');
    if (!params.channel_id || !params.status || !SESSION_STATUSES.has(params.status)) return fail('invalid_arguments');
    model.sessionLog.push({ channel: params.channel_id, threadTs: params.thread_ts, status: params.status });
    return { ok: true };
  },
};
