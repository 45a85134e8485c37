import { afterEach, beforeEach } from 'vitest';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic-server.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../fakes/openai-server.ts';

/**
 * A fake OpenAI and a fake Anthropic server on 127.0.0.1, fresh for every test of the calling file (nothing a
 * test enqueued or received is left for the next). Call at the top level of a test file; read them inside tests.
 */
export function useFakeModels(): { readonly openai: FakeOpenAi; readonly anthropic: FakeAnthropic } {
  let servers: { openai: FakeOpenAi; anthropic: FakeAnthropic } | undefined;
  beforeEach(async () => {
    const [openai, anthropic] = await Promise.all([startFakeOpenAi(), startFakeAnthropic()]);
    servers = { openai, anthropic };
  });
  afterEach(async () => {
    await Promise.all([servers?.openai.close(), servers?.anthropic.close()]);
    servers = undefined;
  });
  const ready = () => {
    if (!servers) throw new Error('useFakeModels: the servers run only inside tests and their hooks');
    return servers;
  };
  return {
    get openai() {
      return ready().openai;
    },
    get anthropic() {
      return ready().anthropic;
    },
  };
}

/** The settings that point both model clients at the fake servers, with test keys; the models to use are the caller's. */
export function fakeModelSettings(models: { readonly openai: FakeOpenAi; readonly anthropic: FakeAnthropic }): Record<string, string> {
  return {
    OPENAI_API_KEY: 'sk-test-0000000000000000',
    OPENAI_BASE_URL: models.openai.url,
    ANTHROPIC_API_KEY: 'sk-ant-test-00000000000',
    ANTHROPIC_BASE_URL: models.anthropic.url,
  };
}
