import { randomUUID } from 'node:crypto';
import { checkView } from './block-check.ts';
import { fail, jsonParam, type MethodResult, type Params } from './params.ts';
import type { FakeView, WorkspaceModel } from './workspace-model.ts';

type Handler = (params: Params, model: WorkspaceModel) => MethodResult;

/** A trigger id is good for 3 s after the click that made it (Slack's rule). */
export const TRIGGER_TTL_MS = 3000;

function readView(params: Params): { view: Record<string, unknown> } | MethodResult {
  const view = jsonParam(params, 'view');
  if (!view.ok) return fail('invalid_arguments', ['[ERROR] view is not valid JSON']);
  const problem = checkView(view.value);
  if (problem) return fail(problem.error, problem.messages);
  return { view: view.value as Record<string, unknown> };
}

function describe(view: FakeView): MethodResult {
  return { ok: true, view: { id: view.id, hash: view.hash, ...view.view } };
}

export function createViewMethods(triggers: Map<string, { user: string; at: number }>): Record<string, Handler> {
  return {
    'views.open'(params, model) {
      const trigger = params.trigger_id;
      if (!trigger) return fail('invalid_trigger_id');
      const issued = triggers.get(trigger);
      if (issued && Date.now() - issued.at > TRIGGER_TTL_MS) return fail('expired_trigger_id');
      const read = readView(params);
      if ('ok' in read) return read;
      const view: FakeView = { id: model.nextViewId(), hash: randomUUID(), user: issued?.user, view: read.view, updates: 0 };
      model.views.set(view.id, view);
      return describe(view);
    },

    'views.update'(params, model) {
      const view = model.views.get(params.view_id ?? '');
      if (!view) return fail('not_found');
      if (params.hash && params.hash !== view.hash) return fail('hash_conflict');
      const read = readView(params);
      if ('ok' in read) return read;
      view.view = read.view;
      view.hash = randomUUID();
      view.updates += 1;
      return describe(view);
    },

    'views.publish'(params, model) {
      const user = params.user_id;
      if (!user) return fail('invalid_arguments');
      const read = readView(params);
      if ('ok' in read) return read;
      const existing = model.homeTabs.get(user);
      const view: FakeView = { id: existing?.id ?? model.nextViewId(), hash: randomUUID(), user, view: read.view, updates: (existing?.updates ?? -1) + 1 };
      model.homeTabs.set(user, view);
      return describe(view);
    },
  };
}
