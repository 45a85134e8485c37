import { Ajv } from 'ajv';
import { z } from 'zod';

export type McpInput = Record<string, unknown>;

const ajv = new Ajv({ allErrors: true, strict: false });

/**
 * An MCP tool's JSON Schema as a zod validator, so plan checking treats MCP tools like built-ins.
 * zod cannot express some keywords (`not`, `if/then/else`, external `$ref`); those schemas are checked with ajv.
 */
export function inputValidator(schema: Record<string, unknown>): { validator: z.ZodType<McpInput>; via: 'zod' | 'ajv' } {
  try {
    const converted = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
    return { validator: converted as z.ZodType<McpInput>, via: 'zod' };
  } catch {
    const validate = ajv.compile(schema);
    const validator = z.custom<McpInput>().superRefine((value, ctx) => {
      if (validate(value)) return;
      for (const error of validate.errors ?? []) {
        ctx.addIssue({
          code: 'custom',
          message: `${error.instancePath || '(args)'} ${error.message ?? 'is invalid'}`,
          path: error.instancePath.split('/').filter(Boolean),
        });
      }
    });
    return { validator, via: 'ajv' };
  }
}
