export { createBuiltinTools } from './builtin-tools.ts';
