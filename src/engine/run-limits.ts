import { contextWindowOf } from '../model/context-windows.js';
import { priceOf, type PriceTable } from '../model/prices.js';
import type { RunSettings } from './run.js';

/** The model's price for a run (undefined: none known); a cost cap needs one, so without it the fan-out is refused. */
export function runPrice(provider: string, model: string, own: PriceTable, maxCost: number | undefined): RunSettings['price'] {
  const price = priceOf(provider, model, own);
  if (price === undefined && maxCost !== undefined) {
    throw new TypeError(
      `ForkEngine.fanOut: options.maxCost needs the price of ${provider} model "${model}", and forkpool's table has none: give it in options.prices (--prices FILE): { "${model}": { "input", "cachedInput", "output" } } in USD per million tokens`,
    );
  }
  return price === undefined ? undefined : { model, price };
}

/** The model's context window for a run (undefined: none known, and no task is refused for size). */
export function runWindow(provider: string, model: string, own: PriceTable): RunSettings['contextWindow'] {
  const window = contextWindowOf(provider, model, own);
  return window === undefined ? undefined : { ...window, model };
}
