/*
 * What an OpenAI Agents SDK agent sent and was answered, read where the bytes are: a `fetch` for the
 * agent's OpenAI client (`new OpenAI({ fetch })`, a documented option) that passes every request
 * through unchanged and keeps, of each Responses API call whose output calls the fork tool, the
 * request body as sent (a string: the exact bytes) and the response's output items (read from a
 * clone of the response, streamed or not, while the SDK reads its own). A tool's `execute` gets its
 * call, not the conversation: its call id finds the step here. Nothing else is kept.
 */

/** One model call that called the fork tool: the request body as sent, and the items it output. */
export interface RecordedStep {
  readonly body: string;
  readonly output: readonly Record<string, unknown>[];
}

export interface RequestRecorder {
  /** The fetch to give the agent's OpenAI client. */
  readonly fetch: typeof fetch;
  /** The step whose output holds this call of the fork tool (once: its entry is dropped); undefined when no recorded call made it. */
  stepOf(callId: string): Promise<RecordedStep | undefined>;
}

/** Steps kept at most for `execute` to claim (calls never executed — an interrupted run — must not pin them forever): by count and by body bytes. */
const MAX_STEPS = 256;
const MAX_BYTES = 64 * 1024 * 1024;
/** The longest `stepOf` waits for responses still being read. */
const READ_WAIT_MS = 10_000;

export function requestRecorder(toolName: string, inner: typeof fetch = globalThis.fetch): RequestRecorder {
  /** Each kept step with its calls not claimed yet, oldest first; and each call's step. */
  const kept = new Map<RecordedStep, Set<string>>();
  const byCall = new Map<string, RecordedStep>();
  let keptBytes = 0;
  const reading = new Set<Promise<void>>();

  const drop = (step: RecordedStep): void => {
    for (const callId of kept.get(step) ?? []) byCall.delete(callId);
    kept.delete(step);
    keptBytes -= step.body.length;
  };

  const keep = (body: string, output: readonly Record<string, unknown>[]): void => {
    const calls = output.filter((item) => item.type === 'function_call' && item.name === toolName && typeof item.call_id === 'string');
    if (calls.length === 0) return;
    const step: RecordedStep = { body, output };
    kept.set(step, new Set(calls.map((call) => call.call_id as string)));
    for (const call of calls) byCall.set(call.call_id as string, step);
    keptBytes += body.length;
    for (const oldest of kept.keys()) {
      if (kept.size <= MAX_STEPS && keptBytes <= MAX_BYTES) break;
      drop(oldest);
    }
  };

  const recording: typeof fetch = async (input, init) => {
    const response = await inner(input, init);
    const body = init?.body;
    if (init?.method !== 'POST' || typeof body !== 'string' || !response.ok || response.body === null || !isResponsesCall(input))
      return response;
    const read = outputOf(response.clone())
      .then((output) => {
        if (output !== undefined) keep(body, output);
      })
      // A response the agent's own read aborts or that does not parse is simply not a step.
      .catch(() => undefined)
      .finally(() => reading.delete(read));
    reading.add(read);
    return response;
  };

  /** Waits until the call's step is kept, no response is being read, or READ_WAIT_MS has passed. */
  const readFor = async (callId: string): Promise<void> => {
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(resolve, READ_WAIT_MS, 'timeout');
    });
    try {
      while (!byCall.has(callId) && reading.size > 0) {
        if ((await Promise.race([bound, ...reading])) === 'timeout') return;
      }
    } finally {
      clearTimeout(timer);
    }
  };

  return {
    fetch: recording,
    async stepOf(callId) {
      if (!byCall.has(callId)) await readFor(callId);
      const step = byCall.get(callId);
      if (step === undefined) return undefined;
      byCall.delete(callId);
      const calls = kept.get(step);
      calls?.delete(callId);
      // Its last call claimed, the step is the fan-out's now: the recorder lets go of it.
      if (calls?.size === 0) drop(step);
      return step;
    },
  };
}

/** Whether a request goes to the Responses API's create endpoint (…/responses). */
function isResponsesCall(input: Parameters<typeof fetch>[0]): boolean {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  try {
    return new URL(url).pathname.endsWith('/responses');
  } catch {
    return false;
  }
}

/** The output items of a Responses API answer: the whole JSON, or the `response.completed` event of a stream. */
async function outputOf(response: Response): Promise<readonly Record<string, unknown>[] | undefined> {
  const text = await response.text();
  if (!(response.headers.get('content-type') ?? '').includes('text/event-stream')) return outputItems(JSON.parse(text));
  // The last event carries the whole response; only its data line is parsed.
  for (const line of text.split('\n')) {
    if (line.startsWith('data:') && line.includes('"response.completed"')) {
      const event = JSON.parse(line.slice(5)) as { type?: unknown; response?: unknown };
      if (event.type === 'response.completed') return outputItems(event.response);
    }
  }
  return undefined;
}

function outputItems(response: unknown): readonly Record<string, unknown>[] | undefined {
  const output = (response as { output?: unknown } | null)?.output;
  return Array.isArray(output)
    ? (output.filter((item) => typeof item === 'object' && item !== null) as Record<string, unknown>[])
    : undefined;
}
