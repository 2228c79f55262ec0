import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ForkEngine, type ParentEvent } from '../src/index.js';
import { startLocalServer, type LocalServer } from '../src/local-server/index.js';
import { parentSession } from './support/engine-fixtures.js';

let server: LocalServer;
let engine: ForkEngine;
beforeAll(async () => {
  server = await startLocalServer({ captureRequests: true });
  engine = await ForkEngine.create({ provider: { kind: 'local', url: server.url }, threads: 2 });
});
afterAll(async () => {
  await engine.close();
  await server.close();
});

describe('the parent agent loop with the agent tool', () => {
  it('forks in the background, feeds each notification back, and answers with what the forks found', async () => {
    const session = parentSession([], { marker: 'MARKER-7070', words: 10 });
    const events: ParentEvent[] = [];
    const outcome = await engine.runParentAgent(session, 'FORK RECALL MARKER-\\d{4}\nFORK REPLY second fork here', {
      onEvent: (e) => events.push(e),
    });
    expect(outcome.status).toBe('completed');
    expect(outcome.text).toContain('MARKER-7070');
    expect(outcome.text).toContain('second fork here');
    expect(outcome.forks.map((f) => f.status)).toEqual(['completed', 'completed']);
    expect(events.filter((e) => e.type === 'task_started').map((e) => e.type === 'task_started' && e.description)).toHaveLength(2);
    expect(events.filter((e) => e.type === 'task_notification')).toHaveLength(2);
    // The parent's model received each fork's <task-notification> as a user turn.
    const lastParentBody = server.requests
      .filter((r) => r.route === 'streamGenerateContent')
      .map((r) => r.body)
      .at(-1) as string;
    expect(lastParentBody).toContain('<task-notification>');
    expect(lastParentBody).toContain('MARKER-7070');
  });

  it('answers invalid agent parameters with a tool error naming the parameter, and starts nothing', async () => {
    const start = server.requests.length;
    const session = parentSession([], { words: 10 });
    const outcome = await engine.runParentAgent(
      session,
      'CALL agent {"description":"x","prompt":"y","subagent_type":"fork","model":"gemini-other"}\nREPLY gave up',
    );
    expect(outcome).toMatchObject({ status: 'completed', text: 'gave up', forks: [] });
    const bodies = server.requests
      .slice(start)
      .map((r) => r.body)
      .join('\n');
    expect(bodies).toContain('model: cannot be combined with subagent_type \\"fork\\"');
  });

  it('cancels its forks when its signal aborts, and says so', async () => {
    const controller = new AbortController();
    const pending = engine.runParentAgent(parentSession([], { words: 10 }), 'FORK SLEEP 30000', {
      signal: controller.signal,
      onEvent: (e) => {
        if (e.type === 'task_started') setTimeout(() => controller.abort(), 50);
      },
    });
    const outcome = await pending;
    expect(outcome.status).toBe('cancelled');
    expect(outcome.forks.map((f) => f.status)).toEqual(['cancelled']);
  });
});
