import { z } from 'zod';
import type { AnyTool, ToolCatalogueEntry } from '../../agent/ports/tool.ts';

/** What the planner sees of each tool: name, description, risk and the JSON Schema its args must pass. */
export function toolCatalogue(tools: readonly AnyTool[]): ToolCatalogueEntry[] {
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    risk: tool.risk,
    inputSchema: tool.inputJsonSchema ?? (z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>),
  }));
}
