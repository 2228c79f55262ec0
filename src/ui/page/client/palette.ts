/*
 * The colours drawn on canvases (the stylesheet has its own for text): mid tones that read on a
 * light and a dark background alike. As hex for a context's fillStyle, as RGB for pixel buffers.
 */
import type { ForkState, Mark } from '../../view.js';

export const STATE_COLOR: Record<ForkState, string> = {
  queued: '#9aa0a6',
  running: '#4c8df6',
  completed: '#3ba55c',
  failed: '#e5534b',
  cancelled: '#e8a33d',
};

export const MARK_COLOR: Record<Mark['kind'], string> = {
  call: '#5b6470',
  tool: '#7c5cd6',
  tool_failed: '#e5534b',
};

export type Rgb = readonly [number, number, number];

/** '#rrggbb' as [r, g, b]. */
export function rgb(hex: string): Rgb {
  const n = Number.parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}
