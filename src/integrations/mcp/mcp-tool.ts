import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { AnyTool, Risk, ToolResult } from '../../agent/ports/tool.ts';
import { truncate } from '../tools/limits.ts';
import { inputValidator } from './input-schema.ts';
import { mcpToolName } from './tool-name.ts';

/** A tool as the server lists it (the SDK's `Tool` type, narrowed to what we read). */
export interface RemoteTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

interface ContentItem {
  type: string;
  text?: string;
}

const MAX_TEXT = 20_000;

function textOf(content: readonly ContentItem[]): string {
  return content
    .filter((item) => item.type === 'text' && typeof item.text === 'string')
    .map((item) => item.text)
    .join('\n');
}

/** Structured output bigger than this (as JSON) is kept as a cut preview, like any oversized output. */
export const MAX_STRUCTURED_CHARS = 32_000;

/** Structured output when the server gives it; otherwise its text, with a note of anything that is not text. */
export function toOutput(result: { content?: readonly ContentItem[]; structuredContent?: unknown }): Record<string, unknown> {
  if (result.structuredContent && typeof result.structuredContent === 'object' && !Array.isArray(result.structuredContent)) {
    return limitStructured(result.structuredContent as Record<string, unknown>);
  }
  const content = result.content ?? [];
  const other = content.filter((item) => item.type !== 'text').map((item) => item.type);
  return { text: truncate(textOf(content), MAX_TEXT) ?? '', ...(other.length ? { otherContent: other } : {}) };
}

function limitStructured(structured: Record<string, unknown>): Record<string, unknown> {
  let json: string;
  try {
    json = JSON.stringify(structured);
  } catch {
    return { truncated: true, note: 'structuredContent could not be serialised (nested too deep or circular)' };
  }
  if (json.length <= MAX_STRUCTURED_CHARS) return structured;
  // Redaction and the final cut happen where every output's do; this only bounds what reaches them.
  return {
    truncated: true,
    note: `structuredContent of ${json.length} characters is over the limit of ${MAX_STRUCTURED_CHARS}`,
    preview: json.slice(0, MAX_STRUCTURED_CHARS),
  };
}

export function createMcpTool(input: { server: string; remote: RemoteTool; client: Client; risk: Risk; callTimeoutMs: number }): AnyTool {
  const { server, remote, client, risk } = input;
  const { validator } = inputValidator(remote.inputSchema);
  const what = `MCP ${server}/${remote.name}`;
  return {
    name: mcpToolName(server, remote.name),
    description: `[MCP server "${server}"] ${truncate(remote.description ?? remote.title ?? remote.name, 1_000)}`,
    risk,
    input: validator,
    inputJsonSchema: remote.inputSchema,
    async run(args, ctx): Promise<ToolResult> {
      try {
        const result = await client.callTool({ name: remote.name, arguments: args as Record<string, unknown> }, undefined, {
          signal: ctx.signal,
          timeout: input.callTimeoutMs,
          resetTimeoutOnProgress: true,
        });
        if (!('content' in result) && 'toolResult' in result) return { status: 'ok', output: { result: result.toolResult } };
        const typed = result as { content?: ContentItem[]; structuredContent?: unknown; isError?: boolean };
        if (typed.isError) {
          return {
            status: 'error',
            error: { message: `${what} failed: ${truncate(textOf(typed.content ?? []), 2_000) || 'no details'}`, code: 'mcp-tool-error' },
          };
        }
        return { status: 'ok', output: toOutput(typed) };
      } catch (error) {
        if (ctx.signal.aborted)
          return { status: 'error', error: { message: `${what} cancelled`, code: 'cancelled', ...(risk !== 'read' ? { uncertain: true } : {}) } };
        // The call may have reached the server before the connection or timeout gave out.
        return {
          status: 'error',
          error: { message: `${what}: ${(error as Error).message}`, code: 'mcp-unavailable', ...(risk !== 'read' ? { uncertain: true } : { transient: true }) },
        };
      }
    },
  };
}
