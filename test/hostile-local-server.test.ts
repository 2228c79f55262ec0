import { connect } from 'node:net';
import { GoogleGenAI } from '@google/genai';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startLocalServer, type LocalServer } from '../src/local-server/index.js';
import { deepArrays, deepObjects } from './fixtures/hostile/errors.js';

/*
 * Hostile requests to the local server (its Gemini routes), through raw fetch and raw sockets. Each
 * ends in a Gemini error body (or a closed socket), pollutes nothing, and afterwards a good request
 * through the real @google/genai SDK still succeeds.
 */

const MODEL = 'gemini-2.5-flash';
let server: LocalServer;
beforeAll(async () => {
  server = await startLocalServer();
});
afterAll(async () => {
  await server.close();
});

let probe = 0;
/** A good request through the real SDK: the server is still serving. */
async function stillServes(target: LocalServer = server): Promise<void> {
  const ai = new GoogleGenAI({ apiKey: 'k', vertexai: false, httpOptions: { baseUrl: target.url } });
  const word = `alive-${++probe}`;
  const res = await ai.models.generateContent({ model: MODEL, contents: `REPLY ${word}` });
  expect(res.text).toBe(word);
}
afterEach(async () => {
  await stillServes();
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(Object.prototype).not.toHaveProperty('polluted');
});

interface ErrorBody {
  error: { code: number; message: string; status: string };
}

async function post(body: string | Uint8Array<ArrayBuffer>, init: { path?: string; contentType?: string; target?: LocalServer } = {}) {
  const target = init.target ?? server;
  const res = await fetch(`${target.url}${init.path ?? `/v1beta/models/${MODEL}:generateContent`}`, {
    method: 'POST',
    headers: { 'content-type': init.contentType ?? 'application/json' },
    body,
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const errorOf = (text: string): ErrorBody['error'] => (JSON.parse(text) as ErrorBody).error;
const userText = (text: string): string => JSON.stringify({ contents: [{ role: 'user', parts: [{ text }] }] });

/** Writes raw bytes on a socket and collects everything the server sends until it closes. */
function rawExchange(target: LocalServer, chunks: (string | Buffer)[], options: { closeAfterWrite?: boolean } = {}): Promise<string> {
  return new Promise((resolve) => {
    let received = '';
    const socket = connect(target.port, '127.0.0.1', () => {
      for (const chunk of chunks) socket.write(chunk);
      if (options.closeAfterWrite) socket.destroy();
    });
    socket.setEncoding('utf8');
    socket.on('data', (data: string) => (received += data));
    socket.on('close', () => resolve(received));
    socket.on('error', () => resolve(received));
  });
}

describe('local server: hostile JSON bodies', () => {
  it('100,000 nested arrays in functionCall args → 400, not a 500 stack overflow', async () => {
    const body = `{"contents":[{"role":"model","parts":[{"functionCall":{"name":"f","args":{"a":${deepArrays(100_000)}}}}]},{"role":"user","parts":[{"text":"REPLY x"}]}]}`;
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(errorOf(res.text)).toEqual({
      code: 400,
      status: 'INVALID_ARGUMENT',
      message: 'Invalid JSON payload received. Nesting is deeper than 100 levels.',
    });
  });

  it('deep nesting in tools and in an unknown part field, and as contents itself', async () => {
    for (const body of [
      `{"contents":[{"parts":[{"text":"hi"}]}],"tools":[{"x":${deepObjects(100_000)}}]}`,
      `{"contents":[{"parts":[{"text":"hi","x":${deepArrays(100_000)}}]}]}`,
      `{"contents":${deepArrays(100_000)}}`,
    ]) {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(errorOf(res.text).message).toBe('Invalid JSON payload received. Nesting is deeper than 100 levels.');
    }
  });

  it('nesting up to 100 levels is served; brackets inside strings do not count', async () => {
    // body(1) → contents(2) → content(3) → parts(4) → part(5) → functionCall(6) → args(7) → 93 more = 100
    const body = `{"contents":[{"role":"model","parts":[{"functionCall":{"name":"f","args":${deepObjects(94, '"[[[[{{{{\\"]]]]"')}}}]},{"role":"user","parts":[{"text":"REPLY deep-ok"}]}]}`;
    const res = await post(body);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text).candidates[0].content.parts[0].text).toBe('deep-ok');
  });

  it('__proto__, constructor and prototype keys inside a request are data; at the top level an unknown field', async () => {
    const nested =
      '{"contents":[{"role":"user","__proto__":{"polluted":1},"parts":[{"text":"REPLY proto-ok","__proto__":{"polluted":1}}]}],"generationConfig":{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}}},"tools":[{"__proto__":{"polluted":1}}]}';
    const ok = await post(nested);
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.text).candidates[0].content.parts[0].text).toBe('proto-ok');
    const top = await post('{"__proto__":{"polluted":1},"contents":[{"parts":[{"text":"x"}]}]}');
    expect(top.status).toBe(400);
    expect(errorOf(top.text).message).toBe('Invalid JSON payload received. Unknown name "__proto__": Cannot find field.');
    const cache = await post('{"model":"m","__proto__":{"polluted":1}}', { path: '/v1beta/cachedContents' });
    expect(cache.status).toBe(400);
    expect(errorOf(cache.text).message).toBe(
      'Invalid JSON payload received. Unknown name "__proto__" at \'cached_content\': Cannot find field.',
    );
  });

  it('a scripted CALL whose args hold __proto__ answers with it as data', async () => {
    const res = await post(userText('CALL probe {"__proto__":{"polluted":1},"ok":true}'));
    expect(res.status).toBe(200);
    const call = JSON.parse(res.text).candidates[0].content.parts[0].functionCall;
    expect(call.name).toBe('probe');
    expect(Object.keys(call.args)).toEqual(['__proto__', 'ok']);
  });

  it('invalid UTF-8 in the body → 400, never replacement characters in the prompt', async () => {
    const body = Buffer.concat([Buffer.from('{"contents":[{"parts":[{"text":"REPLY a'), Buffer.from([0xff, 0xfe]), Buffer.from('"}]}]}')]);
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(errorOf(res.text)).toEqual({
      code: 400,
      status: 'INVALID_ARGUMENT',
      message: 'Invalid JSON payload received. The request body is not valid UTF-8.',
    });
  });

  it('valid multi-byte UTF-8 is served', async () => {
    const res = await post(userText('REPLY héllo 世界 🧪'));
    expect(JSON.parse(res.text).candidates[0].content.parts[0].text).toBe('héllo 世界 🧪');
  });

  it('a garbage body gives a short message, not an echo of the body', async () => {
    const res = await post(`not json ${'x'.repeat(1_000_000)}`);
    expect(res.status).toBe(400);
    const { message } = errorOf(res.text);
    expect(message.startsWith('Invalid JSON payload received. ')).toBe(true);
    expect(message.length).toBeLessThan(300);
  });
});

describe('local server: sizes', () => {
  const bigBody = (): string =>
    JSON.stringify({
      contents: [
        { role: 'user', parts: [{ text: 'z'.repeat(10 * 1024 * 1024) }] },
        { role: 'model', parts: [{ text: 'noted' }] },
        { role: 'user', parts: [{ text: 'REPLY big-ok' }] },
      ],
    });

  it('a 10 MiB single string under the default 32 MiB limit is served', async () => {
    const res = await post(bigBody());
    expect(res.status).toBe(200);
    const json = JSON.parse(res.text);
    expect(json.candidates[0].content.parts[0].text).toBe('big-ok');
    expect(json.usageMetadata.promptTokenCount).toBeGreaterThan((10 * 1024 * 1024) / 4);
  });

  it('exactly maxBodyBytes is served, one byte more is 413 with a Gemini error', async () => {
    const body = bigBody();
    const bytes = Buffer.byteLength(body);
    const exact = await startLocalServer({ maxBodyBytes: bytes });
    const under = await startLocalServer({ maxBodyBytes: bytes - 1 });
    try {
      expect((await post(body, { target: exact })).status).toBe(200);
      const res = await post(body, { target: under });
      expect(res.status).toBe(413);
      expect(errorOf(res.text)).toEqual({
        code: 413,
        status: 'INVALID_ARGUMENT',
        message: `Request payload size exceeds the limit: ${bytes - 1} bytes.`,
      });
      await stillServes(under);
    } finally {
      await Promise.all([exact.close(), under.close()]);
    }
  });

  it('scripted TOKENS past the cap answers with the cap instead of building gigabytes', async () => {
    const res = await post(userText('TOKENS 999999999999'));
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text).candidates[0].content.parts[0].text).toBe('TOKENS 999999999999: at most 16777216 tokens');
  });

  it('scripted FAIL with a status that is not an HTTP error is plain text, not a bogus status', async () => {
    for (const status of ['999', '200', '099']) {
      const res = await post(userText(`FAIL ${status}`));
      expect(res.status).toBe(200);
      expect(JSON.parse(res.text).candidates[0].content.parts[0].text).toMatch(
        /^Scope: FAIL \d{3}\nResult: no tool results; context [0-9a-f]{8}$/,
      );
    }
  });
});

describe('local server: catastrophic RECALL patterns are stopped', () => {
  it('(a|aa)+$ over a long run of a! is stopped and reported, and other requests are served meanwhile', async () => {
    const slow = post(userText(`${'a'.repeat(80)}!\nRECALL (a|aa)+$`));
    const [res] = await Promise.all([slow, stillServes()]);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text).candidates[0].content.parts[0].text).toBe(
      'RECALL (a|aa)+$: the regular expression took longer than 1000 ms and was stopped',
    );
  });

  it('an ordinary RECALL still finds its matches', async () => {
    const res = await post(userText('codes: K-17 and K-42\nRECALL K-\\d+'));
    expect(JSON.parse(res.text).candidates[0].content.parts[0].text).toBe('RECALL K-\\d+: K-17, K-42');
  });
});

describe('local server: lying and slow clients', () => {
  it('Content-Length claims more than is sent, then the client closes: nothing hangs', async () => {
    const received = await rawExchange(
      server,
      [
        `POST /v1beta/models/${MODEL}:generateContent HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{"contents":[`,
      ],
      { closeAfterWrite: true },
    );
    expect(received).toBe('');
    await stillServes();
    // The abandoned request is let go (the server notices the close on its own schedule).
    await vi.waitFor(() => expect(server.metrics().inFlight).toBe(0));
  });

  it('Content-Length claims less than is sent: the leftover bytes are a bad request and the connection is closed', async () => {
    const body = userText('REPLY never');
    const received = await rawExchange(server, [
      `POST /v1beta/models/${MODEL}:generateContent HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 10\r\n\r\n${body}`,
    ]);
    expect(received).toBe('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n');
    await vi.waitFor(() => expect(server.metrics().inFlight).toBe(0));
  });

  it('a 100 KB header is 431', async () => {
    const received = await rawExchange(server, [
      `POST /v1beta/models/${MODEL}:generateContent HTTP/1.1\r\nhost: x\r\nx-big: ${'h'.repeat(100_000)}\r\n\r\n`,
    ]);
    expect(received).toBe('HTTP/1.1 431 Request Header Fields Too Large\r\nconnection: close\r\n\r\n');
  });

  it('a non-numeric Content-Length and a Content-Length with Transfer-Encoding are 400', async () => {
    for (const headers of ['content-length: abc', 'content-length: 5\r\ntransfer-encoding: chunked']) {
      const received = await rawExchange(server, [
        `POST /v1beta/models/${MODEL}:generateContent HTTP/1.1\r\nhost: x\r\n${headers}\r\n\r\n{}`,
      ]);
      expect(received.startsWith('HTTP/1.1 400 Bad Request')).toBe(true);
    }
  });

  it('a slowloris partial body does not block other requests', async () => {
    const socket = connect(server.port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(
      `POST /v1beta/models/${MODEL}:generateContent HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"con`,
    );
    await vi.waitFor(() => expect(server.metrics().inFlight).toBe(1));
    await stillServes();
    await stillServes();
    expect(server.metrics().inFlight).toBe(1); // still held open, and nobody else waited for it
    socket.destroy();
    await vi.waitFor(() => expect(server.metrics().inFlight).toBe(0));
  });

  it('with requestTimeoutMs, a slowloris gets 408 and its socket is closed', async () => {
    const strict = await startLocalServer({ requestTimeoutMs: 200 });
    try {
      const received = await rawExchange(strict, [
        `POST /v1beta/models/${MODEL}:generateContent HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"con`,
      ]);
      expect(received).toBe('HTTP/1.1 408 Request Timeout\r\nconnection: close\r\n\r\n');
      await stillServes(strict);
      await vi.waitFor(() => expect(strict.metrics().inFlight).toBe(0));
    } finally {
      await strict.close();
    }
    await expect(startLocalServer({ requestTimeoutMs: 0 })).rejects.toThrow(
      'local server: requestTimeoutMs must be a positive integer (got 0)',
    );
  });
});

describe('local server: headers, paths and model names', () => {
  it('a wrong Content-Type is accepted when the body is JSON (the body decides), and a form body is a JSON error', async () => {
    const plain = await post(userText('REPLY typed'), { contentType: 'text/plain' });
    expect(plain.status).toBe(200);
    expect(JSON.parse(plain.text).candidates[0].content.parts[0].text).toBe('typed');
    const form = await post('contents=hello&x=1', { contentType: 'application/x-www-form-urlencoded' });
    expect(form.status).toBe(400);
    expect(errorOf(form.text).message.startsWith('Invalid JSON payload received. ')).toBe(true);
  });

  it('a query string smuggled into the model segment stays part of the model name', async () => {
    const res = await post(userText('REPLY smuggled'), { path: '/v1beta/models/gem%3Falt%3Dsse%26key%3Dx:generateContent' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=UTF-8');
    const json = JSON.parse(res.text);
    expect(json.modelVersion).toBe('gem?alt=sse&key=x');
    expect(json.candidates[0].content.parts[0].text).toBe('smuggled');
  });

  it('CR/LF in an encoded model name never reaches a header', async () => {
    const res = await post(userText('REPLY crlf'), { path: '/v1beta/models/a%0D%0AX-Evil%3A%20yes:generateContent' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-evil')).toBeNull();
    expect(JSON.parse(res.text).modelVersion).toBe('a\r\nX-Evil: yes');
  });

  it('a model segment with a real "?" is cut at the query: 404', async () => {
    const res = await post(userText('REPLY x'), { path: `/v1beta/models/${MODEL}?:generateContent` });
    expect(res.status).toBe(404);
    expect(errorOf(res.text).message).toBe(`Method not found: POST /v1beta/models/${MODEL}`);
  });

  it('a path with .. is normalized and reaches nothing outside the API', async () => {
    const received = await rawExchange(server, [
      'GET /v1beta/cachedContents/../../../../etc/passwd HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n',
    ]);
    expect(received.startsWith('HTTP/1.1 404 Not Found')).toBe(true);
    expect(received).toContain('"message":"Method not found: GET /etc/passwd"');
  });

  it('an encoded ../ in a cache name is only a name that does not exist', async () => {
    const res = await fetch(`${server.url}/v1beta/cachedContents/..%2F..%2Fetc%2Fpasswd`);
    expect(res.status).toBe(404);
    expect(errorOf(await res.text()).message).toBe('CachedContent not found (or permission denied): cachedContents/../../etc/passwd');
  });

  it('an encoded ../ in the model name is only a model name', async () => {
    const res = await post(userText('REPLY dots'), { path: '/v1beta/models/..%2F..%2Fadmin:generateContent' });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text).modelVersion).toBe('../../admin');
  });
});
