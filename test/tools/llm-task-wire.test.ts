/**
 * llm_task through the real SDKs against the fake model servers: it gives `{ text }` (CONTRACT §4) whether the model
 * answers with the JSON object asked for or, as a model without structured output does, with the text itself.
 */
import { describe, expect, it } from 'vitest';
import { createLlmTaskTool } from '../../src/integrations/tools/model/llm-task.ts';
import { anthropicReply } from '../fakes/anthropic-server.ts';
import { openAiReply } from '../fakes/openai-server.ts';
import { clientFor } from '../llm/helpers.ts';
import { fakeModelSettings, useFakeModels } from '../helpers/model-servers.ts';
import { errorOf, okOutput, runTool } from './tool-context.ts';

const models = useFakeModels();
const NOTES = 'Release notes\n\n- Fixed the login on Safari\n- Faster builds';

describe('llm_task on the wire', () => {
  it('gives the text of a JSON answer and of a plain one, on OpenAI and on Anthropic', async () => {
    const openai = createLlmTaskTool(clientFor({ ...fakeModelSettings(models), PLANNER_MODEL: 'openai:gpt-4o' }).client);
    models.openai.enqueue(openAiReply.json({ text: NOTES }), openAiReply.text(`  ${NOTES}\n`));
    expect(okOutput(await runTool(openai, { instruction: 'Write release notes' }))).toEqual({ text: NOTES });
    expect(okOutput(await runTool(openai, { instruction: 'Write release notes' }))).toEqual({ text: NOTES });

    const anthropic = createLlmTaskTool(clientFor({ ...fakeModelSettings(models), PLANNER_MODEL: 'anthropic:claude-sonnet-4-5' }).client);
    models.anthropic.enqueue(anthropicReply.json({ text: NOTES }), anthropicReply.text(NOTES));
    expect(okOutput(await runTool(anthropic, { instruction: 'Write release notes' }))).toEqual({ text: NOTES });
    expect(okOutput(await runTool(anthropic, { instruction: 'Write release notes' }))).toEqual({ text: NOTES });
  });

  it('an empty answer, a refusal or a cut-off answer is still a failed step, saying why', async () => {
    const tool = createLlmTaskTool(clientFor({ ...fakeModelSettings(models), PLANNER_MODEL: 'openai:gpt-4o' }).client);
    models.openai.enqueue(openAiReply.text('   '), openAiReply.refusal(), openAiReply.truncated('{"text": "Release'));
    expect(errorOf(await runTool(tool, { instruction: 'Write release notes' })).code).toBe('invalid-output');
    expect(errorOf(await runTool(tool, { instruction: 'Write release notes' })).code).toBe('refusal');
    expect(errorOf(await runTool(tool, { instruction: 'Write release notes' })).code).toBe('max-tokens');
  });
});
