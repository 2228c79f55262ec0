import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DEFAULT_MAX_TURNS, ForkEngine, defineTool, type Content, type ParentSession } from '../src/index.js';
import { AGENT_TOOL_DECLARATION, buildChildMessage, isForkChild, seedFork, validateAgentParams } from '../src/protocol.js';
import { startLocalServer, type LocalServer } from '../src/local-server/index.js';
import { filler } from './support/engine-fixtures.js';

/*
 * Conformance with the reference implementation's own fork tests: Qwen Code (QwenLM/qwen-code)
 * at commit 05c11b40c68a46b5d77a54de95526054fa393bbb — packages/core/src/tools/agent/
 * fork-subagent.test.ts and the fork cases of agent.test.ts. (That commit's environmentContext.ts,
 * which recognizes synthetic prefixes, is read at 57ada502d55aede903bb4f3b8d85a2f0662e7b37, the
 * version with the signature 05c11b40 calls; fork profiles do not apply.) Each case is restated as
 * a fact about forkpool's public API, in our own code; the README's Conformance table lists every
 * case and why forkpool differs where it does. Case names below are the reference's.
 */

const REF = {
  placeholder: 'Fork started — processing in background',
  ack: 'Understood. Executing directive now.',
  begin: 'Begin.',
  nestedFork:
    'Error: subagent_type "fork" is not supported from within a sub-agent. Complete this task directly with your own tools instead of requesting a nested fork.',
  spawnInFork: 'Error: Cannot spawn sub-agents from within a fork. Please execute tasks directly.',
};

// The reference's fixtures, in Gemini's Content shape.
const startup: Content = { role: 'user', parts: [{ text: '<system-reminder>\nstartup\n</system-reminder>' }] };
const firstUser: Content = { role: 'user', parts: [{ text: 'first question' }] };
const firstModel: Content = { role: 'model', parts: [{ text: 'first answer' }] };
const toolCall: Content = { role: 'model', parts: [{ functionCall: { id: 'call-1', name: 'read_file', args: { path: 'a.ts' } } }] };
const toolResult: Content = { role: 'user', parts: [{ functionResponse: { id: 'call-1', name: 'read_file', response: { output: 'file contents' } } }] };
const secondUser: Content = { role: 'user', parts: [{ text: 'second question' }] };
const secondModel: Content = { role: 'model', parts: [{ text: 'second answer' }] };
const reminder: Content = { role: 'user', parts: [{ text: '<system-reminder>\nchanged tools\n</system-reminder>' }] };
const compactedSummary: Content = { role: 'user', parts: [{ text: 'Resume the prior task from this summary.' }] };
const compactedAck: Content = { role: 'model', parts: [{ text: 'Got it. Thanks for the additional context!' }] };

function session(history: Content[], extra: Partial<ParentSession> = {}): ParentSession {
  return {
    model: 'gemini-2.5-flash',
    systemInstruction: { parts: [{ text: 'parent system' }] },
    tools: [{ functionDeclarations: [{ name: 'read_file' }, { name: 'edit' }, { name: 'agent' }] }],
    history,
    ...extra,
  };
}

/** What a fork inherits of the parent's history with `forkTurns` (its own child message left out). */
function inherited(history: Content[], forkTurns: 'all' | number): Content[] {
  const seed = seedFork(session(history), 'the directive', { forkTurns });
  return seed.contents.slice(0, -1);
}

describe('fork-subagent.test.ts › selectForkHistory', () => {
  it('defaults to all and normalizes explicit values', () => {
    const forkTurns = (extra: Record<string, unknown>) => {
      const checked = validateAgentParams({ description: 'd', prompt: 'p', subagent_type: 'fork', ...extra });
      return checked.ok ? checked.fork?.forkTurns : checked.error.message;
    };
    expect(forkTurns({})).toBe('all');
    expect(forkTurns({ fork_turns: 'all' })).toBe('all');
    expect(forkTurns({ fork_turns: '3' })).toBe(3);
  });

  it('preserves all history when no bounded window is requested', () => {
    expect(inherited([startup, firstUser, firstModel], 'all')).toEqual([startup, firstUser, firstModel]);
  });

  it('counts real user turns rather than tool responses', () => {
    expect(inherited([startup, firstUser, toolCall, toolResult, firstModel, secondUser, secondModel], 1)).toEqual([secondUser, secondModel]);
  });

  it('keeps all available context when fewer turns exist than requested', () => {
    const seed = seedFork(session([startup, firstUser, firstModel]), 'd', { forkTurns: 3 });
    expect(seed.contents.slice(0, -1)).toEqual([firstUser, firstModel]);
    expect(seed.trimmedMessages).toBe(1);
  });

  it('returns empty when no real user turns exist after the synthetic prefix', () => {
    const seed = seedFork(session([startup]), 'the directive', { forkTurns: 1 });
    expect(seed.seedCase).toBe('fresh');
    expect(seed.contents).toEqual([{ role: 'user', parts: [{ text: buildChildMessage('the directive') }] }]);
  });

  it('does not count or inherit a compacted-history prefix for a numeric window', () => {
    expect(inherited([startup, compactedSummary, compactedAck, firstUser, firstModel], 3)).toEqual([firstUser, firstModel]);
    // The real compaction text (Qwen Code's RESUME_TRAILER) is recognized the same way.
    const real: Content = {
      role: 'user',
      parts: [{ text: 'Summary of the work.\n\nResume the prior task using the summary above. Continue from the last in-flight step.' }],
    };
    expect(inherited([real, compactedAck, firstUser, firstModel, secondUser, secondModel], 5)).toEqual([
      firstUser,
      firstModel,
      secondUser,
      secondModel,
    ]);
  });

  it('does not count pure reminders as user turns', () => {
    expect(inherited([startup, firstUser, firstModel, reminder, secondUser, secondModel], 1)).toEqual([secondUser, secondModel]);
  });

  it('does not count empty user content as a real turn', () => {
    const emptyUser: Content = { role: 'user', parts: [] };
    const emptyAck: Content = { role: 'model', parts: [{ text: 'ignored empty input' }] };
    expect(inherited([startup, firstUser, firstModel, emptyUser, emptyAck], 1)).toEqual([firstUser, firstModel, emptyUser, emptyAck]);
    // A session file cannot hold a message without parts (Gemini refuses one); a blank text part is the same case.
    const blank: Content = { role: 'user', parts: [{ text: '  ' }] };
    expect(inherited([startup, firstUser, firstModel, blank, emptyAck], 1)).toEqual([firstUser, firstModel, blank, emptyAck]);
  });

  it('does not count a tool response mixed with a pure reminder', () => {
    const mixed: Content = { role: 'user', parts: [...toolResult.parts, ...reminder.parts] };
    expect(inherited([startup, firstUser, toolCall, mixed, firstModel], 1)).toEqual([firstUser, toolCall, mixed, firstModel]);
  });

  it('does not share nested mutable parts with the parent history', () => {
    const nestedImage = { inlineData: { mimeType: 'image/png', data: 'c2hvdA==' } };
    const withImage: Content = {
      role: 'user',
      parts: [{ functionResponse: { id: 'call-1', name: 'read_file', response: { output: 'captured' }, parts: [nestedImage] } }],
    };
    for (const forkTurns of ['all', 5] as const) {
      const seed = seedFork(session([startup, firstUser, toolCall, withImage, firstModel]), 'd', { forkTurns });
      const response = seed.contents.flatMap((c) => c.parts).find((p) => p.functionResponse !== undefined)?.functionResponse;
      const copy = (response as { parts: unknown[] }).parts[0];
      expect(copy).toEqual(nestedImage);
      expect(copy).not.toBe(nestedImage);
    }
  });
});

describe('agent.test.ts › schema generation and validateToolParams (fork cases)', () => {
  const schema = AGENT_TOOL_DECLARATION.parametersJsonSchema as { properties: Record<string, Record<string, unknown>> };
  const fork = { description: 'Search files', prompt: 'Find all TypeScript files in the project', subagent_type: 'fork' };

  it('keeps subagent_type open', () => {
    expect(schema.properties.subagent_type?.type).toBe('string');
    expect(schema.properties.subagent_type?.enum).toBeUndefined();
    expect(String(schema.properties.subagent_type?.description)).toContain('"fork"');
  });

  it('declares the background default and foreground opt-out (deliberate difference: headless, every sub-agent runs in the background)', () => {
    expect(schema.properties.run_in_background?.default).toBeUndefined();
    const foreground = validateAgentParams({ description: 'd', prompt: 'p', run_in_background: false }, { headless: true });
    expect(foreground.ok && foreground.runInBackground).toBe(true);
  });

  it('declares fork_turns for fork agents without a none option (and, unlike the reference, as a number too)', () => {
    expect(schema.properties.fork_turns?.default).toBeUndefined();
    expect(JSON.stringify(schema.properties.fork_turns)).not.toContain('none');
    expect(String(schema.properties.fork_turns?.description)).toContain('Fork only');
  });

  it('declares fork_tools as an optional execution-only allowlist', () => {
    expect(schema.properties.fork_tools).toMatchObject({ type: 'array', items: { type: 'string' } });
    expect(schema.properties.fork_tools?.default).toBeUndefined();
    expect(schema.properties.fork_tools?.minItems).toBeUndefined();
  });

  it('rejects a model grade for fork agents', () => {
    expect(validateAgentParams({ ...fork, model: 'high' })).toMatchObject({ ok: false, error: { kind: 'invalid_params', message: expect.stringMatching(/cannot be combined with subagent_type "fork"/i) } });
  });

  it.each(['all', '1', '12'])('accepts fork_turns=%s for fork agents', (turns) => {
    expect(validateAgentParams({ ...fork, fork_turns: turns }).ok).toBe(true);
  });

  it.each(['', 'none', '0', '-1', '1.5', ' 3 '])('rejects invalid fork_turns=%j', (turns) => {
    expect(validateAgentParams({ ...fork, fork_turns: turns })).toMatchObject({ ok: false, error: { kind: 'invalid_params', message: expect.stringMatching(/^fork_turns: /) } });
  });

  it.each([undefined, 'general-purpose'])('rejects fork_turns and fork_tools for non-fork subagent_type=%s', (type) => {
    const base = { description: 'd', prompt: 'p', ...(type ? { subagent_type: type } : {}) };
    expect(validateAgentParams({ ...base, fork_turns: 'all' })).toMatchObject({ error: { kind: 'invalid_params', message: expect.stringMatching(/only be used with subagent_type "fork"/) } });
    expect(validateAgentParams({ ...base, fork_tools: ['read_file'] })).toMatchObject({ error: { kind: 'invalid_params', message: expect.stringMatching(/only be used with subagent_type "fork"/) } });
  });

  it('accepts fork_tools, including an empty deny-all list and names it does not know, for forks', () => {
    expect(validateAgentParams({ ...fork, fork_tools: ['read_file', 'unknown_exact_tool'] }).ok).toBe(true);
    expect(validateAgentParams({ ...fork, fork_tools: [] }).ok).toBe(true);
  });

  it('rejects invalid fork_tools entries', () => {
    for (const tools of [['  '], [' read_file '], null, ['*']]) {
      expect(validateAgentParams({ ...fork, fork_tools: tools })).toMatchObject({ ok: false, error: { kind: 'invalid_params', message: expect.stringMatching(/^fork_tools/) } });
    }
  });

  it('reports fork_tools applicability before malformed entries', () => {
    const checked = validateAgentParams({ description: 'd', prompt: 'p', subagent_type: 'general-purpose', fork_tools: ['*'] });
    expect(checked.ok ? '' : checked.error.message.split('\n')[0]).toBe('fork_tools: can only be used with subagent_type "fork"');
  });

  it('rejects isolation and working_dir (deliberate difference: not supported for any sub-agent, and not declared)', () => {
    expect(schema.properties.isolation).toBeUndefined();
    expect(schema.properties.working_dir).toBeUndefined();
    expect(validateAgentParams({ ...fork, isolation: 'worktree' })).toMatchObject({ ok: false, error: { kind: 'invalid_params', message: expect.stringMatching(/^isolation: is not supported/) } });
    expect(validateAgentParams({ description: 'd', prompt: 'p', subagent_type: 'general-purpose', working_dir: '/tmp' })).toMatchObject({
      ok: false,
      error: { kind: 'invalid_params', message: expect.stringMatching(/^working_dir: is not supported/) },
    });
  });

  it('accepts subagent_type "fork" without consulting a registry, in any case', () => {
    expect(validateAgentParams(fork).ok).toBe(true);
    expect(validateAgentParams({ ...fork, subagent_type: 'FORK' }).ok).toBe(true);
  });

  it('omitting subagent_type uses general-purpose, not fork', () => {
    expect(validateAgentParams({ description: 'd', prompt: 'p' })).toMatchObject({ ok: true, subagentType: 'general-purpose', fork: undefined });
  });

  it('rejects a nested fork request instead of changing its context mode', () => {
    expect(validateAgentParams(fork, { insideSubagent: true })).toEqual({ ok: false, error: { kind: 'nested_fork', message: REF.nestedFork } });
    expect(validateAgentParams(fork, { insideFork: true })).toEqual({ ok: false, error: { kind: 'nested_fork', message: REF.nestedFork } });
  });

  it('refuses to fork a conversation that is itself a fork (its history holds an opening <fork-boilerplate>)', () => {
    const child = seedFork(session([firstUser, firstModel]), 'earlier').contents;
    expect(() => seedFork(session([...child, firstModel]), 'again')).toThrow(/it is itself a fork/);
    expect(isForkChild([{ role: 'user', parts: [{ text: '<fork-boilerplate>\ncut off' }] }])).toBe(true);
  });

  it('blocks a fork child from spawning any sub-agent', () => {
    expect(validateAgentParams({ description: 'd', prompt: 'p', subagent_type: 'general-purpose' }, { insideFork: true })).toEqual({
      ok: false,
      error: { kind: 'fork_spawn', message: REF.spawnInFork },
    });
  });

  it('runs a non-interactive fork in the background whatever run_in_background says', () => {
    const checked = validateAgentParams({ ...fork, run_in_background: false }, { headless: true });
    expect(checked.ok && checked.runInBackground).toBe(true);
  });
});

describe('agent.test.ts › fork dispatch: child message and forked messages', () => {
  it('does not require a commit unless the directive asks for one', () => {
    expect(buildChildMessage('update the implementation')).not.toContain('commit your changes');
  });

  it('adds the execution restriction only when fork_tools is supplied, after the directive', () => {
    expect(buildChildMessage('inspect the implementation')).not.toContain('<tool-restriction>');
    const restricted = buildChildMessage('inspect the implementation', ['read_file', 'mcp__github']);
    expect(restricted).toContain('read_file, mcp__github');
    expect(restricted.indexOf('Directive: inspect the implementation')).toBeLessThan(restricted.indexOf('<tool-restriction>'));
    expect(buildChildMessage('reason without tools', [])).toContain('may not execute any tool');
  });

  it('includes the execution restriction in the synthetic fork suffix of a mid-turn parent', () => {
    const midTurn: Content = { role: 'model', parts: [{ functionCall: { id: 'call-1', name: 'read_file', args: { path: 'README.md' } } }] };
    const seed = seedFork(session([firstUser, midTurn]), 'inspect the implementation', { allowedTools: ['read_file'] });
    const userMessage = seed.contents[2] as Content;
    expect(userMessage.parts.at(-1)?.text).toBe(buildChildMessage('inspect the implementation', ['read_file']));
    expect(userMessage.parts.at(-1)?.text).toContain('<tool-restriction>');
  });

  it('a mid-turn parent: placeholder results, the child message as the last part of that user message, the ack, then Begin.', () => {
    const agentCall: Content = {
      role: 'model',
      parts: [{ functionCall: { id: 'a1', name: 'agent', args: { description: 'x', prompt: 'SIBLING', subagent_type: 'fork' } } }],
    };
    const seed = seedFork(session([firstUser, agentCall]), 'mine');
    expect(seed.contents.slice(2)).toEqual([
      {
        role: 'user',
        parts: [{ functionResponse: { id: 'a1', name: 'agent', response: { output: REF.placeholder } } }, { text: buildChildMessage('mine') }],
      },
      { role: 'model', parts: [{ text: REF.ack }] },
      { role: 'user', parts: [{ text: REF.begin }] },
    ]);
  });

  it('a history ending on a user message (deliberate difference: real tool results are kept, only a prompt is dropped)', () => {
    // The reference drops any trailing user message; forkpool keeps the results of the last calls.
    const kept = seedFork(session([firstUser, toolCall, toolResult]), 'd');
    expect(kept.contents[2]?.parts).toEqual([...toolResult.parts, { text: buildChildMessage('d') }]);
    const dropped = seedFork(session([firstUser, firstModel, secondUser]), 'd');
    expect(dropped.contents).toEqual([firstUser, firstModel, { role: 'user', parts: [{ text: buildChildMessage('d') }] }]);
  });

  it('limits a fork to recent real user turns (deliberate difference: forkpool does not put the startup context back)', () => {
    // The reference re-attaches the startup context in front of the window; forkpool's window
    // omits every synthetic prefix, as its design states (README: Conformance).
    expect(inherited([startup, firstUser, firstModel, secondUser, secondModel], 1)).toEqual([secondUser, secondModel]);
  });

  it('preserves full curated history when fork_turns is "all", adding nothing when it ends on model text', () => {
    const seed = seedFork(session([startup, firstUser, firstModel, secondUser, secondModel]), 'd');
    expect(seed.contents).toEqual([startup, firstUser, firstModel, secondUser, secondModel, { role: 'user', parts: [{ text: buildChildMessage('d') }] }]);
  });

  it('a fork of an empty conversation without a system instruction gets the fork system prompt and every declared tool', () => {
    const seed = seedFork(session([], { systemInstruction: undefined }), 'd');
    expect(seed.seedCase).toBe('fresh');
    expect(seed.systemInstruction?.parts[0]?.text).toMatch(/background worker agent/);
    expect(seed.tools).toEqual(session([]).tools);
  });

  it('passes fork_tools separately from inherited tool names: the declarations stay the parent\'s', () => {
    const parent = session([firstUser, firstModel]);
    const seed = seedFork(parent, 'd', { allowedTools: ['read_file'] });
    expect(JSON.stringify(seed.tools)).toBe(JSON.stringify(parent.tools));
  });
});

describe('fork-subagent.test.ts › resolveForkExecutionAllowedTools, and agent.test.ts › display_image (on a real engine)', () => {
  let server: LocalServer;
  let engine: ForkEngine;
  const executed: string[] = [];
  const readFile = defineTool({
    name: 'read_file',
    description: 'Reads a file.',
    parameters: z.object({ path: z.string() }),
    execute: ({ path }) => {
      executed.push(`read_file ${path}`);
      return { content: `contents of ${path}` };
    },
  });
  // The reference's image renderer: main-session-only.
  const displayImage = defineTool({
    name: 'display_image',
    description: 'Shows an image to the user.',
    parameters: z.object({ path: z.string() }),
    forks: false,
    execute: ({ path }) => {
      executed.push(`display_image ${path}`);
      return { shown: true };
    },
  });
  const parent: ParentSession = {
    model: 'gemini-2.5-flash',
    systemInstruction: { parts: [{ text: `parent system ${filler(1200)}` }] },
    tools: [{ functionDeclarations: [readFile.declaration, displayImage.declaration] }],
    history: [firstUser, firstModel],
  };
  beforeAll(async () => {
    server = await startLocalServer({ captureRequests: true });
    engine = await ForkEngine.create({ provider: { kind: 'local', url: server.url }, threads: 1, tools: [readFile, displayImage] });
  });
  afterAll(async () => {
    await engine.close();
    await server.close();
  });

  const said = (from: number): string => server.requests.slice(from).map((r) => r.body).join('\n');

  it('preserves unrestricted execution when display_image is not advertised', async () => {
    executed.length = 0;
    const plain: ParentSession = { ...parent, tools: [{ functionDeclarations: [readFile.declaration] }] };
    const [result] = await engine.fanOut(engine.freeze(plain), [{ id: 'a', directive: 'CALL read_file {"path":"a.ts"}\nREPLY ok' }]).results();
    expect(result?.status).toBe('completed');
    expect(executed).toEqual(['read_file a.ts']);
  });

  it('keeps inherited declarations but denies display_image by default', async () => {
    executed.length = 0;
    const start = server.requests.length;
    const directive = 'CALL read_file {"path":"a.ts"}\nCALL display_image {"path":"shot.png"}\nREPLY ok';
    const [result] = await engine.fanOut(engine.freeze(parent), [{ id: 'b', directive }]).results();
    expect(result?.status).toBe('completed');
    expect(executed).toEqual(['read_file a.ts']);
    expect(said(start)).toContain('"name":"display_image","description":"Shows an image to the user."');
    expect(said(start)).toContain('display_image can only be executed by the main session');
  });

  it('cannot re-enable display_image through fork_tools', async () => {
    executed.length = 0;
    const start = server.requests.length;
    const [result] = await engine
      .fanOut(engine.freeze(parent), [{ id: 'c', directive: 'CALL display_image {"path":"shot.png"}\nREPLY ok', tools: ['display_image', 'read_file'] }])
      .results();
    expect(result?.status).toBe('completed');
    expect(executed).toEqual([]);
    expect(said(start)).toContain('display_image can only be executed by the main session');
  });

  it('caps fork turns at 200 and never asks a person: an approval-required tool is denied in a fork', async () => {
    expect(DEFAULT_MAX_TURNS).toBe(200);
    const deploy = defineTool({ name: 'deploy', description: 'Deploys.', parameters: z.object({}), approval: 'required', execute: () => 'deployed' });
    const local = await ForkEngine.create({ provider: { kind: 'local', url: server.url }, threads: 1, tools: [deploy] });
    try {
      const start = server.requests.length;
      const withDeploy: ParentSession = { ...parent, tools: [{ functionDeclarations: [deploy.declaration] }] };
      const [result] = await local.fanOut(local.freeze(withDeploy), [{ id: 'e', directive: 'CALL deploy {}\nREPLY not deployed' }]).results();
      expect(result?.text).toBe('not deployed');
      expect(said(start)).toContain("deploy needs a person's approval, and background agents cannot prompt for it.");
    } finally {
      await local.close();
    }
  });

  it('runs a non-interactive fork in the background, whatever run_in_background says, and it sees the parent conversation', async () => {
    const withAgent: ParentSession = {
      ...parent,
      tools: [...(parent.tools ?? []), { functionDeclarations: [AGENT_TOOL_DECLARATION] }],
      history: [{ role: 'user', parts: [{ text: 'parent marker: FORK7348_PARENT_7XQ9' }] }, { role: 'model', parts: [{ text: 'Ready.' }] }],
    };
    const outcome = await engine.runParentAgent(
      withAgent,
      'CALL agent {"description":"marker","prompt":"RECALL FORK\\\\d+_PARENT_\\\\w+","subagent_type":"fork","run_in_background":false}\nREPLY launched',
    );
    expect(outcome.status).toBe('completed');
    expect(outcome.forks.map((f) => [f.status, f.text])).toEqual([['completed', 'RECALL FORK\\d+_PARENT_\\w+: FORK7348_PARENT_7XQ9']]);
  });

  it('blocks a fork from spawning any sub-agent, with the reference\'s words', async () => {
    const withAgent: ParentSession = { ...parent, tools: [...(parent.tools ?? []), { functionDeclarations: [AGENT_TOOL_DECLARATION] }] };
    const start = server.requests.length;
    const [result] = await engine
      .fanOut(engine.freeze(withAgent), [
        { id: 'd', directive: 'CALL agent {"description":"x","prompt":"y"}\nCALL@2 agent {"description":"x","prompt":"y","subagent_type":"fork"}\nREPLY ok' },
      ])
      .results();
    expect(result?.status).toBe('completed');
    expect(said(start)).toContain(JSON.stringify(REF.spawnInFork).slice(1, -1));
    expect(said(start)).toContain(JSON.stringify(REF.nestedFork).slice(1, -1));
  });
});
