/** A PolicyQuestion as Cedar's request: the principal with its groups, the resource entity, the context. */
import type * as cedar from '@cedar-policy/cedar-wasm/nodejs';
import type { PolicyQuestion, PolicyResource } from '../agent/ports/policy.ts';

type Request = Omit<cedar.StatefulAuthorizationCall, 'preparsedPolicySetId'>;

const user = (id: string) => ({ type: 'User', id });

export function requestOf(question: PolicyQuestion): Request {
  const { situation } = question;
  const resource = resourceEntity(question.resource);
  const entities: cedar.EntityJson[] = [
    { uid: user(question.user), attrs: {}, parents: question.groups.map((id) => ({ type: 'Group', id })) },
    ...question.groups.map((id) => ({ uid: { type: 'Group', id }, attrs: {}, parents: [] })),
    resource,
  ];
  for (const other of [situation.requester, ...referencedUsers(question.resource)])
    if (!entities.some((entity) => 'type' in entity.uid && entity.uid.type === 'User' && entity.uid.id === other))
      entities.push({ uid: user(other), attrs: {}, parents: [] });
  return {
    principal: user(question.user),
    action: { type: 'Action', id: question.action },
    resource: resource.uid,
    context: {
      requester: { __entity: user(situation.requester) },
      channel: situation.channel,
      confidence: Math.round((situation.confidence ?? 1) * 100),
      planVersion: situation.planVersion ?? 0,
      digest: situation.digest ?? '',
      escalated: situation.escalated ?? false,
    },
    entities,
  };
}

function referencedUsers(resource: PolicyResource): string[] {
  if (resource.kind === 'run') return [resource.requester];
  if (resource.kind === 'schedule') return [resource.createdBy];
  return [];
}

function resourceEntity(resource: PolicyResource): cedar.EntityJson & { uid: cedar.TypeAndId } {
  switch (resource.kind) {
    case 'step': {
      const { id, ...attrs } = resource.step;
      return { uid: { type: 'Step', id }, attrs, parents: [] };
    }
    case 'run':
      return { uid: { type: 'Run', id: resource.runId }, attrs: { requester: { __entity: user(resource.requester) }, channel: resource.channel }, parents: [] };
    case 'schedule':
      return {
        uid: { type: 'Schedule', id: resource.scheduleId },
        attrs: { channel: resource.channel, createdBy: { __entity: user(resource.createdBy) }, intervalSeconds: resource.intervalSeconds },
        parents: [],
      };
  }
}
