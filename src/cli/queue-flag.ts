import { QUEUE_ADDRESS_FORM, parseQueueAddress, type QueueAddress } from '../queue/address.js';
import { UsageError } from './usage-error.js';

/** What --queue takes, as run's, worker's and cancel's --help say it (below the flag's own line). */
export const QUEUE_URL_HELP = `${QUEUE_ADDRESS_FORM};\nrediss:// is TLS (a private CA: NODE_EXTRA_CA_CERTS=FILE)`;

/** --redis-password-env, as run's, worker's and cancel's flag tables hold it. */
export const REDIS_PASSWORD_ENV_FLAG = {
  type: 'string',
  arg: 'NAME',
  help: 'read the Redis password from this environment variable, not from the URL\n(a command line is shown to every user of the machine by ps)',
} as const;

/** What a command's flags say of its queue: --queue's value, and the variable its password is read from. */
interface QueueFlagValues {
  queue?: string | undefined;
  'redis-password-env'?: string | undefined;
}

/**
 * --queue's value as an address, its password from the variable --redis-password-env names when
 * given; a bad one is a usage error naming the flag (a password never echoed).
 */
export function queueFlagOf(values: QueueFlagValues, env: NodeJS.ProcessEnv, command: string): QueueAddress {
  if (values.queue === undefined) throw new UsageError(`${command}: --queue ${QUEUE_ADDRESS_FORM} is required`);
  let address: QueueAddress;
  try {
    address = parseQueueAddress(values.queue);
  } catch (err) {
    throw new UsageError(`--queue: ${(err as Error).message}`);
  }
  const name = values['redis-password-env'];
  if (name === undefined) return address;
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
    throw new UsageError('--redis-password-env: expected the name of an environment variable (letters, digits, _)');
  if (address.password !== undefined)
    throw new UsageError(
      '--redis-password-env: the --queue URL holds a password too; give it in one place (the variable keeps it off the command line)',
    );
  const password = env[name];
  if (password === undefined || password === '') throw new UsageError(`--redis-password-env ${name}: that variable is not set (export it)`);
  return { ...address, password, passwordEnv: name };
}
