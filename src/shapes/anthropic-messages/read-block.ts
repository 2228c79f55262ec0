import { type HubOutput, type HubPart, type Opaque, partWhat } from '../hub.js';

type Json = Record<string, unknown>;
type Block = Json & { type: string };

/** The fields each block type converts; a block of another type is opaque, and so is any other field. */
const BLOCK_FIELDS: Record<string, readonly string[]> = {
  text: ['type', 'text'],
  thinking: ['type', 'thinking', 'signature'],
  tool_use: ['type', 'id', 'name', 'input'],
  tool_result: ['type', 'tool_use_id', 'content', 'is_error'],
  image: ['type', 'source'],
  document: ['type', 'source'],
};

/** The fields of a block (or a tool) beyond `known`, as opaque items at `path`. */
export function extraFields(block: Block, known: readonly string[], path: string): Opaque[] {
  return Object.entries(block)
    .filter(([key, value]) => !known.includes(key) && value !== undefined && value !== null)
    .map(([key]) => ({ path, what: key }));
}

/** One block as a hub part (`names`: each tool_use's name by its id, for the results that answer it). */
export function hubPart(block: Block, path: string, names: Map<string, string>): HubPart {
  const known = BLOCK_FIELDS[block.type];
  if (known === undefined) return { kind: 'opaque', what: `a ${block.type} block`, path, extras: [] };
  const extras = extraFields(block, known, path);
  switch (block.type) {
    case 'text':
      return { kind: 'text', text: block.text as string, path, extras };
    case 'thinking':
      return { kind: 'thought', text: block.thinking as string, signature: block.signature as string, path, extras };
    case 'tool_use':
      names.set(block.id as string, block.name as string);
      return {
        kind: 'call',
        id: block.id as string,
        name: block.name as string,
        args: { json: block.input as Json },
        idPath: `${path}.id`,
        path,
        extras,
      };
    case 'tool_result': {
      const id = block.tool_use_id as string;
      const name = names.get(id);
      const content = block.content as string | Block[] | undefined;
      const text = typeof content === 'string' ? content : undefined;
      const parts = Array.isArray(content) ? content.map((inner, i) => hubPart(inner, `${path}.content[${i}]`, names)) : [];
      const output: HubOutput =
        block.is_error === true
          ? { error: text ?? parts.map((p) => (p.kind === 'text' ? p.text : '')).join('') }
          : text !== undefined
            ? { text }
            : { parts: parts.filter((p) => p.kind === 'text' || p.kind === 'media') as never };
      const dropped = parts.filter((p) => p.kind !== 'text' && p.kind !== 'media').map((p) => ({ path: p.path, what: partWhat(p) }));
      return {
        kind: 'result',
        id,
        ...(name === undefined ? {} : { name }),
        output,
        namePath: `${path}.tool_use_id`,
        path,
        extras: [...extras, ...dropped],
      };
    }
    default: {
      const source = block.source as Json;
      if (source?.type !== 'base64')
        return { kind: 'opaque', what: `a ${block.type} block from a ${String(source?.type)} source`, path, extras: [] };
      return {
        kind: 'media',
        media: block.type === 'image' ? 'image' : 'file',
        what: block.type,
        mimeType: source.media_type as string,
        data: source.data as string,
        path,
        extras,
      };
    }
  }
}
