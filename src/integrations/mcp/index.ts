export { McpConfigSchema, readMcpConfig, type McpConfig, type McpServerConfig } from './config.ts';
export { loadMcpTools, type McpLoadOptions, type McpTools } from './load-mcp-tools.ts';
export { loadMcpToolsFromFile } from './load-from-file.ts';
