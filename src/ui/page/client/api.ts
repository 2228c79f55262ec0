/* The server's endpoints, each with the page's token (from its own URL). */
import type { ForkDetail } from '../../view.js';

export interface Api {
  events(): EventSource;
  fork(id: string): Promise<ForkDetail | null>;
  /** Stops one fork, or the run when no id is given; true when something was stopped. */
  stop(id?: string): Promise<boolean>;
}

export function createApi(token: string): Api {
  const url = (path: string, id?: string): string => {
    const u = new URL(path, location.href);
    u.searchParams.set('token', token);
    if (id !== undefined) u.searchParams.set('id', id);
    return u.toString();
  };
  return {
    events: () => new EventSource(url('/events')),
    async fork(id) {
      const res = await fetch(url('/fork', id));
      if (res.status === 404) return null;
      if (!res.ok) throw new Error(`GET /fork: ${res.status}`);
      return (await res.json()) as ForkDetail;
    },
    async stop(id) {
      const res = await fetch(url('/stop', id), { method: 'POST' });
      if (!res.ok) throw new Error(`POST /stop: ${res.status}`);
      const body = (await res.json()) as { stopped?: unknown };
      return body.stopped === true;
    },
  };
}
