/*
 * The live feed: a snapshot, then patches. EventSource reconnects by itself after a drop, and the
 * server opens every stream with a fresh snapshot, so a reconnect needs nothing more from us.
 */
import type { RunPatch, RunSnapshot } from '../../view.js';
import type { Api } from './api.js';

export type ConnectionStatus = 'live' | 'ended' | 'disconnected';

export interface FeedHandlers {
  snapshot(snapshot: RunSnapshot): void;
  patch(patch: RunPatch): void;
  status(status: ConnectionStatus): void;
}

export function connect(api: Api, on: FeedHandlers): void {
  const source = api.events();
  let ended = false;
  const end = (isEnded: boolean): void => {
    if (!isEnded) return;
    ended = true;
    // Once the run is over there is nothing more to hear: stop EventSource from reconnecting.
    source.close();
    on.status('ended');
  };
  source.addEventListener('snapshot', (event) => {
    const snapshot = JSON.parse((event as MessageEvent<string>).data) as RunSnapshot;
    on.snapshot(snapshot);
    on.status('live');
    end(snapshot.summary.ended);
  });
  source.addEventListener('patch', (event) => {
    const patch = JSON.parse((event as MessageEvent<string>).data) as RunPatch;
    on.patch(patch);
    end(patch.summary.ended);
  });
  source.addEventListener('error', () => {
    if (!ended) on.status('disconnected');
  });
}
