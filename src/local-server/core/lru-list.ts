/**
 * Items in least to most recently used order, linked through fields of their own: the caches
 * touch thousands of entries per request, and relinking one costs a small fraction of deleting
 * and re-inserting a Map key or a Set member (the other way to keep LRU order).
 */

export interface LruLinks<T> {
  older: T | undefined;
  newer: T | undefined;
}

export class LruList<T extends LruLinks<T>> {
  private first: T | undefined;
  private newest: T | undefined;

  get oldest(): T | undefined {
    return this.first;
  }

  /** Makes an item that is not in the list its most recent. */
  push(item: T): void {
    item.older = this.newest;
    if (this.newest) this.newest.newer = item;
    else this.first = item;
    this.newest = item;
  }

  remove(item: T): void {
    if (item.older) item.older.newer = item.newer;
    else this.first = item.newer;
    if (item.newer) item.newer.older = item.older;
    else this.newest = item.older;
    item.older = undefined;
    item.newer = undefined;
  }

  /** Makes an item of the list its most recent. */
  touch(item: T): void {
    this.remove(item);
    this.push(item);
  }

  clear(): void {
    this.first = undefined;
    this.newest = undefined;
  }
}
