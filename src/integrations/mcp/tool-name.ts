/** Plan tool names are [a-z0-9_]: `mcp_<server>_<tool>` with anything else folded to `_`. */
export function sanitizeNamePart(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

export function mcpToolName(server: string, tool: string): string {
  return `mcp_${sanitizeNamePart(server)}_${sanitizeNamePart(tool)}`;
}
