/*
 * What an import keeps about a whole file while it reads it a chunk at a time: the shared strings of
 * the workbook, and the values of its key columns seen so far. Held as JavaScript strings in arrays
 * and maps they take about seventy bytes each, a hundred thousand rows several megabytes a column;
 * here they take their UTF-8 bytes and a few more, outside the garbage-collected heap.
 */

/** Strings by index in one UTF-8 buffer. */
export class StringTable {
  private bytes: Buffer = Buffer.alloc(1 << 16);
  private ends = new Uint32Array(1 << 12);
  private used = 0;
  length = 0;

  /** Adds `text`; answers its index. */
  add(text: string): number {
    const needed = this.used + Buffer.byteLength(text);
    if (needed > this.bytes.length) {
      const bigger = Buffer.alloc(Math.max(needed, this.bytes.length * 2));
      this.bytes.copy(bigger, 0, 0, this.used);
      this.bytes = bigger;
    }
    this.used += this.bytes.write(text, this.used);
    if (this.length === this.ends.length) {
      const bigger = new Uint32Array(this.ends.length * 2);
      bigger.set(this.ends);
      this.ends = bigger;
    }
    this.ends[this.length] = this.used;
    return this.length++;
  }

  /** The string at `index`; empty for an index the table does not hold. */
  get(index: number): string {
    if (!(index >= 0 && index < this.length)) return '';
    return this.bytes.toString('utf8', index === 0 ? 0 : this.ends[index - 1], this.ends[index]);
  }
}

/** FNV-1a over the string's UTF-16 code units. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Distinct strings, each with the line it was first seen on: an open-addressing hash table over a StringTable. */
export class FirstLines {
  private readonly values = new StringTable();
  private lines = new Uint32Array(1 << 10);
  private hashes = new Uint32Array(1 << 10);
  /** Slot → entry index + 1 (0: empty); kept at most half full. */
  private slots = new Uint32Array(1 << 11);

  /** The line `value` was first seen on; undefined when it was not. */
  get(value: string): number | undefined {
    const { entry } = this.find(value);
    return entry === 0 ? undefined : this.lines[entry - 1];
  }

  /** The line `value` was first seen on, or undefined after recording `line` as its first. */
  firstOrAdd(value: string, line: number): number | undefined {
    const { entry, slot, h } = this.find(value);
    if (entry !== 0) return this.lines[entry - 1];
    const index = this.values.add(value);
    if (index === this.lines.length) {
      this.lines = grown(this.lines);
      this.hashes = grown(this.hashes);
    }
    this.lines[index] = line;
    this.hashes[index] = h;
    this.slots[slot] = index + 1;
    if (this.values.length * 2 > this.slots.length) this.rehash();
    return undefined;
  }

  /** The entry holding `value` (0 for none) and the slot where it is or would go. */
  private find(value: string): { entry: number; slot: number; h: number } {
    const h = hash(value);
    const mask = this.slots.length - 1;
    let slot = h & mask;
    for (let entry = this.slots[slot] ?? 0; entry !== 0; entry = this.slots[slot] ?? 0) {
      if (this.hashes[entry - 1] === h && this.values.get(entry - 1) === value) return { entry, slot, h };
      slot = (slot + 1) & mask;
    }
    return { entry: 0, slot, h };
  }

  private rehash(): void {
    this.slots = new Uint32Array(this.slots.length * 2);
    const mask = this.slots.length - 1;
    for (let index = 0; index < this.values.length; index++) {
      let slot = (this.hashes[index] as number) & mask;
      while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
      this.slots[slot] = index + 1;
    }
  }
}

function grown(array: Uint32Array): Uint32Array<ArrayBuffer> {
  const bigger = new Uint32Array(array.length * 2);
  bigger.set(array);
  return bigger;
}
