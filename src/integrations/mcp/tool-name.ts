/**
 * `mcp_<server>_<tool>` as the server names them (CONTRACT §4: `getIssue` stays `getIssue`); a run of anything but
 * letters, digits and `_` is folded to one `_`, since model APIs take no other characters in a tool's name.
 */
export function sanitizeNamePart(name: string): string {
  return name.replace(/[^A-Za-z0-9_]+/g, '_').replace(/^_+|_+$/g, '');
}

export function mcpToolName(server: string, tool: string): string {
  return `mcp_${sanitizeNamePart(server)}_${sanitizeNamePart(tool)}`;
}
