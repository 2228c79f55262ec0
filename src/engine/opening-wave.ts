import type { ForkCacheFigures } from './report.js';

/*
 * The forks a run sends before any fork's response has begun: the first fork alone under warm-up,
 * every fork of the first batch on a parent-warm run or with warm-up none. One of their first
 * requests reached the provider before the others and met the cold cache (or only what the parent
 * sent); the others could reuse what it sent. Which one, the run cannot see: workers send at once,
 * and the dispatch order is not the order of arrival. So the report gives that role to the fork of
 * the wave whose first call was served least, the first dispatched among equals. The maxima stay
 * what the requests and the provider's rules allow; only which fork carries the opening one moves.
 */

/** A settled fork of the wave, with its figures under either role of its first call. */
interface Member {
  order: number;
  /** Cached tokens of its first call; null: unknown; undefined: it made no call. */
  firstServed: number | null | undefined;
  asOpening: ForkCacheFigures;
  asOrdinary: ForkCacheFigures;
}

/** Figures given at settle that the report replaces. */
export interface FigureCorrection {
  before: ForkCacheFigures;
  after: ForkCacheFigures;
}

export interface OpeningWave {
  /** A fork sent before any response began (in dispatch order; the first to join holds the opening role until settled otherwise). */
  join(id: string): void;
  /** Whether a fork is in the wave and, if so, whether it holds the opening role by dispatch order. */
  role(id: string): 'opening' | 'ordinary' | undefined;
  settled(id: string, member: Omit<Member, 'order'>): void;
  /** The corrections that move the opening role to the fork of the wave served least (none when it is the first dispatched). */
  corrections(): FigureCorrection[];
}

export function createOpeningWave(): OpeningWave {
  const order = new Map<string, number>();
  const members = new Map<string, Member>();
  let openingId: string | undefined;
  return {
    join(id) {
      if (order.size === 0) openingId = id;
      order.set(id, order.size);
    },
    role(id) {
      if (!order.has(id)) return undefined;
      return id === openingId ? 'opening' : 'ordinary';
    },
    settled(id, member) {
      const at = order.get(id);
      if (at !== undefined) members.set(id, { ...member, order: at });
    },
    corrections() {
      let least: [string, Member] | undefined;
      for (const entry of members) {
        const served = entry[1].firstServed;
        if (served === null) return []; // unknown cached tokens: nothing to tell the forks apart by
        if (served === undefined) continue;
        const best = least?.[1];
        if (best === undefined || served < (best.firstServed as number) || (served === best.firstServed && entry[1].order < best.order))
          least = entry;
      }
      if (least === undefined || least[0] === openingId) return [];
      const moved: FigureCorrection[] = [{ before: least[1].asOrdinary, after: least[1].asOpening }];
      const opening = openingId === undefined ? undefined : members.get(openingId);
      if (opening) moved.push({ before: opening.asOpening, after: opening.asOrdinary });
      return moved;
    },
  };
}
