import { QUEUE_ADDRESS_FORM, parseQueueAddress, type QueueAddress } from '../queue/address.js';
import { UsageError } from './usage-error.js';

/** What --queue takes, as run's, worker's and cancel's --help say it (below the flag's own line). */
export const QUEUE_URL_HELP = `${QUEUE_ADDRESS_FORM};\nrediss:// is TLS (a private CA: NODE_EXTRA_CA_CERTS=FILE)`;

/** --queue's value as an address; a bad one is a usage error naming the flag (its password never echoed). */
export function queueFlagOf(value: string | undefined, command: string): QueueAddress {
  if (value === undefined) throw new UsageError(`${command}: --queue ${QUEUE_ADDRESS_FORM} is required`);
  try {
    return parseQueueAddress(value);
  } catch (err) {
    throw new UsageError(`--queue: ${(err as Error).message}`);
  }
}
