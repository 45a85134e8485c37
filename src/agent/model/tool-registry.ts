import { z } from 'zod';
import type { AnyTool, Risk, ToolCatalogueEntry } from '../ports/tool.ts';

/** The registered tools by name, and the catalogue the planner is shown. Fixed when the agent is built. */
export interface ToolRegistry {
  get(name: string): AnyTool | undefined;
  names(): string[];
  riskOf(name: string): Risk | undefined;
  catalogue(): ToolCatalogueEntry[];
  /** One tool's catalogue entry. */
  entry(name: string): ToolCatalogueEntry | undefined;
}

export function createToolRegistry(tools: readonly AnyTool[]): ToolRegistry {
  const byName = new Map<string, AnyTool>();
  for (const tool of tools) {
    if (byName.has(tool.name)) throw new Error(`two tools are registered as ${tool.name}`);
    byName.set(tool.name, tool);
  }
  // Frozen once: nothing a run does (least of all a tool's output) can change what the planner may use.
  const catalogue = Object.freeze([...byName.values()].map((tool) => Object.freeze(catalogueEntry(tool))));
  return {
    get: (name) => byName.get(name),
    names: () => [...byName.keys()],
    riskOf: (name) => byName.get(name)?.risk,
    catalogue: () => [...catalogue],
    entry: (name) => catalogue.find((entry) => entry.name === name),
  };
}

function catalogueEntry(tool: AnyTool): ToolCatalogueEntry {
  let inputSchema: Record<string, unknown>;
  try {
    inputSchema = z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
    delete inputSchema.$schema;
  } catch {
    inputSchema = { type: 'object' };
  }
  return { name: tool.name, description: tool.description, risk: tool.risk, inputSchema };
}
