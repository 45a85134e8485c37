import { fail, type MethodResult, type Params } from './params.ts';
import type { WorkspaceModel } from './workspace-model.ts';

type Handler = (params: Params, model: WorkspaceModel, baseUrl: string) => MethodResult;

export const directoryMethods: Record<string, Handler> = {
  'auth.test'(_params, model, baseUrl) {
    return {
      ok: true,
      url: baseUrl.replace(/api\/$/, ''),
      team: 'Fake',
      user: 'tandem',
      team_id: model.bot.teamId,
      user_id: model.bot.userId,
      bot_id: model.bot.botId,
    };
  },

  'usergroups.users.list'(params, model) {
    const users = model.usergroups.get(params.usergroup ?? '');
    if (!users) return fail('no_such_subteam');
    return { ok: true, users };
  },

  /** One page holds every member: tests never need a cursor. */
  'conversations.members'(params, model) {
    const channel = params.channel ?? '';
    if (!model.channels.has(channel)) return fail('channel_not_found');
    return { ok: true, members: model.membersOf(channel), response_metadata: { next_cursor: '' } };
  },

  'users.info'(params, model) {
    const user = model.users.get(params.user ?? '');
    if (!user) return fail('user_not_found');
    return { ok: true, user };
  },
};
