/* Coalesces every change (patches, scrolls, typing) into at most one render per animation frame. */

export function frameScheduler(render: () => void): () => void {
  let pending = false;
  return () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      render();
    });
  };
}
