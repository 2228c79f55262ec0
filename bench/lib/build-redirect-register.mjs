/** `--import`ed by a measuring process (bench/lib/build-under-test.ts): registers build-redirect.mjs with FORKPOOL_BENCH_BUILD's dist/. */
import { register } from 'node:module';
import { pathToFileURL } from 'node:url';

const other = process.env.FORKPOOL_BENCH_BUILD;
if (other) {
  register('./build-redirect.mjs', import.meta.url, {
    data: { from: new URL('../../dist/', import.meta.url).href, to: new URL('dist/', pathToFileURL(`${other}/`)).href },
  });
}
