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
/** The system and result lines in order (the message lines of the parent and its forks interleave with them as the run goes). */
const skeleton = (events: Record<string, any>[]): string[] => events.filter((e) => e.type === 'system' || e.type === 'result').map(kindOf);

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

  it('stream-json: the parent’s reply, task_started (fork), the fork’s own lines, one task_notification, then the result with the marker', async () => {
    const run = await runCli(['prompt', PROMPT, '--session', 'examples/session.json', '--output-format', 'stream-json']);
    expect(run.code).toBe(0);
    const events = jsonLines(run.stdout) as Record<string, any>[];
    expect(skeleton(events)).toEqual(['task_started', 'task_notification', 'result']);
    const started = events.find((e) => e.subtype === 'task_started') as Record<string, any>;
    const notified = events.find((e) => e.subtype === 'task_notification') as Record<string, any>;
    const result = events.at(-1) as Record<string, any>;
    // The reference's envelope on every line: its own uuid, the invocation's session_id.
    expect(new Set(events.map((e) => e.uuid)).size).toBe(events.length);
    expect(new Set(events.map((e) => e.session_id)).size).toBe(1);
    // The parent's lines have no parent tool use; the fork's conversation is marked with its tool_use id; the result has neither.
    const own = events.filter((e) => e.parent_tool_use_id === null);
    const fork = events.filter((e) => e.parent_tool_use_id === started.data.tool_use_id);
    expect(own.length + fork.length).toBe(events.length - 1);
    expect(result).not.toHaveProperty('parent_tool_use_id');
    // The parent's reply with its agent call comes first, its tool result after the task_started.
    expect(events[0]).toMatchObject({
      type: 'assistant',
      message: {
        role: 'assistant',
        model: 'gemini-2.5-flash',
        content: [{ type: 'tool_use', id: started.data.tool_use_id, name: 'agent' }],
      },
    });
    const placeholder = own.find((e) => e.type === 'user' && e.message.content[0]?.type === 'tool_result') as Record<string, any>;
    expect(events.indexOf(placeholder)).toBeGreaterThan(events.indexOf(started));
    expect(placeholder.message.content[0]).toMatchObject({
      tool_use_id: started.data.tool_use_id,
      is_error: false,
      content: expect.stringContaining('Background agent launched successfully.'),
    });
    // The fork's answer is a line of its conversation, and the text of its notification.
    expect(fork.at(-1)).toMatchObject({
      type: 'assistant',
      message: { content: [{ type: 'text', text: 'RECALL MARKER-[0-9A-F]{4}: MARKER-1F0C' }] },
    });
    expect(fork.every((e) => events.indexOf(e) > events.indexOf(started) && events.indexOf(e) < events.indexOf(notified))).toBe(true);
    // Shown once as the reference shows it: its user line, then task_notification.
    const display = events[events.indexOf(notified) - 1] as Record<string, any>;
    expect(display).toMatchObject({ type: 'user', parent_tool_use_id: null });
    expect(display.message.content).toEqual([{ type: 'text', text: 'Background agent "fork: RECALL MARKER-[0-9A-F]{4}" completed.' }]);
    expect(own.filter((e) => e.type === 'user' && e.message.content[0]?.type === 'text')).toEqual([display]);
    expect(result.subtype).toBe('success');
    expect(Object.keys(result.usage).sort()).toEqual(['cache_read_input_tokens', 'input_tokens', 'output_tokens']);
    expect(result.permission_denials).toEqual([]);
    expect(started.data.subagent_type).toBe('fork');
    expect(started.data.description).toBe('RECALL MARKER-[0-9A-F]{4}');
    // Correlated as Qwen Code's are: tool_use_id is the model's call id, task_id is fork-<tool_use_id>.
    expect(started.data.tool_use_id).toMatch(/^call_/);
    expect(started.data.task_id).toBe(`fork-${started.data.tool_use_id}`);
    expect(notified.data.task_id).toBe(started.data.task_id);
    expect(notified.data.tool_use_id).toBe(started.data.tool_use_id);
    expect(notified.data.summary).toBe('Agent "RECALL MARKER-[0-9A-F]{4}" completed.');
    expect(notified.data.status).toBe('completed');
    expect(notified.data.result.text).toBe('RECALL MARKER-[0-9A-F]{4}: MARKER-1F0C');
    expect(result.type).toBe('result');
    expect(result.is_error).toBe(false);
    expect(result.result).toContain('MARKER-1F0C');
    expect(result.forks).toEqual([{ id: started.data.task_id, status: 'completed' }]);
    // parent turn 1 (the agent call), turn 2 after the placeholder, turn 3 after the notification.
    expect(result.num_turns).toBeGreaterThanOrEqual(2);
    // The parent's last reply is its answer.
    expect(events.at(-2)).toMatchObject({
      type: 'assistant',
      parent_tool_use_id: null,
      message: { content: [{ type: 'text', text: result.result }] },
    });
  });

  it('a general-purpose sub-agent asked to run in the foreground: the tool call waits and returns its result; no task events', async () => {
    // \u0061 keeps the answer's words out of the parent's own prompt: only the sub-agent's result holds them.
    const prompt =
      'CALL agent {"description":"scout","prompt":"REPLY inline \\u0061nswer 42","run_in_background":false}\nRECALL inline answer \\d+';
    const run = await runCli(['prompt', prompt, '--output-format', 'stream-json']);
    expect(run.code).toBe(0);
    const events = jsonLines(run.stdout) as Record<string, any>[];
    // The parent's call, its result (the sub-agent's answer), the parent's answer: no task lines.
    expect(events.map(kindOf)).toEqual(['assistant', 'user', 'assistant', 'result']);
    expect(events.every((e) => !e.parent_tool_use_id)).toBe(true);
    const [call, answered] = events as [Record<string, any>, Record<string, any>];
    expect(answered.message.content).toEqual([
      { type: 'tool_result', tool_use_id: call.message.content[0].id, content: 'inline answer 42', is_error: false },
    ]);
    const result = events[3] as Record<string, any>;
    expect(result.result).toContain('inline answer 42');
    expect(result.forks).toEqual([{ id: expect.stringMatching(/^general-purpose-call_/), status: 'completed' }]);
  });

  it('a general-purpose sub-agent left to its default runs in the background, named for what it is', async () => {
    const prompt = 'CALL agent {"description":"scout","prompt":"REPLY background \\u0061nswer 7"}\nREPLY launched';
    const run = await runCli(['prompt', prompt, '--output-format', 'stream-json']);
    expect(run.code).toBe(0);
    const events = jsonLines(run.stdout) as Record<string, any>[];
    expect(skeleton(events)).toEqual(['task_started', 'task_notification', 'result']);
    const [started, notified] = events.filter((e) => e.type === 'system') as [Record<string, any>, Record<string, any>];
    expect(started.data.subagent_type).toBe('general-purpose');
    // A general-purpose sub-agent's conversation starts from its directive alone: its first line is that text.
    const own = events.filter((e) => e.parent_tool_use_id === started.data.tool_use_id);
    expect(own[0]).toMatchObject({ type: 'user', message: { content: [{ type: 'text', text: 'REPLY background \u0061nswer 7' }] } });
    expect(own.at(-1)).toMatchObject({ type: 'assistant', message: { content: [{ type: 'text', text: 'background answer 7' }] } });
    expect(started.data.task_id).toBe(`general-purpose-${started.data.tool_use_id}`);
    expect(notified.data.result.text).toBe('background answer 7');
    expect(notified.data.result.subagentType).toBe('general-purpose');
  });

  it('task_stop: the parent stops its running fork; the fork ends cancelled with one notification, and the tool says so', async () => {
    const prompt = [
      'FORK SLEEP 30000',
      'CALL@2 task_stop {"task_id":"$TASK_ID"}',
      'RECALL Cancellation requested for background agent \\S+',
    ].join('\n');
    const run = await runCli(['prompt', prompt, '--output-format', 'stream-json']);
    const events = jsonLines(run.stdout) as Record<string, any>[];
    expect(skeleton(events)).toEqual(['task_started', 'task_notification', 'result']);
    const [started, notified, result] = events.filter((e) => e.type === 'system' || e.type === 'result') as [
      Record<string, any>,
      Record<string, any>,
      Record<string, any>,
    ];
    expect(notified.data.task_id).toBe(started.data.task_id);
    expect(notified.data.status).toBe('cancelled');
    // The parent's task_stop call and its answer are lines of their own.
    const stop = events.find((e) => e.type === 'assistant' && e.message.content.some((b: any) => b.name === 'task_stop')) as Record<
      string,
      any
    >;
    const stopId = stop.message.content.find((b: any) => b.name === 'task_stop').id;
    const answer = events.find((e) => e.type === 'user' && e.message.content[0]?.tool_use_id === stopId) as Record<string, any>;
    expect(answer.message.content[0].content).toContain(`Cancellation requested for background agent "${started.data.task_id}"`);
    // The tool's answer, as the parent model read it in its tool result (quotes JSON-escaped there).
    expect(result.result).toContain(`Cancellation requested for background agent \\"${started.data.task_id}\\"`);
    expect(result.forks).toEqual([{ id: started.data.task_id, status: 'cancelled' }]);
    // The parent stopped it itself: no shortfall, the run is whole (its result line says success too).
    expect(result).toMatchObject({ subtype: 'success', is_error: false });
    expect(run.code).toBe(0);
  });

  it('send_message: the running fork reads the parent’s message at its next turn boundary and answers with it', async () => {
    // The fork answers once, finds the message waiting, and takes another turn with it (RECALL then finds it).
    const prompt = [
      'FORK SLEEP 1500\\nRECALL parent agent\\]: \\S+',
      'CALL@2 send_message {"task_id":"$TASK_ID","message":"hello-42"}',
      'REPLY sent',
    ].join('\n');
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
