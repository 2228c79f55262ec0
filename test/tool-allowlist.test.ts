import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { allowsTool, isValidToolWildcard, toolEntryRule } from '../src/session/tool-allowlist.js';
import { defineTool, ForkEngine, type ForkEvent } from '../src/index.js';
import { startLocalServer, type LocalServer } from '../src/local-server/index.js';
import { seedFork } from '../src/protocol.js';
import { parentSession } from './support/engine-fixtures.js';

/*
 * fork_tools / a task's tools in Qwen Code's forms (PR #8066, "feat(agent): add fork tool execution
 * allowlist"): which entries are valid, what a list allows, and a fork on a real engine held to one.
 */

const WILDCARD_RULE = 'wildcard entries must be "mcp__*" or a trailing MCP tool-prefix pattern such as "mcp__github__read_*"';

const ACCEPTED = [
  'read_file', // an exact built-in name
  'mcp__github__create_issue', // an exact MCP tool
  'mcp__github', // every tool of one server
  'mcp__*', // every MCP tool
  'mcp__github__read_*', // a tool-name prefix
  'mcp__github__*', // every tool of one server, as a pattern
  'mcp__a__*', // a one-letter server
];

const REJECTED_WILDCARDS = [
  'read_fil*', // not MCP
  'read_*',
  'mcp__github*', // no "__" between server and prefix
  'mcp__*__read', // the star not at the end
  'mcp__*__read_*', // two stars
  'mcp__github__re*d_*',
  'mcp__**',
  'mcp____read_*', // an empty server name
  '*mcp__github__read',
];

describe("the reference's validator", () => {
  it.each(ACCEPTED)('accepts %s', (entry) => {
    expect(isValidToolWildcard(entry)).toBe(true);
    expect(toolEntryRule(entry, 'fork_tools')).toBeUndefined();
  });

  it.each([...REJECTED_WILDCARDS, '*'])('refuses %s', (entry) => {
    expect(isValidToolWildcard(entry)).toBe(false);
  });
});

describe('toolEntryRule', () => {
  it.each<[unknown, string]>([
    ['*', 'does not accept "*"; omit fork_tools for unrestricted execution'],
    ...REJECTED_WILDCARDS.map((entry): [unknown, string] => [entry, `${JSON.stringify(entry)}: ${WILDCARD_RULE}`]),
    ['', 'must be a non-empty tool name'],
    [3, 'must be a non-empty tool name'],
    [null, 'must be a non-empty tool name'],
    [' read_file', '" read_file" must not have surrounding whitespace'],
    ['mcp__* ', '"mcp__* " must not have surrounding whitespace'],
    [' * ', '" * " must not have surrounding whitespace'],
  ])('refuses %j', (entry, rule) => {
    expect(toolEntryRule(entry, 'fork_tools')).toBe(rule);
  });

  it('names the field to omit for unrestricted execution', () => {
    expect(toolEntryRule('*', 'tools')).toBe('does not accept "*"; omit tools for unrestricted execution');
  });
});

describe('allowsTool', () => {
  const NAMES = [
    'read_file',
    'read_file_fast',
    'docs',
    'mcp_docs__search',
    'mcp__docs',
    'mcp__docs__search',
    'mcp__docs__fetch',
    'mcp__docsearch__x',
    'mcp__other__x',
    'mcp__github__read_file',
    'mcp__github__create_issue',
  ];
  const allowed = (list: readonly string[]): string[] => NAMES.filter((name) => allowsTool(list, name));

  it.each<[string[], string[]]>([
    [[], []],
    [['read_file'], ['read_file']],
    [
      ['mcp__*'],
      [
        'mcp__docs',
        'mcp__docs__search',
        'mcp__docs__fetch',
        'mcp__docsearch__x',
        'mcp__other__x',
        'mcp__github__read_file',
        'mcp__github__create_issue',
      ],
    ],
    [['mcp__docs'], ['mcp__docs', 'mcp__docs__search', 'mcp__docs__fetch']],
    [['mcp__docs__*'], ['mcp__docs__search', 'mcp__docs__fetch']],
    [['mcp__docs__se*'], ['mcp__docs__search']],
    [['mcp__github__read_*'], ['mcp__github__read_file']],
    [['mcp__github__create_issue'], ['mcp__github__create_issue']],
    [
      ['read_file', 'mcp__docs__*'],
      ['read_file', 'mcp__docs__search', 'mcp__docs__fetch'],
    ],
    // Entries the validators refuse never reach a fork; if one did, it would allow nothing.
    [['*'], []],
    [['read_*'], []],
    [['mcp__docs*'], []],
  ])('%j allows %j', (list, names) => {
    expect(allowed(list)).toEqual(names);
  });

  it('matches by name: a server whose name contains "__" is matched by a shorter server\'s entry', () => {
    expect(allowsTool(['mcp__a'], 'mcp__a__b__t')).toBe(true);
    expect(allowsTool(['mcp__a__*'], 'mcp__a__b__t')).toBe(true);
    expect(allowsTool(['mcp__a__b'], 'mcp__a__c__t')).toBe(false);
  });
});

describe('seedFork checks allowedTools with the same rules', () => {
  const session = parentSession([]);

  it('takes the MCP forms and lists them in the restriction as given', () => {
    const seed = seedFork(session, 'Search the docs.', { allowedTools: ['mcp__docs__*', 'read_file'] });
    expect(JSON.stringify(seed)).toContain('You may execute only these tools: mcp__docs__*, read_file.');
  });

  it.each<[string[], string]>([
    [['*'], 'seedFork: allowedTools[0]: does not accept "*"; omit allowedTools for unrestricted execution'],
    [['read_file', 'read_*'], `seedFork: allowedTools[1]: "read_*": ${WILDCARD_RULE}`],
    [[' read_file'], 'seedFork: allowedTools[0]: " read_file" must not have surrounding whitespace'],
  ])('refuses %j', (allowedTools, message) => {
    expect(() => seedFork(session, 'x', { allowedTools })).toThrow(new TypeError(message));
  });
});

describe('a fork on a real engine with tools: ["mcp__docs__*"] or ["mcp__docs"]', () => {
  let server: LocalServer;
  let engine: ForkEngine;
  const executed: string[] = [];
  const tool = (name: string) =>
    defineTool({
      name,
      description: `The ${name} tool.`,
      parameters: z.object({}),
      execute: (_args, { forkId }) => {
        executed.push(`${forkId} ${name}`);
        return { ran: name };
      },
    });
  const tools = [tool('mcp__docs__search'), tool('mcp__other__x'), tool('lookup')];

  beforeAll(async () => {
    server = await startLocalServer({ captureRequests: true });
    engine = await ForkEngine.create({ provider: { kind: 'local', url: server.url }, threads: 1, tools });
  });
  afterAll(async () => {
    await engine.close();
    await server.close();
  });

  it('executes the allowed mcp__docs__search and refuses mcp__other__x and a built-in', async () => {
    const start = server.requests.length;
    const directive = 'CALL mcp__docs__search {}\nCALL mcp__other__x {}\nCALL lookup {}\nREPLY done';
    const run = engine.fanOut(engine.freeze(parentSession(tools)), [
      { id: 'pattern', directive, tools: ['mcp__docs__*'] },
      { id: 'server', directive, tools: ['mcp__docs'] },
    ]);
    const events: ForkEvent[] = [];
    for await (const e of run.events()) events.push(e);
    const results = await run.results();
    expect(results.map((r) => [r.id, r.status, r.text])).toEqual([
      ['pattern', 'completed', 'done'],
      ['server', 'completed', 'done'],
    ]);
    expect(executed.sort()).toEqual(['pattern mcp__docs__search', 'server mcp__docs__search']);
    const calls = events.flatMap((e) => (e.type === 'tool_call' ? [[e.forkId, e.tool, e.status, e.error?.kind ?? '-'].join(' ')] : []));
    expect(calls.sort()).toEqual([
      'pattern lookup rejected not_allowed',
      'pattern mcp__docs__search ok -',
      'pattern mcp__other__x rejected not_allowed',
      'server lookup rejected not_allowed',
      'server mcp__docs__search ok -',
      'server mcp__other__x rejected not_allowed',
    ]);
    // What the forks were told, as the server received it: the restriction, and why a call was refused.
    const said = server.requests
      .slice(start)
      .filter((r) => r.route === 'streamGenerateContent')
      .map((r) => r.body)
      .join('\n');
    expect(said).toContain('You may execute only these tools: mcp__docs__*.');
    expect(said).toContain('You may execute only these tools: mcp__docs.');
    expect(said).toContain('Tool mcp__other__x is not allowed in this fork. Tools you may call: mcp__docs__search.');
    expect(said).toContain('Tool lookup is not allowed in this fork. Tools you may call: mcp__docs__search.');
  });
});
