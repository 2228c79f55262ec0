// Internal: the queue address (src/queue/address.ts) and the Redis wire (src/queue/redis-wire.ts): `forkpool run --queue` and `forkpool worker` are their public face, and no entry point exports the queue; ForkResult comes through forkpool.
import { describe, expect, it } from 'vitest';
import type { ForkResult } from '../src/index.js';
import { connectionOf, parseQueueAddress } from '../src/queue/address.js';
import { jobIdOf, parseQueueProgress, parseCancelMessage, parseJobData, parseJobReturn } from '../src/queue/redis-wire.js';

/* The formats of a distributed run that need no Redis: addresses, job ids, job data, progress and return values. */

function completed(id: string): ForkResult {
  return {
    id,
    status: 'completed',
    text: `done ${id}`,
    turns: 1,
    toolCalls: 0,
    usage: { promptTokens: 100, cachedTokens: 0, outputTokens: 5 },
    durationMs: 1,
    retries: 0,
    calls: [{ promptTokens: 100, cachedTokens: 0, outputTokens: 5 }],
    worker: { threadId: -1, decodedPrefix: false },
  };
}

describe('the queue formats', () => {
  it('parses redis[s]://[[USER]:PASSWORD@]HOST[:PORT][/DB] and prints it without the password', () => {
    expect(parseQueueAddress('redis://127.0.0.1:6380/2')).toMatchObject({
      host: '127.0.0.1',
      port: 6380,
      db: 2,
      display: 'redis://127.0.0.1:6380/2',
    });
    expect(parseQueueAddress('redis://cache.internal')).toMatchObject({ host: 'cache.internal', port: 6379, db: 0 });
    const secret = parseQueueAddress('redis://user:s3cret@[::1]:7000');
    expect(secret).toMatchObject({ host: '::1', port: 7000, username: 'user', password: 's3cret' });
    expect(secret.display).toBe('redis://user:***@[::1]:7000');
    expect(secret.display).not.toContain('s3cret');
    expect(secret.tls).toBe(false);
    expect(parseQueueAddress('redis://:only%2Fpw@cache.internal:6380')).toMatchObject({
      password: 'only/pw',
      display: 'redis://:***@cache.internal:6380',
    });
    // rediss:// is TLS: ioredis gets tls options (Node's defaults: its CAs and NODE_EXTRA_CA_CERTS).
    const tls = parseQueueAddress('rediss://app:p%40ss@redis.example:6380/3');
    expect(tls).toMatchObject({ tls: true, username: 'app', password: 'p@ss', display: 'rediss://app:***@redis.example:6380/3' });
    expect(connectionOf(tls)).toMatchObject({ host: 'redis.example', port: 6380, db: 3, username: 'app', password: 'p@ss', tls: {} });
    expect(connectionOf(secret)).not.toHaveProperty('tls');
    expect(() => parseQueueAddress('http://127.0.0.1:6379')).toThrow(
      'expected redis[s]://[[USER]:PASSWORD@]HOST[:PORT][/DB] (got the scheme "http:")',
    );
    expect(() => parseQueueAddress('redis://127.0.0.1:6379/x')).toThrow(/database must be a number/);
    expect(() => parseQueueAddress('not a url')).toThrow(/not a URL/);
    // A URL that does not parse is echoed with whatever stands before its last '@' masked.
    expect(() => parseQueueAddress('redis://user:s3cret@host:port')).toThrow('(got "***@host:port")');
    expect(() => parseQueueAddress('redis://:pa/ss@w@rd@host:port')).toThrow('(got "***@host:port")');
  });

  it('job ids are the run id and the task id, with no ":" (BullMQ refuses it) and distinct for distinct tasks', () => {
    const ids = ['a:b', 'a%3Ab', 'a.b', 'ünï cödé', '42'].map((task) => jobIdOf('00ff00ff00ff00ff', task));
    for (const id of ids) {
      expect(id).not.toContain(':');
      expect(id.startsWith('00ff00ff00ff00ff.')).toBe(true);
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect(jobIdOf('00ff00ff00ff00ff', 'a:b')).toBe('00ff00ff00ff00ff.a%3Ab');
  });

  it('reads job data, progress and return values defensively', () => {
    const prefixId = 'a'.repeat(64);
    expect(parseJobData({ runId: '0123456789abcdef', prefixId, task: { id: 't', directive: 'd' } }).task.id).toBe('t');
    expect(() => parseJobData({ runId: 'r:1', prefixId, task: {} })).toThrow(/not a forkpool fork job/);
    // The coordinator's cache plan rides in the job (issue 23); one that is not a plan is refused.
    const plan = { provider: 'openai', request: { mechanism: 'cache-key', key: prefixId } };
    expect(parseJobData({ runId: '0123456789abcdef', prefixId, task: { id: 't', directive: 'd' }, plan }).plan).toEqual(plan);
    expect(() => parseJobData({ runId: '0123456789abcdef', prefixId, task: { id: 't', directive: 'd' }, plan: 'implicit' })).toThrow(
      /cache plan is not one/,
    );
    expect(parseQueueProgress({ type: 'response_start', turn: 1 })).toEqual({ type: 'response_start', turn: 1 });
    const usage = { promptTokens: 1, cachedTokens: 0, outputTokens: 1 };
    expect(parseQueueProgress({ type: 'turn', turn: 2, usage, functionCalls: 0 })).toEqual({
      type: 'turn',
      turn: 2,
      usage,
      functionCalls: 0,
    });
    expect(parseQueueProgress(50)).toBeUndefined();
    // What the coordinator's spans and metrics read is checked, in a copy: content never comes through Redis, a model name is a name.
    expect(
      parseQueueProgress({
        type: 'turn',
        turn: 2,
        usage,
        functionCalls: 0,
        content: null,
        responseModel: 'm'.repeat(500),
        startedAt: 1,
        endedAt: 'x',
      }),
    ).toEqual({
      type: 'turn',
      turn: 2,
      usage,
      functionCalls: 0,
    });
    expect(parseQueueProgress({ type: 'turn', turn: 2, usage: { promptTokens: -1 }, functionCalls: 0 })).toBeUndefined();
    expect(
      parseQueueProgress({
        type: 'call_failed',
        turn: 1,
        startedAt: 1,
        endedAt: 2,
        errorType: '429',
        message: 'slow down',
        content: { input: 'x' },
      }),
    ).toEqual({
      type: 'call_failed',
      turn: 1,
      startedAt: 1,
      endedAt: 2,
      errorType: '429',
      message: 'slow down',
    });
    expect(parseQueueProgress({ type: 'call_failed', turn: 1, errorType: '429' })).toBeUndefined();
    // Who took the job: a name, not anything else.
    expect(parseQueueProgress({ type: 'taken', worker: 'host:42', extra: 1 })).toEqual({ type: 'taken', worker: 'host:42' });
    expect(parseQueueProgress({ type: 'taken', worker: 'w'.repeat(201) })).toBeUndefined();
    expect(parseQueueProgress({ type: 'taken' })).toBeUndefined();
    const ret = parseJobReturn({ result: completed('t'), worker: { id: 'w', prefixFetches: 1, cpuMs: 12 } }, 't');
    expect(ret.worker).toEqual({ id: 'w', prefixFetches: 1, cpuMs: 12 });
    expect(() => parseJobReturn({ result: completed('other'), worker: { id: 'w' } }, 't')).toThrow(/another task/);
    expect(() => parseJobReturn({ nothing: true }, 't')).toThrow(/no fork result/);
  });

  it('reads cancel messages: a run id, and a task id or none; anything else is ignored', () => {
    expect(parseCancelMessage('{"runId":"0123456789abcdef"}')).toEqual({ runId: '0123456789abcdef' });
    expect(parseCancelMessage('{"runId":"0123456789abcdef","taskId":"a:b"}')).toEqual({ runId: '0123456789abcdef', taskId: 'a:b' });
    expect(parseCancelMessage('{"runId":"not hex"}')).toBeUndefined();
    expect(parseCancelMessage('{"runId":"0123456789abcdef","taskId":7}')).toBeUndefined();
    expect(parseCancelMessage('nonsense')).toBeUndefined();
  });
});
