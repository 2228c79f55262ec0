import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { jsonLines, runCli } from './fixtures/cli/run-cli.js';

/*
 * `forkpool prompt`: a headless parent agent whose scripted model calls the agent tool (FORK).
 * The marker MARKER-1F0C is only in examples/session.json's history; neither the prompt nor the
 * fork's directive holds it, so the fork can only answer with it because it inherited the history.
 */

const PROMPT = 'FORK RECALL MARKER-[0-9A-F]{4}';
/** A stream-json line by what it is: a system line by its subtype, any other by its type. */
const kindOf = (e: Record<string, any>): string => (e.type === 'system' ? e.subtype : e.type);

describe('forkpool prompt: the marker end to end', () => {
  it('text: the final answer carries the marker the fork found in the inherited history', async () => {
    const session = readFileSync('examples/session.json', 'utf8');
    expect(session.match(/MARKER-1F0C/g)).toHaveLength(1);
    expect(PROMPT).not.toContain('MARKER-1F0C');

    const run = await runCli(['prompt', PROMPT, '--session', 'examples/session.json']);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe('Fork results:\nRECALL MARKER-[0-9A-F]{4}: MARKER-1F0C');
    expect(run.stderr).toMatch(/forkpool: task fork-\S+ completed/);
  });

  it('without the session the same fork finds nothing (the marker came from the history)', async () => {
    const run = await runCli(['prompt', PROMPT]);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe('Fork results:\nRECALL MARKER-[0-9A-F]{4}: no match');
  });

  it('stream-json: task_started (fork), one task_notification, then the result with the marker', async () => {
    const run = await runCli(['prompt', PROMPT, '--session', 'examples/session.json', '--output-format', 'stream-json']);
    expect(run.code).toBe(0);
    const events = jsonLines(run.stdout) as Record<string, any>[];
    expect(events.map(kindOf)).toEqual(['task_started', 'user', 'task_notification', 'result']);
    const [started, display, notified, result] = events as [Record<string, any>, Record<string, any>, Record<string, any>, Record<string, any>];
    expect(started.type).toBe('system');
    // The reference's envelope on every line: its own uuid, the invocation's session_id, no parent tool use.
    expect(new Set(events.map((e) => e.uuid)).size).toBe(events.length);
    expect(new Set(events.map((e) => e.session_id)).size).toBe(1);
    for (const e of events) expect(e.parent_tool_use_id).toBeNull();
    expect(display.message.content).toEqual([{ type: 'text', text: 'Background agent "fork: RECALL MARKER-[0-9A-F]{4}" completed.' }]);
    expect(result.subtype).toBe('success');
    expect(Object.keys(result.usage).sort()).toEqual(['cache_read_input_tokens', 'input_tokens', 'output_tokens']);
    expect(started.data.subagent_type).toBe('fork');
    expect(started.data.description).toBe('RECALL MARKER-[0-9A-F]{4}');
    // Correlated as Qwen Code's are: tool_use_id is the model's call id, task_id is fork-<tool_use_id>.
    expect(started.data.tool_use_id).toMatch(/^call_/);
    expect(started.data.task_id).toBe(`fork-${started.data.tool_use_id}`);
    expect(notified.data.task_id).toBe(started.data.task_id);
    expect(notified.data.tool_use_id).toBe(started.data.tool_use_id);
    expect(notified.data.summary).toBe('Fork "RECALL MARKER-[0-9A-F]{4}" completed');
    expect(notified.data.status).toBe('completed');
    expect(notified.data.result.text).toBe('RECALL MARKER-[0-9A-F]{4}: MARKER-1F0C');
    expect(result.type).toBe('result');
    expect(result.is_error).toBe(false);
    expect(result.result).toContain('MARKER-1F0C');
    expect(result.forks).toEqual([{ id: started.data.task_id, status: 'completed' }]);
    // parent turn 1 (the agent call), turn 2 after the placeholder, turn 3 after the notification.
    expect(result.num_turns).toBeGreaterThanOrEqual(2);
  });

  it('a general-purpose sub-agent asked to run in the foreground: the tool call waits and returns its result; no task events', async () => {
    // \u0061 keeps the answer's words out of the parent's own prompt: only the sub-agent's result holds them.
    const prompt = 'CALL agent {"description":"scout","prompt":"REPLY inline \\u0061nswer 42","run_in_background":false}\nRECALL inline answer \\d+';
    const run = await runCli(['prompt', prompt, '--output-format', 'stream-json']);
    expect(run.code).toBe(0);
    const events = jsonLines(run.stdout) as Record<string, any>[];
    expect(events.map(kindOf)).toEqual(['result']);
    const result = events[0] as Record<string, any>;
    expect(result.result).toContain('inline answer 42');
    expect(result.forks).toEqual([{ id: expect.stringMatching(/^general-purpose-call_/), status: 'completed' }]);
  });

  it('a general-purpose sub-agent left to its default runs in the background, named for what it is', async () => {
    const prompt = 'CALL agent {"description":"scout","prompt":"REPLY background \\u0061nswer 7"}\nREPLY launched';
    const run = await runCli(['prompt', prompt, '--output-format', 'stream-json']);
    expect(run.code).toBe(0);
    const events = jsonLines(run.stdout) as Record<string, any>[];
    expect(events.map(kindOf)).toEqual(['task_started', 'user', 'task_notification', 'result']);
    const [started, , notified] = events as [Record<string, any>, Record<string, any>, Record<string, any>];
    expect(started.data.subagent_type).toBe('general-purpose');
    expect(started.data.task_id).toBe(`general-purpose-${started.data.tool_use_id}`);
    expect(notified.data.result.text).toBe('background answer 7');
    expect(notified.data.result.subagentType).toBe('general-purpose');
  });

  it('task_stop: the parent stops its running fork; the fork ends cancelled with one notification, and the tool says so', async () => {
    const prompt = ['FORK SLEEP 30000', 'CALL@2 task_stop {"task_id":"$TASK_ID"}', 'RECALL Cancellation requested for background agent \\S+'].join('\n');
    const run = await runCli(['prompt', prompt, '--output-format', 'stream-json']);
    const events = jsonLines(run.stdout) as Record<string, any>[];
    expect(events.map(kindOf)).toEqual(['task_started', 'user', 'task_notification', 'result']);
    const [started, , notified, result] = events as [Record<string, any>, Record<string, any>, Record<string, any>, Record<string, any>];
    expect(notified.data.task_id).toBe(started.data.task_id);
    expect(notified.data.status).toBe('cancelled');
    // The tool's answer, as the parent model read it in its tool result (quotes JSON-escaped there).
    expect(result.result).toContain(`Cancellation requested for background agent \\"${started.data.task_id}\\"`);
    expect(result.forks).toEqual([{ id: started.data.task_id, status: 'cancelled' }]);
    // A cancelled fork makes the run's exit code 1, as a failed one does.
    expect(run.code).toBe(1);
  });

  it('send_message: the running fork reads the parent’s message at its next turn boundary and answers with it', async () => {
    // The fork answers once, finds the message waiting, and takes another turn with it (RECALL then finds it).
    const prompt = ['FORK SLEEP 1500\\nRECALL parent agent\\]: \\S+', 'CALL@2 send_message {"task_id":"$TASK_ID","message":"hello-42"}', 'REPLY sent'].join('\n');
    const run = await runCli(['prompt', prompt, '--output-format', 'stream-json']);
    expect(run.code).toBe(0);
    const events = jsonLines(run.stdout) as Record<string, any>[];
    const notified = events.find((e) => e.subtype === 'task_notification') as Record<string, any>;
    expect(notified.data.result.text).toBe('RECALL parent agent\\]: \\S+: parent agent]: hello-42');
    expect(notified.data.result.turns).toBe(2);
    const result = events.at(-1) as Record<string, any>;
    expect(result.result).toContain('parent agent]: hello-42');
  });

  it('task_stop and send_message for a task the parent never started answer with the reference’s error', async () => {
    const prompt = [
      'CALL task_stop {"task_id":"fork-nope"}',
      'CALL send_message {"task_id":"general-purpose-nope","message":"late"}',
      'RECALL No background task found with ID \\S+',
    ].join('\n');
    const run = await runCli(['prompt', prompt, '--output-format', 'stream-json']);
    expect(run.code).toBe(0);
    const result = jsonLines(run.stdout).at(-1) as Record<string, any>;
    // RECALL gives every match: both calls were answered so (quotes JSON-escaped in the tool result).
    expect(result.result).toContain('No background task found with ID \\"fork-nope\\".');
    expect(result.result).toContain('No background task found with ID \\"general-purpose-nope\\".');
  });

  it('prompt --help and a missing prompt text', async () => {
    const [help, missing] = await Promise.all([runCli(['prompt', '--help']), runCli(['prompt'])]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: forkpool prompt TEXT \[--session FILE\]/);
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim()).toBe('forkpool: prompt: the prompt TEXT is required');
  });
});
