/**
 * RFC 5734 section 4: each EPP data unit is a 32-bit big-endian total length (which counts the
 * four header bytes themselves) followed by the XML instance.
 */
export const HEADER_BYTES = 4;
export const DEFAULT_MAX_FRAME_BYTES = 4 * 1024 * 1024;

export function encodeFrame(xml: string): Buffer {
  const body = Buffer.from(xml, 'utf8');
  const frame = Buffer.allocUnsafe(HEADER_BYTES + body.length);
  frame.writeUInt32BE(HEADER_BYTES + body.length, 0);
  body.copy(frame, HEADER_BYTES);
  return frame;
}

export class FrameError extends Error {}

/** Reassembles frames from TCP chunks, however the stream splits or joins them. */
export class FrameReader {
  private buffered: Buffer = Buffer.alloc(0);

  constructor(private readonly maxFrameBytes = DEFAULT_MAX_FRAME_BYTES) {}

  /** Feeds bytes; returns every frame now complete. Throws on a length a peer cannot mean. */
  push(chunk: Buffer): string[] {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const frames: string[] = [];
    while (this.buffered.length >= HEADER_BYTES) {
      const total = this.buffered.readUInt32BE(0);
      if (total <= HEADER_BYTES || total > this.maxFrameBytes) {
        throw new FrameError(
          `invalid EPP frame length ${total} (allowed ${HEADER_BYTES + 1} to ${this.maxFrameBytes})`,
        );
      }
      if (this.buffered.length < total) break;
      frames.push(this.buffered.subarray(HEADER_BYTES, total).toString('utf8'));
      this.buffered = this.buffered.subarray(total);
    }
    return frames;
  }

  get pendingBytes(): number {
    return this.buffered.length;
  }
}
