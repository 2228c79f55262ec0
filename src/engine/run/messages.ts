import type { ForkResult } from '../../result/fork-result.js';
import type { ForkTask } from '../../session/schema.js';
import { transcriptPath } from '../../transcript/writer.js';
import type { TranscriptTarget } from '../../transcript/target.js';
import type { TaskIntake } from './intake.js';
import type { MessagingSettings, SendOutcomeOf } from './send-outcome.js';

/** What a revival is to the run that started it: where the revived fork's later messages go. */
export interface Revival<Run> {
  send(id: string, message: string): SendOutcomeOf<Run>;
}

/** What send() answers for a fork a distributed run's worker runs. */
const NOT_IN_THIS_PROCESS = {
  status: 'not-delivered',
  reason: 'it runs in another process (a distributed run), which messages do not reach',
} as const;

/**
 * Messaging and revival: the parent's messages to a run's forks (live ones read them at a turn
 * boundary, queued ones when they start, tasks not taken yet once they are), and, in a run with
 * transcripts, the forks that ended, so that a completed one can be revived by a message.
 */
export class ForkMessages<Run extends Revival<Run>> {
  /** With transcripts: the forks that ended (and, once revived, the run that goes on with it). */
  private readonly ended = new Map<string, { task: ForkTask; status: ForkResult['status']; revival?: Run }>();

  constructor(
    private readonly intake: TaskIntake,
    private readonly settings: MessagingSettings<Run>,
  ) {}

  /** A fork ended: kept, with transcripts, for send() to revive. */
  forkEnded(task: ForkTask, status: ForkResult['status']): void {
    if (this.settings.transcripts !== undefined) this.ended.set(task.id, { task, status });
  }

  /** A fork of this run ended (kept only with transcripts). */
  hasEnded(id: string): boolean {
    return this.ended.has(id);
  }

  /** The run a revived fork continues in: its stops go there. */
  revivalOf(id: string): Run | undefined {
    return this.ended.get(id)?.revival;
  }

  /**
   * The parent's message to a fork. One that has not ended reads it at its next turn boundary
   * (with its tool results, or as a turn of its own after an answer; a queued one when it starts).
   * One that completed, in a run with transcripts, is revived: a run of its own continues it from
   * its transcript with the message as its next turn, on the same pool, and its result comes there.
   */
  send(id: string, message: string): SendOutcomeOf<Run> {
    const { remoteForks } = this.settings;
    const index = this.intake.indexOf(id);
    const live = index === undefined ? undefined : this.intake.live.get(index);
    if (live?.state === 'running') {
      if (remoteForks) return NOT_IN_THIS_PROCESS;
      if (live.graceTimer !== undefined) return { status: 'not-delivered', reason: 'it is being stopped' };
      if (!live.channel.send(message))
        return { status: 'not-delivered', reason: 'it is ending (it has answered, or is on its last allowed turn)' };
    } else if (live?.state === 'queued') {
      if (remoteForks) return NOT_IN_THIS_PROCESS;
      live.inbox = [...(live.inbox ?? []), message];
    } else if (this.intake.isAhead(id)) {
      if (remoteForks) return NOT_IN_THIS_PROCESS;
      // One of the run's tasks not taken yet (an array's are taken in order): it gets the message when it is.
      this.intake.sendAhead(id, message);
    } else {
      return this.revive(id, message);
    }
    return { status: 'delivered' };
  }

  /** A message to a fork that ended: a completed one is revived (once: its revival takes the later ones). */
  private revive(id: string, message: string): SendOutcomeOf<Run> {
    const ended = this.ended.get(id);
    if (ended === undefined || this.settings.revive === undefined) return { status: 'unknown' };
    if (this.settings.remoteForks)
      return { status: 'not-delivered', reason: 'it ran in another process (a distributed run), which messages do not reach' };
    // Revived already: its revival has it now (two revivals of one transcript would interleave in it).
    if (ended.revival !== undefined) return ended.revival.send(id, message);
    if (ended.status !== 'completed') return { status: 'ended', forkStatus: ended.status };
    const revival = this.settings.revive(ended.task, message);
    if (revival === undefined) return { status: 'not-delivered', reason: 'the engine is closed' };
    ended.revival = revival;
    return { status: 'revived', run: revival };
  }

  /** Where a fork's transcript is written, in a run with transcripts. */
  transcriptOf(id: string): string | undefined {
    const t = this.settings.transcripts;
    return t === undefined ? undefined : transcriptPath(t.dir, id);
  }

  /** A fork's transcript as its job names it: where, and whether it continues. */
  transcriptTarget(id: string): TranscriptTarget | undefined {
    const t = this.settings.transcripts;
    if (t === undefined) return undefined;
    const path = transcriptPath(t.dir, id);
    if (t.continueFrom === 'message') return { path, continueFrom: 'message', message: t.message };
    return t.continueFrom === 'crash' ? { path, continueFrom: 'crash' } : { path };
  }
}
