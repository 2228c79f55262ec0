/*
 * A canvas as wide as its box (CSS: width 100%) and as tall as asked, backed by device pixels so
 * that lines and text stay sharp on any screen. Resizing clears it: callers redraw all of it.
 */

/** The charts' axis and label text. */
export const LABEL_FONT = '11px system-ui, sans-serif';

export interface Surface {
  ctx: CanvasRenderingContext2D;
  /** Device pixels per CSS pixel. */
  ratio: number;
}

export function fitCanvas(canvas: HTMLCanvasElement, cssWidth: number, cssHeight: number): Surface | null {
  const ratio = window.devicePixelRatio || 1;
  const width = Math.max(1, Math.round(cssWidth * ratio));
  const height = Math.max(1, Math.round(cssHeight * ratio));
  if (canvas.width !== width) canvas.width = width;
  if (canvas.height !== height) canvas.height = height;
  const style = `${cssHeight}px`;
  if (canvas.style.height !== style) canvas.style.height = style;
  const ctx = canvas.getContext('2d');
  if (!ctx) return null;
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.clearRect(0, 0, cssWidth, cssHeight);
  return { ctx, ratio };
}

/** The colour the stylesheet gives the canvas's text (CSS `color`), so labels follow the theme. */
export function inkOf(canvas: HTMLCanvasElement): string {
  return getComputedStyle(canvas).color || '#656d76';
}

/** Calls back with the element's width in whole CSS pixels whenever it changes (a canvas is redrawn to fit). */
export function observeWidth(element: Element, onChange: (width: number) => void): void {
  let width = 0;
  new ResizeObserver((entries) => {
    const w = Math.floor(entries[entries.length - 1]?.contentRect.width ?? 0);
    if (w !== width) {
      width = w;
      onChange(w);
    }
  }).observe(element);
}
