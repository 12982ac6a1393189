import type { ToolSpec } from '@lazyboy/contracts';
import { z } from 'zod';
import type { ToolDefinition } from './tool.js';

export class DuplicateToolError extends Error {
  override readonly name = 'DuplicateToolError';
}

/** The tools one run may use, and their specs as the model sees them. */
export class ToolRegistry {
  private readonly tools = new Map<string, ToolDefinition>();

  constructor(tools: Iterable<ToolDefinition> = []) {
    for (const tool of tools) this.register(tool);
  }

  register(tool: ToolDefinition): this {
    if (this.tools.has(tool.name)) throw new DuplicateToolError(`tool '${tool.name}' is registered twice`);
    this.tools.set(tool.name, tool);
    return this;
  }

  get(name: string): ToolDefinition | undefined {
    return this.tools.get(name);
  }

  get size(): number {
    return this.tools.size;
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  specs(): ToolSpec[] {
    return [...this.tools.values()].map((tool) => ({
      name: tool.name,
      description: tool.description,
      parameters: toParameters(tool.schema),
    }));
  }
}

/** JSON schemas by zod schema: converting is costly and every model round sends every tool's schema. */
const parametersBySchema = new WeakMap<z.ZodType, Record<string, unknown>>();

function toParameters(schema: z.ZodType): Record<string, unknown> {
  const cached = parametersBySchema.get(schema);
  if (cached) return cached;
  const { $schema: _ignored, ...parameters } = z.toJSONSchema(schema) as Record<string, unknown>;
  parametersBySchema.set(schema, parameters);
  return parameters;
}
