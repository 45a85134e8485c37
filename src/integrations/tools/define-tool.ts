import type { Tool } from '../../agent/ports/tool.ts';

/** Exists only so a tool's `run(args)` gets its argument type from `input`. */
export function defineTool<I>(tool: Tool<I>): Tool<I> {
  return tool;
}
