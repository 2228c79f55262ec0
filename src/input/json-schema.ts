import { z } from 'zod';

/** A zod schema as a declaration's `parametersJsonSchema`: JSON Schema of its input, without the `$schema` dialect line. Throws when zod cannot express it. */
export function parametersJsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...parameters } = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
  return parameters;
}
