/** The line added to a directive that asks for structured output; the schema stays out of generationConfig. */
export function outputSchemaInstruction(schema: Record<string, unknown>): string {
  return `\n\nAnswer format: your final answer must be only a JSON value (no prose, no code fence) that validates against this JSON Schema:\n${JSON.stringify(schema)}`;
}

export function repairMessage(problem: string): string {
  return `Your final answer did not match the required JSON Schema: ${problem}\nReply again with only the corrected JSON value.`;
}
