/**
 * A run as an OpenTelemetry trace, as a collector receives it: `tandem start` with OTEL_EXPORTER_OTLP_ENDPOINT
 * pointed at a loopback OTLP/HTTP receiver, one run through to its summary, and one run killed with
 * SIGKILL mid-step and resumed by the next process. The span tree of the first run is printed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOtlpReceiver, spanTree, type OtlpReceiver, type ReceivedSpan } from '../fakes/otlp-receiver.ts';
import { openAiReply } from '../fakes/openai-server.ts';
import { botMessages, clickByText, messageWithButtons, poll, startTandemProcess, visibleText, waitFor } from './harness.ts';
import { plan, step } from './plans.ts';
import { useStack } from './stack.ts';
import { runTandem } from '../cli/tandem-process.ts';

let receiver: OtlpReceiver;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
});
afterAll(async () => {
  await receiver?.close();
});
// Registered after the receiver's hook, so its env can name the receiver.
const stack = useStack({ env: () => ({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '50', OTEL_SERVICE_NAME: 'tandem-test' }) });

const TASK = 'check the api quietly and tell C71 it is fine';

/** The spans of one run, found by the run id every span carries. */
function runSpans(runId: string): ReceivedSpan[] {
  return receiver.spans.filter((span) => span.attributes['tandem.run.id'] === runId);
}

async function rootOf(match: (root: ReceivedSpan) => boolean, what: string): Promise<ReceivedSpan> {
  return poll(() => receiver.spans.find((span) => span.name === 'run' && match(span)), what, 30_000);
}

/** Each span once, labelled for the printed tree (the timing left out, so the tree reads the same each time). */
const label = (span: ReceivedSpan) => {
  const a = span.attributes;
  const facts = [
    a['tandem.wait.answered_by'] && `answered by ${String(a['tandem.wait.answered_by'])}`,
    a['gen_ai.request.model'] && `model ${String(a['gen_ai.request.model'])}`,
    a['gen_ai.usage.input_tokens'] !== undefined && `tokens ${String(a['gen_ai.usage.input_tokens'])} in / ${String(a['gen_ai.usage.output_tokens'])} out`,
    a['tandem.step.status'] && String(a['tandem.step.status']),
    a['tandem.run.outcome'] && String(a['tandem.run.outcome']),
    a['error.type'] && `error ${String(a['error.type'])}`,
  ].filter(Boolean);
  return `${span.name}${facts.length ? `  [${facts.join(', ')}]` : ''}`;
};

describe('a run is one trace', () => {
  let runId: string;

  it('from the mention to the summary: planning, the plan, the wait for approval, each step, tool and model call', async () => {
    // The planner's structured answer, so the model call succeeds with its usage (an artifact-shaped answer is an invalid-output the planner salvages).
    const answer = {
      goal: 'Check the API and say so',
      confidence: 0.9,
      steps: [
        { id: 's1', title: 'Check the API', tool: 'http_check', argsJson: JSON.stringify({ url: `${stack.targetUrl}/ok` }), dependsOn: [], expect: null },
        {
          id: 's2',
          title: 'Tell the channel',
          tool: 'slack_notify',
          argsJson: JSON.stringify({ channel: 'C71', text: 'the API is fine' }),
          dependsOn: ['s1'],
          expect: null,
        },
      ],
      rollback: [],
      questions: [],
    };
    stack.openai.enqueue(openAiReply.json(answer, { inputTokens: 321, outputTokens: 45 }));
    const sent = stack.tandem.driver.mention({ channel: 'C70', user: 'U1', text: `<@UBOT> ${TASK}` });
    expect((await sent).status).toBe(200);
    const thread = sent.ts;
    const planMessage = await waitFor(stack.slack, () => messageWithButtons(stack.slack, 'C70', thread, 'Approve', 'Modify', 'Reject'), 'the plan');
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2');
    await waitFor(stack.slack, () => botMessages(stack.slack, 'C70', thread).some((m) => /succeeded/i.test(visibleText(m))), 'the summary');
    const root = await rootOf(() => true, 'the run span');
    runId = String(root.attributes['tandem.run.id']);
    // Children recorded before the root are exported before it; wait until the tool calls are in too.
    await poll(() => runSpans(runId).filter((s) => s.name.startsWith('execute_tool')).length === 2, 'both tool calls');

    const tree = spanTree(receiver.spans, root.traceId, label);
    console.log(`span tree of ${runId} (trace ${root.traceId}):\n${tree}`);
    expect(tree).toBe(
      [
        'run  [succeeded]',
        '  planning',
        '    chat gpt-4o  [model gpt-4o, tokens 321 in / 45 out]',
        '  plan v1',
        '    wait approval  [answered by U2]',
        '    step s1  [succeeded]',
        '      execute_tool http_check',
        '    step s2  [succeeded]',
        '      execute_tool slack_notify',
      ].join('\n'),
    );
    const spans = receiver.spans.filter((s) => s.traceId === root.traceId);
    expect(new Set(spans.map((s) => s.service))).toEqual(new Set(['tandem-test']));
    const chat = spans.find((s) => s.name.startsWith('chat'))!;
    expect(chat.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.system': 'openai',
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.response.finish_reasons': ['stop'],
      'tandem.llm.role': 'planner',
    });
    // Nothing of the prompt or the task is on any span unless TANDEM_TRACE_CONTENT=on.
    expect(JSON.stringify(spans.map((s) => s.attributes))).not.toContain('quietly');
    expect(receiver.rejected).toEqual([]);
  }, 90_000);

  it('survives kill -9 mid-step: the next process continues the same trace, and every span finds its parent', async () => {
    const { thread, planMessage } = await stack.planned(
      'C72',
      'U1',
      'check, wait, tell',
      plan('Check, wait, tell', [
        step('s1', 'Check the API', 'http_check', { url: `${stack.targetUrl}/ok` }),
        step('s2', 'Wait a while', 'wait', { seconds: 3 }, ['s1']),
        step('s3', 'Tell the channel', 'slack_notify', { channel: 'C73', text: 'done after a restart' }, ['s2']),
      ]),
    );
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2');
    // The first process has exported s1's span before it dies.
    const s1 = await poll(() => receiver.spans.find((s) => s.name === 'step s1' && s.attributes['tandem.run.id'] !== runId), 'step s1 exported', 30_000);
    const secondRun = String(s1.attributes['tandem.run.id']);
    stack.tandem.tandem.child.kill('SIGKILL');
    await stack.tandem.tandem.exited;
    stack.tandem = await startTandemProcess(stack.env, stack.cwd, stack.slack);
    await waitFor(
      stack.slack,
      () => botMessages(stack.slack, 'C72', thread).some((m) => /succeeded/i.test(visibleText(m))),
      'the summary after restart',
      30_000,
    );
    const root = await rootOf((span) => span.attributes['tandem.run.id'] === secondRun, 'the resumed run span');
    await poll(() => runSpans(secondRun).some((s) => s.name === 'execute_tool slack_notify'), 's3 tool call');

    expect(root.traceId).toBe(s1.traceId);
    expect(new Set(runSpans(secondRun).map((s) => s.traceId))).toEqual(new Set([s1.traceId]));
    const tree = spanTree(receiver.spans, root.traceId, label);
    console.log(`span tree of ${secondRun} across the kill -9 (trace ${root.traceId}):\n${tree}`);
    expect(tree, tree).not.toContain('parent missing');
    expect(tree.split('\n')[0]).toBe('run  [succeeded]');
    expect(tree).toMatch(/ {2}plan v1\n {4}wait approval {2}\[answered by U2\]\n {4}step s1 {2}\[succeeded\]\n {6}execute_tool http_check/);
    expect(tree).toMatch(/ {4}step s3 {2}\[succeeded\]\n {6}execute_tool slack_notify/);
    // The attempt the kill cut short is in the tree, ended by the process that found it; the next attempt ran to the end.
    const s2 = runSpans(secondRun)
      .filter((s) => s.name === 'step s2')
      .map((s) => [s.attributes['tandem.step.attempt'], s.attributes['tandem.step.status']]);
    expect(s2.sort()).toEqual([
      [1, 'cancelled'],
      [2, 'succeeded'],
    ]);
  }, 120_000);

  it('tandem show prints the trace id', async () => {
    const root = receiver.spans.find((span) => span.name === 'run' && span.attributes['tandem.run.id'] === runId)!;
    await stack.tandem.stop(); // an embedded store has one owner at a time
    const cli = runTandem(['show', runId], stack.env, stack.cwd);
    expect(await cli.exited).toBe(0);
    expect(cli.stdout()).toContain(`trace ${root.traceId}`);
  }, 30_000);
});
